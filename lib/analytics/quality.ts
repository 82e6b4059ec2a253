// Quality reads over check_results_per_day: per-agent daily accuracy with trend, the heatmap of
// (agent, check) cells, and failing checks for risk. Every query sums, so rows of parts that
// have not merged yet count once each, never twice.
//
// A check is identified by check_id. If a check's severity changed, the check keeps one row per
// day / one cell, labelled with its latest severity (the severity of its most recent day; on a
// tie, the one with more runs); the severity filter of the heatmap applies to that label.
import type { AnalyticsStore } from './store.ts';
import { addDays, dayWindow } from './time.ts';
import { TREND_LOOKBACK_DAYS, trendOf, type Trend } from './trend.ts';

export interface AccuracyRow {
  check_id: string;
  severity: string;
  /** YYYY-MM-DD (UTC day) */
  agg_date: string;
  total_runs: number;
  passed_runs: number;
  /** passed_runs / total_runs, 0..1 */
  pass_rate: number;
  trend: Trend;
}

export interface CheckCell {
  agent_id: string;
  check_id: string;
  severity: string;
  total_runs: number;
  passed_runs: number;
  pass_rate: number;
}

export interface FailingCheck extends CheckCell {
  failed_runs: number;
}

interface DayCount {
  check_id: string;
  severity: string;
  day: string;
  total_runs: number;
  passed_runs: number;
}

/**
 * One row per check and UTC day with runs, over the last `days` days (today included),
 * ordered by check_id then day. Days without runs have no row. The trend of the first days
 * looks back up to 7 days before the window.
 */
export async function getAccuracy(
  store: AnalyticsStore,
  options: { agentId: string; days: number; now: Date },
): Promise<AccuracyRow[]> {
  const window = dayWindow(options.now, options.days);
  const rows = await store.query<DayCount>(
    `SELECT check_id, severity, day, sum(total_runs) AS total_runs, sum(passed_runs) AS passed_runs
     FROM check_results_per_day
     WHERE agent_id = {agent:UUID} AND day BETWEEN {from:Date} AND {to:Date}
     GROUP BY check_id, severity, day
     ORDER BY check_id, day`,
    { agent: options.agentId, from: addDays(window.from, -TREND_LOOKBACK_DAYS), to: window.to },
  );
  const byCheck = new Map<string, DayCount[]>();
  for (const row of rows) {
    const list = byCheck.get(row.check_id) ?? [];
    list.push(row);
    byCheck.set(row.check_id, list);
  }

  const out: AccuracyRow[] = [];
  for (const [checkId, counts] of byCheck) {
    const severity = latestSeverity(counts);
    const days = new Map<string, { total: number; passed: number }>();
    for (const c of counts) {
      const d = days.get(c.day) ?? { total: 0, passed: 0 };
      d.total += c.total_runs;
      d.passed += c.passed_runs;
      days.set(c.day, d);
    }
    const series = [...days].map(([day, d]) => ({ day, rate: d.passed / d.total }));
    for (const [day, d] of days) {
      if (day < window.from) continue;
      const rate = d.passed / d.total;
      out.push({ check_id: checkId, severity, agg_date: day, total_runs: d.total, passed_runs: d.passed, pass_rate: rate, trend: trendOf(series, day, rate) });
    }
  }
  return out;
}

function latestSeverity(counts: readonly DayCount[]): string {
  let best = counts[0]!;
  for (const c of counts) {
    if (c.day > best.day || (c.day === best.day && c.total_runs > best.total_runs)) best = c;
  }
  return best.severity;
}

// Cells per (agent, check) over a window; `extra` adds static conditions (no values in SQL text).
function cellsSql(extraWhere: string, having: string): string {
  return `SELECT agent_id, check_id, argMax(sev, (last_day, runs)) AS severity,
                 sum(runs) AS total_runs, sum(passed) AS passed_runs
          FROM (
            SELECT agent_id, check_id, severity AS sev, max(day) AS last_day,
                   sum(total_runs) AS runs, sum(passed_runs) AS passed
            FROM check_results_per_day
            WHERE day BETWEEN {from:Date} AND {to:Date}${extraWhere}
            GROUP BY agent_id, check_id, sev
          )
          GROUP BY agent_id, check_id
          ${having}`;
}

type CellRow = Omit<CheckCell, 'pass_rate'>;
const withRate = (r: CellRow): CheckCell => ({ ...r, pass_rate: r.passed_runs / r.total_runs });

/**
 * One cell per (agent, check) with runs in the last `windowDays` days (today included), ordered by
 * agent_id then check_id. `severity` 'ALL' (default) keeps every check; otherwise the cell's
 * severity must equal it (case-insensitive: severities are stored upper-case).
 */
export async function getHeatmap(
  store: AnalyticsStore,
  options: { windowDays: number; now: Date; severity?: string },
): Promise<CheckCell[]> {
  const window = dayWindow(options.now, options.windowDays);
  const severity = (options.severity ?? 'ALL').toUpperCase();
  const rows = await store.query<CellRow>(
    `${cellsSql('', `HAVING {severity:String} = 'ALL' OR severity = {severity:String}`)}
     ORDER BY agent_id, check_id`,
    { from: window.from, to: window.to, severity },
  );
  return rows.map(withRate);
}

/**
 * Checks with at least one failed run in the last `days` days, per agent (all agents, or one),
 * most failures first within an agent. Input of the risk score and of the DEGRADING alert.
 */
export async function getFailingChecks(
  store: AnalyticsStore,
  options: { days: number; now: Date; agentId?: string },
): Promise<FailingCheck[]> {
  const window = dayWindow(options.now, options.days);
  const params: Record<string, string> = { from: window.from, to: window.to };
  if (options.agentId) params.agent = options.agentId;
  const rows = await store.query<CellRow>(
    `${cellsSql(options.agentId ? ' AND agent_id = {agent:UUID}' : '', 'HAVING passed_runs < total_runs')}
     ORDER BY agent_id, total_runs - passed_runs DESC, check_id`,
    params,
  );
  return rows.map((r) => ({ ...withRate(r), failed_runs: r.total_runs - r.passed_runs }));
}
