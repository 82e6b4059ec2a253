// Every Bearer route and the auth routes of the api tier.
import type { Route } from '../lib/http/types.ts';
import type { ApiContext } from './context.ts';

export function apiRoutes(_ctx: ApiContext): Route[] {
  return [];
}
