// Feeds what spans say about registry agents back into the registry: spans seen, when the last
// arrived, the service name, and last_seen_at. A periodic job, never the ingest hot path.
//
// Incremental: each run reads the spans inserted since the watermark kept in telemetry_status
// (observations_through) up to `lagMs` ago (an insert still being written gets the next run),
// and adds them to each agent's observed telemetry. The watermark row is locked for the run
// (SKIP LOCKED: a second workers process skips instead of counting twice). A crash between an
// agent's update and the watermark's may count that run's spans again: bounded, and only the
// informational span counter is affected. Models named in spans reach risk and discrepancies
// through getObservedSpanModels in the observation sync's snapshot, not here.
import { getSpanActivity } from '../lib/analytics/telemetry-reads.ts';
import type { AnalyticsStore } from '../lib/analytics/store.ts';
import type { Logger } from '../lib/log.ts';
import type { Database } from '../lib/postgres/database.ts';
import { recordObservations } from '../lib/registry/store.ts';
import { intervalJob } from './interval-job.ts';
import type { BackgroundComponent } from './workers-tier.ts';

export interface TelemetryObservationsOptions {
  intervalMs?: number;
  lagMs?: number;
}

export const TELEMETRY_OBSERVATION_DEFAULTS = { intervalMs: 60_000, lagMs: 15_000 } as const;

export interface TelemetryObservationsRun {
  /** true: another process holds the watermark; nothing was done. */
  skipped: boolean;
  agents: number;
  spans: number;
}

export interface TelemetryObservations extends BackgroundComponent {
  runOnce(now?: Date, lagMs?: number): Promise<TelemetryObservationsRun>;
}

export function createTelemetryObservations(
  db: Database,
  store: AnalyticsStore,
  logger: Logger,
  options: TelemetryObservationsOptions = {},
): TelemetryObservations {
  const settings = { ...TELEMETRY_OBSERVATION_DEFAULTS, ...options };

  const runOnce = (now = new Date(), lagMs = settings.lagMs): Promise<TelemetryObservationsRun> =>
    db.transaction(async (tx) => {
      const { rows } = await tx.query<{ through: Date | null }>(
        'SELECT observations_through AS through FROM telemetry_status WHERE id = 1 FOR UPDATE SKIP LOCKED',
      );
      if (rows.length === 0) return { skipped: true, agents: 0, spans: 0 };
      const from = rows[0]!.through ?? new Date(0);
      const to = new Date(now.getTime() - lagMs);
      if (to <= from) return { skipped: false, agents: 0, spans: 0 };
      const activity = await getSpanActivity(store, { from, to });
      let spans = 0;
      for (const a of activity) {
        await recordObservations(db, a.agent_id, {
          telemetry: { spans: a.spans, lastSpanAt: a.last_received_at, serviceName: a.service_name || undefined },
          seenAt: new Date(a.last_received_at),
        });
        spans += a.spans;
      }
      await tx.query('UPDATE telemetry_status SET observations_through = $1 WHERE id = 1', [to]);
      return { skipped: false, agents: activity.length, spans };
    });

  return { ...intervalJob('telemetry_observations', settings.intervalMs, () => runOnce(), logger), runOnce };
}
