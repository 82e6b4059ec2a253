// The composition root: builds every component of the roles this process runs, once, and
// stops them in reverse order. main.ts is the command line around it; tests call it directly.
import type { Config } from './lib/config.ts';
import type { Logger } from './lib/log.ts';
import { Router } from './lib/http/router.ts';
import { HttpServer } from './lib/http/server.ts';
import { healthRoute, type HealthCheck } from './lib/health.ts';
import { createDatabase } from './lib/postgres/database.ts';
import { startEmbeddedPostgres } from './lib/postgres/embedded.ts';
import { migrate } from './lib/postgres/migrate.ts';
import { readJwtSecret } from './lib/instance-settings.ts';
import { createAccessTokens } from './api/auth/access-tokens.ts';
import { createGuard } from './api/auth/guard.ts';
import { apiRoutes } from './api/routes.ts';

export interface RunningService {
  /** The HTTP port, or undefined when this process serves no HTTP (workers only). */
  port?: number;
  databaseUrl: string;
  stop(): Promise<void>;
}

export async function startService(config: Config, logger: Logger): Promise<RunningService> {
  const stops: Array<() => Promise<void>> = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch((error) => logger.error('stop failed', { error }));
  };
  try {
    let databaseUrl = config.databaseUrl;
    if (!databaseUrl) {
      const embedded = await startEmbeddedPostgres(config.dataDir, logger);
      stops.push(embedded.stop);
      databaseUrl = embedded.url;
    }
    const db = createDatabase(databaseUrl);
    stops.push(() => db.close());
    const applied = await migrate(db);
    if (applied.length > 0) logger.info('PostgreSQL migrations applied', { applied });

    const checks: HealthCheck[] = [{ name: 'postgres', check: async () => ({ up: await db.ping() }) }];
    const router = new Router();
    router.add(healthRoute(checks, [...config.roles]));

    if (config.roles.has('api')) {
      const tokens = createAccessTokens(await readJwtSecret(db));
      router.addAll(apiRoutes({ config, logger, db, tokens, guard: createGuard(tokens) }));
    }

    let port: number | undefined;
    if (config.roles.has('api') || config.roles.has('ingest')) {
      const http = new HttpServer({ host: config.host, port: config.port, maxBodyBytes: config.maxBodyBytes, accessLog: config.accessLog, logger, router });
      port = await http.start();
      stops.push(() => http.stop(config.shutdownTimeoutMs));
    }
    return { port, databaseUrl, stop: stopAll };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
