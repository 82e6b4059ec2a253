// Every Bearer route and the auth routes of the api tier.
import type { Route } from '../lib/http/types.ts';
import type { ApiContext } from './context.ts';
import { costRoutes } from './analytics/cost-routes.ts';
import { qualityRoutes } from './analytics/quality-routes.ts';
import { authRoutes } from './auth/routes.ts';
import { serviceAccountRoutes } from './service-accounts/routes.ts';
import { registryRoutes } from './registry/routes.ts';
import { telemetryRoutes } from './telemetry/routes.ts';
import { settingsRoutes } from './settings/routes.ts';
import { discoveryRoutes } from './discovery/routes.ts';
import { priceRoutes } from './prices/routes.ts';
import { dashboardRoutes } from './dashboard/routes.ts';

export function apiRoutes(ctx: ApiContext): Route[] {
  return [...authRoutes(ctx), ...serviceAccountRoutes(ctx), ...qualityRoutes(ctx), ...costRoutes(ctx), ...registryRoutes(ctx), ...telemetryRoutes(ctx), ...settingsRoutes(ctx), ...discoveryRoutes(ctx), ...priceRoutes(ctx), ...dashboardRoutes(ctx)];
}
