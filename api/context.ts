// What every api route module receives. Built once in service.ts.
import type { AnalyticsStore } from '../lib/analytics/store.ts';
import type { Config } from '../lib/config.ts';
import type { Logger } from '../lib/log.ts';
import type { Database } from '../lib/postgres/database.ts';
import type { AccessTokens } from './auth/access-tokens.ts';
import type { Guard } from './auth/guard.ts';

export interface ApiContext {
  config: Config;
  logger: Logger;
  db: Database;
  tokens: AccessTokens;
  guard: Guard;
  analytics: AnalyticsStore;
  /** The clock of date windows; tests may pin it. */
  now(): Date;
}
