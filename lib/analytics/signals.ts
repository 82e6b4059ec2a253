// Quality signals: loading (raw_signals + raw_check_results, which feeds check_results_per_day)
// and the per-agent signals list.
import type { CheckRecord, SignalRecord } from '../../schemas/analytics-rows.ts';
import { batchToken, uniqueById } from './dedup.ts';
import type { AnalyticsStore } from './store.ts';
import { fromDateTime64, toDateTime64 } from './time.ts';

export const SIGNALS_LIMIT_DEFAULT = 50;
export const SIGNALS_LIMIT_MAX = 500;

const optional = (value: string | null | undefined): string | null => value ?? null;

function checkRows(signal: SignalRecord, receivedAt: string) {
  return signal.checks.map((c: CheckRecord) => ({
    signal_id: signal.signal_id,
    agent_id: signal.agent_id,
    job_id: signal.job_id,
    check_id: c.check_id,
    severity: c.severity.toUpperCase(),
    passed: c.passed,
    expected: optional(c.expected),
    actual: optional(c.actual),
    delta: optional(c.delta),
    received_at: receivedAt,
  }));
}

function signalRow(signal: SignalRecord, receivedAt: string) {
  return {
    signal_id: signal.signal_id,
    agent_id: signal.agent_id,
    agent_external_id: signal.agent_external_id,
    job_id: signal.job_id,
    overall_passed: signal.overall_passed,
    check_count: signal.checks.length,
    passed_count: signal.checks.filter((c) => c.passed).length,
    latency_ms: signal.latency_ms,
    model: signal.model,
    token_input: signal.token_input,
    token_output: signal.token_output,
    received_at: receivedAt,
  };
}

/**
 * Stores signals not stored before; returns how many were new. `dedupToken` names the delivery
 * (a hash of the event ids, or a Kafka partition + offset range) and must be the same when the
 * same batch is delivered again.
 */
export async function insertSignals(store: AnalyticsStore, signals: readonly SignalRecord[], dedupToken: string): Promise<number> {
  const unique = uniqueById(signals, (s) => s.signal_id);
  const stored = await storedSignalIds(store, unique);
  const fresh = unique.filter((s) => !stored.has(s.signal_id.toLowerCase()));
  if (fresh.length === 0) return 0;
  const token = batchToken(dedupToken, fresh.map((s) => s.signal_id));
  const times = fresh.map((s) => toDateTime64(s.received_at));
  // Checks first, the signal row last: the signal row is what the event-level check looks for,
  // so a crash between the two inserts leaves the signal "not stored" and the retry writes the
  // checks again under the same token, which ClickHouse drops as a duplicate block. A retry in
  // another batch (embedded mode: a client resending the event) has another token, so checks
  // already stored for these signals are looked up and not written twice.
  const checked = await signalsWithStoredChecks(store, fresh.filter((s) => s.checks.length > 0));
  const checks = fresh.flatMap((s, i) => (checked.has(s.signal_id.toLowerCase()) ? [] : checkRows(s, times[i]!)));
  if (checks.length > 0) await store.insert('raw_check_results', checks, { dedupToken: token });
  await store.insert('raw_signals', fresh.map((s, i) => signalRow(s, times[i]!)), { dedupToken: token });
  return fresh.length;
}

/**
 * Which of these signals are stored already. Bounded by raw_signals' sort key (agent_id,
 * received_at), so the lookup reads the granules of these agents and times, not the whole
 * table: its cost no longer grows with the history.
 */
async function storedSignalIds(store: AnalyticsStore, signals: readonly SignalRecord[]): Promise<Set<string>> {
  if (signals.length === 0) return new Set();
  const times = signals.map((s) => toDateTime64(s.received_at)).sort();
  const rows = await store.query<{ id: string }>(
    `SELECT DISTINCT toString(signal_id) AS id FROM raw_signals
      WHERE agent_id IN {agents:Array(UUID)}
        AND received_at BETWEEN {from:DateTime64(3, 'UTC')} AND {to:DateTime64(3, 'UTC')}
        AND signal_id IN {ids:Array(UUID)}`,
    { agents: [...new Set(signals.map((s) => s.agent_id))], from: times[0]!, to: times[times.length - 1]!, ids: signals.map((s) => s.signal_id) },
  );
  return new Set(rows.map((r) => r.id.toLowerCase()));
}

