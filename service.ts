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
import { createAnalyticsStore, type AnalyticsStore } from './lib/analytics/store.ts';
import { repairDailyViews } from './lib/analytics/view-repair.ts';
import { applySpanRetention } from './lib/analytics/spans-retention.ts';
import { GroupCommitLog } from './lib/event-log/group-commit.ts';
import { KafkaEventLog } from './lib/event-log/kafka-log.ts';
import { createKafka } from './lib/event-log/kafka-client.ts';
import { hasMetrics, metricsRoute, type MetricsSource } from './lib/metrics.ts';
import { analyticsLoader } from './lib/event-log/analytics-loader.ts';
import type { EventLog } from './lib/event-log/types.ts';
import { registerSignalAgent } from './lib/registry/auto-register.ts';
import { createAccessTokens } from './api/auth/access-tokens.ts';
import { createGuard } from './api/auth/guard.ts';
import { apiRoutes } from './api/routes.ts';
import { openApiRoute } from './api/openapi/document.ts';
import { startIngestTier } from './ingest/ingest-tier.ts';
import { startWorkersTier } from './workers/workers-tier.ts';
import { beaconRoute } from './ingest/beacon.ts';

const SERVICE_VERSION = '0.1.0';

export interface RunningService {
  /** The HTTP port, or undefined when this process serves no HTTP (workers only). */
  port?: number;
  databaseUrl: string;
  analytics?: AnalyticsStore;
  /** Method and pattern of every route this process serves. */
  routes: Array<{ method: string; pattern: string }>;
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

    // chDB belongs to one process: open the store only where a role reads or loads it.
    const needsAnalytics = config.roles.has('api') || config.roles.has('workers') || (config.roles.has('ingest') && !config.kafkaBrokers);
    let analytics: AnalyticsStore | undefined;
    if (needsAnalytics) {
      const store = createAnalyticsStore({ clickhouseUrl: config.clickhouseUrl, dataDir: config.dataDir, database: config.clickhouseUrl ? undefined : config.clickhouseDatabase, logger });
      await store.start();
      stops.push(() => store.stop());
      await applySpanRetention(store, config.spanRetentionDays, logger);
      // A process that loads the store first puts back view rows a crash may have cut off.
      if (config.roles.has('workers') || (config.roles.has('ingest') && !config.kafkaBrokers)) await repairDailyViews(store, logger);
      checks.push({ name: 'analytics', check: async () => ({ up: await store.ping(), details: { backend: store.backend } }) });
      analytics = store;
    }

    const router = new Router();
    router.add(healthRoute(checks, [...config.roles]));
    const metricSources: MetricsSource[] = [];
    router.add(metricsRoute(checks, metricSources));
    router.add(openApiRoute(SERVICE_VERSION));

    if (config.roles.has('ingest')) {
      const log = await startEventLog(config, logger, analytics);
      stops.push(() => log.stop());
      checks.push({ name: 'event_log', check: () => log.health() });
      if (hasMetrics(log)) metricSources.push(log);
      const ingest = await startIngestTier({ config, logger, db, log, registerAgent: registerSignalAgent });
      stops.push(() => ingest.stop());
      router.addAll(ingest.routes);
      router.add(beaconRoute({ db, onAgentChanged: (agent) => ingest.directory.remember(agent) }));
    }

    if (config.roles.has('api')) {
      const tokens = createAccessTokens(await readJwtSecret(db));
      router.addAll(apiRoutes({ config, logger, db, tokens, guard: createGuard(tokens), analytics: analytics!, now: () => new Date() }));
    }

    if (config.roles.has('workers')) {
      const workers = await startWorkersTier({ config, logger, db, analytics: analytics! });
      stops.push(() => workers.stop());
      for (const component of workers.components) {
        if (component.health) checks.push({ name: component.name, check: component.health });
        if (hasMetrics(component)) metricSources.push(component);
      }
    }

    // Every process serves HTTP: a workers-only one answers /health and /metrics (consumer lag,
    // liveness probes) and nothing else.
    const http = new HttpServer({ host: config.host, port: config.port, maxBodyBytes: config.maxBodyBytes, accessLog: config.accessLog, logger, router });
    const port: number | undefined = await http.start();
    // Stopped first (stops run in reverse): no new requests while the log drains.
    stops.push(() => http.stop(config.shutdownTimeoutMs));
    const routes = router.routes().map(({ method, pattern }) => ({ method, pattern }));
    return { port, databaseUrl, analytics, routes, stop: stopAll };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

async function startEventLog(config: Config, logger: Logger, analytics: AnalyticsStore | undefined): Promise<EventLog> {
  if (config.kafkaBrokers) {
    const settings = { brokers: config.kafkaBrokers, topicPrefix: config.kafkaTopicPrefix, partitions: config.kafkaPartitions, replicationFactor: config.kafkaReplicationFactor };
    const log = new KafkaEventLog({
      kafka: createKafka(settings, `aor-ingest-${process.pid}`, logger),
      settings,
      logger: logger.child({ component: 'event_log' }),
      batchMaxEvents: config.ingestBatchMaxEvents,
      batchIntervalMs: config.ingestBatchIntervalMs,
      queueMaxEvents: config.ingestQueueMaxEvents,
    });
    await log.start();
    return log;
  }
  if (!analytics) throw new Error('the embedded event log needs the analytics store');
  const log = new GroupCommitLog({
    loader: analyticsLoader(analytics),
    batchMaxEvents: config.ingestBatchMaxEvents,
    batchIntervalMs: config.ingestBatchIntervalMs,
    queueMaxEvents: config.ingestQueueMaxEvents,
    logger,
  });
  await log.start();
  return log;
}
