// The ingest tier of a process: the agent directory and cost context it keeps in memory, and
// the public write routes. The event log it writes to is built by the caller (embedded group
// commit or Kafka), because the tier does not care which.
import type { Config } from '../lib/config.ts';
import type { EventLog } from '../lib/event-log/types.ts';
import type { Route } from '../lib/http/types.ts';
import type { Logger } from '../lib/log.ts';
import type { Database } from '../lib/postgres/database.ts';
import { AgentDirectory, type DirectoryAgent } from './agent-directory.ts';
import { CostContext } from './cost-context.ts';
import { writeEndpointRoutes } from './write-endpoints.ts';
import { startOtlpIngest } from './otlp/index.ts';

export interface IngestTierDeps {
  config: Config;
  logger: Logger;
  db: Database;
  log: EventLog;
  registerAgent(db: Database, externalId: string): Promise<DirectoryAgent>;
}

export interface IngestTier {
  routes: Route[];
  directory: AgentDirectory;
  stop(): Promise<void>;
}

export async function startIngestTier(deps: IngestTierDeps): Promise<IngestTier> {
  const logger = deps.logger.child({ tier: 'ingest' });
  const directory = new AgentDirectory(deps.db, logger);
  const costs = new CostContext(deps.db, logger);
  await directory.start();
  await costs.start();
  const routes = writeEndpointRoutes({
    directory,
    costs,
    log: deps.log,
    batchMaxBodyBytes: Math.max(deps.config.maxBodyBytes, 16 * 1024 * 1024),
    async registerAgent(externalId) {
      const agent = await deps.registerAgent(deps.db, externalId);
      directory.remember(agent);
      return agent;
    },
  });
  const otlp = startOtlpIngest({ config: deps.config, logger, db: deps.db, log: deps.log, directory, costs });
  routes.push(...otlp.routes);
  return {
    routes,
    directory,
    async stop() {
      await otlp.stop();
      await directory.stop();
      await costs.stop();
    },
  };
}
