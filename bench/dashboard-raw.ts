// The dashboard questions WITHOUT the materialized views: the same aggregates computed from the
// raw tables at query time. `withoutViews(store)` hands the shipped read functions a store whose
// queries read a raw-table subquery wherever they named a view, so the post-processing (trend,
// zero-fill, severity labels) is the shipped code and the answers must be identical; the
// benchmark asserts that on a sample. Each subquery filters the raw table on its own sort key
// (agent, time) with the window the shipped query asked for, as a hand-written query would.
import type { AnalyticsStore, QueryParams } from '../lib/analytics/store.ts';
import { UNATTRIBUTED_AGENT_ID } from '../lib/analytics/costs.ts';

/** Time filter of the raw table for the parameters the shipped query was given. */
function timeFilter(column: string, params: QueryParams): string {
  if ('from' in params && 'to' in params) {
    return `${column} >= toDateTime64({from:Date}, 3, 'UTC') AND ${column} < toDateTime64({to:Date} + 1, 3, 'UTC')`;
  }
  if ('fromMonth' in params && 'toMonth' in params) {
    return `${column} >= toDateTime64(toStartOfMonth({fromMonth:Date}), 3, 'UTC') AND ${column} < toDateTime64(addMonths(toStartOfMonth({toMonth:Date}), 1), 3, 'UTC')`;
  }
  throw new Error(`no time window in the parameters: ${Object.keys(params).join(', ')}`);
}

/** check_results_per_day, computed: the MV's SELECT over the window (and agent) asked for. */
export function rawChecksPerDay(params: QueryParams): string {
  const agent = 'agent' in params ? ' AND agent_id = {agent:UUID}' : '';
  return `SELECT agent_id, toDate(received_at, 'UTC') AS day, check_id, severity,
         count() AS total_runs, countIf(passed) AS passed_runs
  FROM raw_check_results
  WHERE ${timeFilter('received_at', params)}${agent}
  GROUP BY agent_id, day, check_id, severity`;
}

/** spend_per_day, computed: the MV's SELECT over the window asked for. */
export function rawSpendPerDay(params: QueryParams): string {
  return `SELECT ifNull(r.agent_id, toUUID('${UNATTRIBUTED_AGENT_ID}')) AS agent_id, toDate(r.occurred_at, 'UTC') AS day,
         r.department AS department, r.model AS model,
         sum(r.cost_usd) AS cost_usd, sum(r.cost_display) AS cost_display, sum(r.input_tokens) AS input_tokens,
         sum(r.output_tokens) AS output_tokens, sum(r.cached_input_tokens) AS cached_input_tokens, count() AS events
  FROM raw_cost_events AS r
  WHERE ${timeFilter('r.occurred_at', params)}
  GROUP BY agent_id, day, department, model`;
}

const VIEWS: ReadonlyArray<[RegExp, (p: QueryParams) => string, string]> = [
  [/\bFROM check_results_per_day\b/g, rawChecksPerDay, 'check_results_per_day'],
  [/\bFROM spend_per_day\b/g, rawSpendPerDay, 'spend_per_day'],
];

export function rewriteWithoutViews(sql: string, params: QueryParams = {}): string {
  let out = sql;
  for (const [pattern, raw, name] of VIEWS) out = out.replace(pattern, () => `FROM (${raw(params)}) AS ${name}`);
  if (out === sql) throw new Error(`query reads no view this benchmark knows: ${sql.slice(0, 120)}`);
  return out;
}

/** A store that answers every view read from the raw tables instead. */
export function withoutViews(store: AnalyticsStore): AnalyticsStore {
  return { ...store, query: <T>(sql: string, params?: QueryParams) => store.query<T>(rewriteWithoutViews(sql, params), params) };
}

export interface RecordedQuery {
  sql: string;
  params: QueryParams;
}

/** A store that also keeps every query it ran (for replaying them in the profile step). */
export function recording(store: AnalyticsStore, into: RecordedQuery[]): AnalyticsStore {
  return {
    ...store,
    query: <T>(sql: string, params?: QueryParams) => {
      into.push({ sql, params: params ?? {} });
      return store.query<T>(sql, params);
    },
  };
}
