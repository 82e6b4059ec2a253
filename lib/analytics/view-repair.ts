// Repairs the daily views after a crash. ClickHouse writes a materialized view's part after its
// source's part, so a process killed between the two leaves rows in the raw table that the
// daily view never got; the redelivered batch is then (rightly) dropped as already stored, and
// the view would stay short for good. At start, before loading, a loader compares each recent
// day of the raw tables with its view and inserts what is missing. The views are summing tables
// read with sum(), so inserting the difference is enough: nothing is deleted.
import type { Logger } from '../log.ts';
import type { AnalyticsStore } from './store.ts';
import { dayWindow } from './time.ts';

interface DailyView {
  view: string;
  keys: string[];
  /** Summed columns, as raw-table aggregates. */
  sums: Record<string, string>;
  /** The column whose difference says a key is short (a count). */
  count: string;
  source: string;
  /** Expressions of the key columns over the raw table, in `keys` order. */
  sourceKeys: string[];
  sourceDay: string;
}

const VIEWS: DailyView[] = [
  {
    view: 'spend_per_day',
    keys: ['agent_id', 'day', 'department', 'model'],
    sums: {
      cost_usd: 'toDecimal128(sum(cost_usd), 9)',
      cost_display: 'toDecimal128(sum(cost_display), 9)',
      input_tokens: 'sum(input_tokens)',
      output_tokens: 'sum(output_tokens)',
      cached_input_tokens: 'sum(cached_input_tokens)',
      events: 'count()',
    },
    count: 'events',
    source: 'raw_cost_events',
    sourceKeys: ["ifNull(agent_id, toUUID('00000000-0000-0000-0000-000000000000'))", "toDate(occurred_at, 'UTC')", 'department', 'model'],
    sourceDay: "toDate(occurred_at, 'UTC')",
  },
  {
    view: 'check_results_per_day',
    keys: ['agent_id', 'day', 'check_id', 'severity'],
    sums: { total_runs: 'count()', passed_runs: 'countIf(passed)' },
    count: 'total_runs',
    source: 'raw_check_results',
    sourceKeys: ['agent_id', "toDate(received_at, 'UTC')", 'check_id', 'severity'],
    sourceDay: "toDate(received_at, 'UTC')",
  },
];

function repairSql(v: DailyView): string {
  const sums = Object.keys(v.sums);
  const raw = `SELECT ${v.sourceKeys.map((k, i) => `${k} AS ${v.keys[i]}`).join(', ')}, ${sums.map((s) => `${v.sums[s]} AS ${s}`).join(', ')}
    FROM ${v.source} WHERE ${v.sourceDay} BETWEEN {from:Date} AND {to:Date} GROUP BY ${v.keys.join(', ')}`;
  const view = `SELECT ${v.keys.join(', ')}, ${sums.map((s) => `sum(${s}) AS ${s}`).join(', ')}
    FROM ${v.view} WHERE day BETWEEN {from:Date} AND {to:Date} GROUP BY ${v.keys.join(', ')}`;
  return `INSERT INTO ${v.view} (${[...v.keys, ...sums].join(', ')})
    SELECT ${v.keys.map((k) => `r.${k}`).join(', ')}, ${sums.map((s) => `r.${s} - v.${s}`).join(', ')}
    FROM (${raw}) AS r LEFT JOIN (${view}) AS v USING (${v.keys.join(', ')})
    WHERE r.${v.count} > v.${v.count}`;
}

/** Inserts into each daily view what its raw table holds beyond it, over the last `days` days. */
export async function repairDailyViews(store: AnalyticsStore, logger: Logger, options: { days?: number; now?: Date } = {}): Promise<void> {
  const window = dayWindow(options.now ?? new Date(), options.days ?? 3);
  for (const v of VIEWS) {
    await store.command(repairSql(v), { from: window.from, to: window.to });
  }
  logger.debug('daily views checked against their raw tables', { from: window.from, to: window.to });
}
