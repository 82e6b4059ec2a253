// The facts of one weekly health report (decisions §10): agents by status and risk, accuracy and
// the worst checks with their daily trend, spend against budgets, discrepancies, new discoveries
// and the alerts of the week. The week is the 7 UTC days ending with the report's day.
import { getCostSummary, getDepartmentSpend, type DailyCost } from '../../lib/analytics/cost-reads.ts';
import { getHeatmap } from '../../lib/analytics/quality.ts';
import type { AnalyticsStore } from '../../lib/analytics/store.ts';
import { addDays, dayWindow, daysOf, monthStart } from '../../lib/analytics/time.ts';
import { trendOf, type Trend } from '../../lib/analytics/trend.ts';
import type { InstanceSettings } from '../../lib/instance-settings.ts';
import type { Database } from '../../lib/postgres/database.ts';

export const WORST_CHECKS = 5;
export const TREND_DAYS = 14;
export const SPEND_DAYS = 28;
const LIST_LIMIT = 10;

export interface WorstCheck {
  agent_name: string;
  check_id: string;
  severity: string;
  total_runs: number;
  pass_rate: number;
  /** Daily pass rate over TREND_DAYS days, oldest first; null for days without runs. */
  daily: Array<number | null>;
  /** Trend of the latest day with runs (decisions §7). */
  trend: Trend;
}

export interface DepartmentBudgetLine {
  department: string;
  spent: number;
  budget: number | null;
  utilisation: number | null;
}

export interface ReportData {
  companyName: string;
  currency: string;
  week: string;
  from: string;
  to: string;
  agents: { total: number; byStatusRisk: Record<string, Record<string, number>>; noOwner: number; withDiscrepancies: number };
  accuracy: { runs: number; passed: number; previousRuns: number; previousPassed: number };
  worstChecks: WorstCheck[];
  spend: { weekDisplay: number; previousWeekDisplay: number; daily: DailyCost[]; month: string; departments: DepartmentBudgetLine[] };
  discrepancies: Array<{ name: string; kinds: string[] }>;
  discoveries: Array<{ name: string; source: string; status: string; contains_pii: boolean; created_at: string }>;
  alerts: Array<{ kind: string; count: number }>;
}

async function agentFacts(db: Database) {
  const [byStatus, totals, discrepancies] = await Promise.all([
    db.query<{ status: string; risk_level: string; n: number }>('SELECT status, risk_level, count(*)::int AS n FROM agents GROUP BY status, risk_level'),
    db.query<{ total: number; no_owner: number; with_discrepancies: number }>(
      `SELECT count(*)::int AS total, count(*) FILTER (WHERE owner_email IS NULL)::int AS no_owner,
              count(*) FILTER (WHERE jsonb_array_length(discrepancies) > 0)::int AS with_discrepancies FROM agents`,
    ),
    db.query<{ name: string; kinds: string[] }>(
      `SELECT name, ARRAY(SELECT DISTINCT d->>'kind' FROM jsonb_array_elements(discrepancies) d ORDER BY 1) AS kinds
         FROM agents WHERE jsonb_array_length(discrepancies) > 0 ORDER BY risk_score DESC, name LIMIT $1`,
      [LIST_LIMIT],
    ),
  ]);
  const byStatusRisk: Record<string, Record<string, number>> = {};
  for (const r of byStatus.rows) (byStatusRisk[r.status] ??= {})[r.risk_level] = r.n;
  const t = totals.rows[0]!;
  return { agents: { total: t.total, byStatusRisk, noOwner: t.no_owner, withDiscrepancies: t.with_discrepancies }, discrepancies: discrepancies.rows };
}

