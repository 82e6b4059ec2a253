// The workers tier of a process: background components with start/stop — Kafka loaders,
// scheduled jobs (observations, alerts, reports), discovery scans. Each is added to the list
// below; they start in order and stop in reverse.
import type { AnalyticsStore } from '../lib/analytics/store.ts';
import type { Config } from '../lib/config.ts';
import type { HealthCheck } from '../lib/health.ts';
import type { Logger } from '../lib/log.ts';
import type { Database } from '../lib/postgres/database.ts';
import { createObservationSync } from './observation-sync.ts';
import { kafkaLoaders } from './kafka-loader.ts';
import { createTelemetryObservations } from './telemetry-observations.ts';
import { createAlertsComponent } from './alerts/component.ts';
import { createWeeklyReportComponent } from './reports/component.ts';
import { createScanRunner } from './discovery/scans/runner.ts';

export interface WorkersTierDeps {
  config: Config;
  logger: Logger;
  db: Database;
  analytics: AnalyticsStore;
}

export interface BackgroundComponent {
  name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  health?: HealthCheck['check'];
}

export interface WorkersTier {
  components: BackgroundComponent[];
  stop(): Promise<void>;
}

export async function startWorkersTier(deps: WorkersTierDeps): Promise<WorkersTier> {
  const logger = deps.logger.child({ tier: 'workers' });
  const components: BackgroundComponent[] = buildComponents({ ...deps, logger });
  const started: BackgroundComponent[] = [];
  const stop = async () => {
    for (const component of started.reverse()) {
      await component.stop().catch((error) => logger.error('worker stop failed', { worker: component.name, error }));
    }
  };
  try {
    for (const component of components) {
      await component.start();
      started.push(component);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { components, stop };
}

function buildComponents(deps: WorkersTierDeps): BackgroundComponent[] {
  return [
    ...kafkaLoaders(deps),
    createObservationSync(deps.db, deps.analytics, deps.logger),
    createTelemetryObservations(deps.db, deps.analytics, deps.logger),
    createAlertsComponent(deps),
    createWeeklyReportComponent(deps),
    createScanRunner(deps),
  ];
}
