// The OTLP part of the ingest tier: the receiver routes and what they need beside the tier's
// directory and prices: the service-account verifier (answers cached, so an exporter costs one
// database look-up per 30 s) and the status recorder (one write a second at most).
import type { Config } from '../../lib/config.ts';
import type { EventLog } from '../../lib/event-log/types.ts';
import type { Route } from '../../lib/http/types.ts';
import type { Logger } from '../../lib/log.ts';
import type { Database } from '../../lib/postgres/database.ts';
import { createServiceAccountVerifier } from '../../lib/auth/service-accounts.ts';
import { TelemetryStatusRecorder } from '../../lib/analytics/telemetry-status.ts';
import type { CostContext } from '../cost-context.ts';
import { otlpRoutes } from './routes.ts';
import type { AgentResolver } from './span-events.ts';

export interface OtlpIngestDeps {
  config: Config;
  logger: Logger;
  db: Database;
  log: EventLog;
  directory: AgentResolver;
  costs: CostContext;
}

export interface OtlpIngest {
  routes: Route[];
  stop(): Promise<void>;
}

const MIB = 1024 * 1024;

export function startOtlpIngest(deps: OtlpIngestDeps): OtlpIngest {
  const logger = deps.logger.child({ component: 'otlp' });
  const verifier = createServiceAccountVerifier(deps.db);
  const status = new TelemetryStatusRecorder(deps.db, logger);
  status.start();
  const routes = otlpRoutes({
    verifyToken: (token) => verifier.verify(token),
    directory: deps.directory,
    pricer: () => deps.costs.current.pricer,
    log: deps.log,
    status,
    logger,
    maxBodyBytes: deps.config.maxOtlpBodyBytes,
    maxInFlightBytes: Math.max(256 * MIB, 8 * deps.config.maxOtlpBodyBytes),
  });
  return { routes, stop: () => status.stop() };
}