async function qualityFacts(db: Database, store: AnalyticsStore, now: Date, from: string, to: string) {
  const [totals, cells] = await Promise.all([
    store.query<{ current: number; passed: number; prev: number; prev_passed: number }>(
      `SELECT sumIf(total_runs, day >= {from:Date}) AS current, sumIf(passed_runs, day >= {from:Date}) AS passed,
              sumIf(total_runs, day < {from:Date}) AS prev, sumIf(passed_runs, day < {from:Date}) AS prev_passed
       FROM check_results_per_day WHERE day BETWEEN {prevFrom:Date} AND {to:Date}`,
      { from, to, prevFrom: addDays(from, -7) },
    ),
    getHeatmap(store, { windowDays: 7, now }),
  ]);
  const worst = cells.filter((c) => c.pass_rate < 1).sort((a, b) => a.pass_rate - b.pass_rate || b.total_runs - a.total_runs).slice(0, WORST_CHECKS);
  const days = daysOf({ from: addDays(to, -(TREND_DAYS - 1)), to });
  // agent_id compared as text: an Array(UUID) parameter does not bind through chDB's queryBind.
  const series = worst.length === 0 ? [] : await store.query<{ agent_id: string; check_id: string; date: string; total: number; passed: number }>(
    `SELECT toString(agent_id) AS agent_id, check_id, toString(day) AS date, sum(total_runs) AS total, sum(passed_runs) AS passed
     FROM check_results_per_day WHERE day BETWEEN {from:Date} AND {to:Date} AND toString(agent_id) IN {agents:Array(String)}
     GROUP BY agent_id, check_id, day`,
    { from: addDays(days[0]!, -7), to, agents: [...new Set(worst.map((w) => w.agent_id))] },
  );
  const names = await db.query<{ id: string; name: string }>('SELECT id::text AS id, name FROM agents WHERE id = ANY($1::uuid[])', [worst.map((w) => w.agent_id)]);
  const nameOf = new Map(names.rows.map((r) => [r.id, r.name]));
  const worstChecks: WorstCheck[] = worst.map((w) => {
    const mine = series.filter((s) => s.agent_id === w.agent_id && s.check_id === w.check_id);
    const rates = mine.map((s) => ({ day: s.date, rate: Number(s.passed) / Number(s.total) }));
    const rateOn = new Map(rates.map((r) => [r.day, r.rate]));
    const last = rates.filter((r) => r.day <= to).sort((a, b) => (a.day < b.day ? 1 : -1))[0];
    return {
      agent_name: nameOf.get(w.agent_id) ?? w.agent_id,
      check_id: w.check_id,
      severity: w.severity,
      total_runs: w.total_runs,
      pass_rate: w.pass_rate,
      daily: days.map((d) => rateOn.get(d) ?? null),
      trend: last ? trendOf(rates, last.day, last.rate) : 'STABLE',
    };
  });
  const t = totals[0] ?? { current: 0, passed: 0, prev: 0, prev_passed: 0 };
  return { accuracy: { runs: Number(t.current), passed: Number(t.passed), previousRuns: Number(t.prev), previousPassed: Number(t.prev_passed) }, worstChecks };
}

async function spendFacts(db: Database, store: AnalyticsStore, now: Date) {
  const month = monthStart(now);
  const [summary, departments, budgets] = await Promise.all([
    getCostSummary(store, { days: SPEND_DAYS, now }),
    getDepartmentSpend(store, { fromMonth: month, toMonth: month }),
    db.query<{ department: string; budget_amount: number }>('SELECT department, budget_amount::float8 AS budget_amount FROM department_budgets WHERE month = $1', [month]),
  ]);
  const budgetOf = new Map(budgets.rows.map((b) => [b.department, b.budget_amount]));
  const names = [...new Set([...departments.map((d) => d.department), ...budgetOf.keys()])].sort();
  const lines = names.map((department) => {
    const spent = departments.find((d) => d.department === department)?.cost_display ?? 0;
    const budget = budgetOf.get(department) ?? null;
    return { department: department || '(no department)', spent, budget, utilisation: budget ? spent / budget : null };
  });
  const week = summary.daily_trend.slice(-7).reduce((n, d) => n + d.cost_display, 0);
  const previous = summary.daily_trend.slice(-14, -7).reduce((n, d) => n + d.cost_display, 0);
  return { weekDisplay: week, previousWeekDisplay: previous, daily: summary.daily_trend, month: month.slice(0, 7), departments: lines };
}

export async function gatherReport(deps: { db: Database; analytics: AnalyticsStore }, settings: InstanceSettings, now: Date, week: string): Promise<ReportData> {
  const { from, to } = dayWindow(now, 7);
  const [agents, quality, spend, discoveries, alerts] = await Promise.all([
    agentFacts(deps.db),
    qualityFacts(deps.db, deps.analytics, now, from, to),
    spendFacts(deps.db, deps.analytics, now),
    deps.db.query<{ name: string; source: string; status: string; contains_pii: boolean; created_at: Date }>(
      `SELECT name, source, status, contains_pii, created_at FROM agents
        WHERE source <> 'api' AND created_at >= $1::date AND created_at <= $2 ORDER BY created_at DESC LIMIT $3`,
      [from, now, LIST_LIMIT],
    ),
    deps.db.query<{ kind: string; count: number }>(
      `SELECT kind, count(*)::int AS count FROM email_outbox
        WHERE kind <> 'weekly_report' AND state = 'sent' AND detected_at >= $1::date AND detected_at <= $2 GROUP BY kind ORDER BY kind`,
      [from, now],
    ),
  ]);
  return {
    companyName: settings.company_name,
    currency: settings.display_currency,
    week,
    from,
    to,
    agents: agents.agents,
    accuracy: quality.accuracy,
    worstChecks: quality.worstChecks,
    spend,
    discrepancies: agents.discrepancies,
    discoveries: discoveries.rows.map((d) => ({ ...d, created_at: new Date(d.created_at).toISOString() })),
    alerts: alerts.rows,
  };
}