/**
 * Which of these signals already have check rows. The lookup is bounded by the sort key
 * (agent_id, received_at) of raw_check_results, so it reads a few granules, not the table.
 */
async function signalsWithStoredChecks(store: AnalyticsStore, signals: readonly SignalRecord[]): Promise<Set<string>> {
  if (signals.length === 0) return new Set();
  const sorted = signals.map((s) => toDateTime64(s.received_at)).sort();
  const rows = await store.query<{ id: string }>(
    `SELECT DISTINCT toString(signal_id) AS id FROM raw_check_results
      WHERE agent_id IN {agents:Array(UUID)}
        AND received_at BETWEEN {from:DateTime64(3, 'UTC')} AND {to:DateTime64(3, 'UTC')}
        AND signal_id IN {ids:Array(UUID)}`,
    { agents: [...new Set(signals.map((s) => s.agent_id))], from: sorted[0]!, to: sorted[sorted.length - 1]!, ids: signals.map((s) => s.signal_id) },
  );
  return new Set(rows.map((r) => r.id.toLowerCase()));
}

export interface SignalCheck {
  check_id: string;
  severity: string;
  passed: boolean;
  expected: string | null;
  actual: string | null;
  delta: string | null;
}

export interface SignalRow {
  signal_id: string;
  agent_id: string;
  agent_external_id: string;
  job_id: string;
  overall_passed: boolean;
  check_count: number;
  passed_count: number;
  latency_ms: number;
  model: string | null;
  token_input: number | null;
  token_output: number | null;
  /** ISO 8601 UTC. */
  received_at: string;
  checks: SignalCheck[];
}

export interface ListSignalsOptions {
  agentId: string;
  /** Clamped to 1..500; default 50 (decisions §7). */
  limit?: number;
  /** Only signals received strictly before this instant (paging; default: no bound). */
  before?: Date;
}

/** The agent's signals, newest first, each with its checks (ordered by check_id). */
export async function listSignals(store: AnalyticsStore, options: ListSignalsOptions): Promise<SignalRow[]> {
  const limit = Math.min(Math.max(Math.trunc(options.limit ?? SIGNALS_LIMIT_DEFAULT), 1), SIGNALS_LIMIT_MAX);
  const params: Record<string, string | number> = { agent: options.agentId, limit };
  if (options.before) params.before = toDateTime64(options.before.toISOString());
  const rows = await store.query<Omit<SignalRow, 'checks'>>(
    `SELECT signal_id, agent_id, agent_external_id, job_id, overall_passed, check_count, passed_count,
            latency_ms, model, token_input, token_output, received_at
     FROM raw_signals
     WHERE agent_id = {agent:UUID}${options.before ? ` AND received_at < {before:DateTime64(3, 'UTC')}` : ''}
     ORDER BY received_at DESC, signal_id DESC
     LIMIT 1 BY signal_id
     LIMIT {limit:UInt32}`,
    params,
  );
  if (rows.length === 0) return [];
  const checks = await store.query<SignalCheck & { signal_id: string }>(
    `SELECT signal_id, check_id, severity, passed, expected, actual, delta
     FROM raw_check_results
     WHERE agent_id = {agent:UUID}
       AND received_at BETWEEN {first:DateTime64(3, 'UTC')} AND {last:DateTime64(3, 'UTC')}
       AND signal_id IN {ids:Array(UUID)}
     ORDER BY signal_id, check_id`,
    { agent: options.agentId, first: rows.at(-1)!.received_at, last: rows[0]!.received_at, ids: rows.map((r) => r.signal_id) },
  );
  const bySignal = new Map<string, SignalCheck[]>();
  for (const { signal_id, ...check } of checks) {
    const list = bySignal.get(signal_id) ?? [];
    list.push(check);
    bySignal.set(signal_id, list);
  }
  return rows.map((r) => ({ ...r, received_at: fromDateTime64(r.received_at), checks: bySignal.get(r.signal_id) ?? [] }));
}
