// Feeds what the analytics store observed back into the registry (issue "signals and costs",
// registry tie-ins): the models each agent used (cost events, signals with tokens, GenAI spans) and its
// failing checks become inputs of its risk score and discrepancies. It runs as a periodic job,
// not on the ingest hot path, and writes only agents whose snapshot changed.
import { getObservedModels } from '../lib/analytics/cost-reads.ts';
import { getFailingChecks } from '../lib/analytics/quality.ts';
import { getObservedSpanModels } from '../lib/analytics/telemetry-reads.ts';
import type { AnalyticsStore } from '../lib/analytics/store.ts';
import type { Logger } from '../lib/log.ts';
import type { Database } from '../lib/postgres/database.ts';
import type { FailingCheck } from '../lib/registry/observed.ts';
import { recordObservations } from '../lib/registry/store.ts';
import { intervalJob } from './interval-job.ts';
import type { BackgroundComponent } from './workers-tier.ts';

export interface ObservationSyncOptions {
  intervalMs?: number;
  /** Window of model use that counts as "observed" (days). */
  modelDays?: number;
  /** Window of quality checks judged for failing (days). */
  checkDays?: number;
  /** A check is failing when its pass rate over checkDays is below this. */
  failingBelow?: number;
}

export const OBSERVATION_DEFAULTS = { intervalMs: 30_000, modelDays: 30, checkDays: 7, failingBelow: 0.9 } as const;

interface Snapshot {
  models: Record<string, number>;
  failing: FailingCheck[];
}

export interface ObservationSync extends BackgroundComponent {
  /** One pass; returns how many agents were updated. */
  runOnce(now?: Date): Promise<number>;
}

export function createObservationSync(db: Database, store: AnalyticsStore, logger: Logger, options: ObservationSyncOptions = {}): ObservationSync {
  const settings = { ...OBSERVATION_DEFAULTS, ...options };

  const runOnce = async (now = new Date()): Promise<number> => {
    const [models, spanModels, failing, current] = await Promise.all([
      getObservedModels(store, { days: settings.modelDays, now }),
      getObservedSpanModels(store, { days: settings.modelDays, now }),
      getFailingChecks(store, { days: settings.checkDays, now }),
      db.query<{ id: string; models: Record<string, number> | null; failing: FailingCheck[] | null }>(
        `SELECT id::text AS id, observed->'models' AS models, observed->'failing_checks' AS failing FROM agents`,
      ),
    ]);
    const next = new Map<string, Snapshot>();
    const snapshot = (agentId: string) => {
      let entry = next.get(agentId);
      if (!entry) next.set(agentId, (entry = { models: {}, failing: [] }));
      return entry;
    };
    // Model use from the cost ledger and from GenAI spans, summed: both are observed use.
    for (const row of models) snapshot(row.agent_id).models[row.model] = Number(row.events);
    for (const row of spanModels) {
      const entry = snapshot(row.agent_id).models;
      entry[row.model] = (entry[row.model] ?? 0) + Number(row.spans);
    }
    for (const cell of failing) {
      if (cell.pass_rate < settings.failingBelow) snapshot(cell.agent_id).failing.push({ check_id: cell.check_id, severity: cell.severity });
    }
    let updated = 0;
    for (const agent of current.rows) {
      const wanted = next.get(agent.id) ?? { models: {}, failing: [] };
      if (sameModels(agent.models ?? {}, wanted.models) && sameFailing(agent.failing ?? [], wanted.failing)) continue;
      await recordObservations(db, agent.id, { models: wanted.models, replaceModels: true, failingChecks: wanted.failing });
      updated++;
    }
    return updated;
  };

  return { ...intervalJob('observation_sync', settings.intervalMs, () => runOnce(), logger), runOnce };
}

function sameModels(a: Record<string, number>, b: Record<string, number>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}

function sameFailing(a: FailingCheck[], b: FailingCheck[]): boolean {
  const key = (list: FailingCheck[]) => list.map((c) => `${c.check_id}|${c.severity}`).sort().join('\n');
  return key(a) === key(b);
}
