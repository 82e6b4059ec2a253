// Cost reads. Daily figures come from spend_per_day (summed, so unmerged parts count once);
// the unpriced-model list reads the ledger because spend_per_day does not keep `priced`.
//
// Decisions: windows are whole UTC days ending today (see time.ts). Daily series are zero-filled:
// one element per day of the window, oldest first, so a chart's axis has no holes. cost_display
// sums the display amounts stored with each event (converted at the rate of that moment), the
// same amounts the ingest answers returned; if the operator switches currency mid-window the
// sum mixes currencies, so the API should label it with the current currency only.
import { UNATTRIBUTED_AGENT_ID } from './costs.ts';
import type { AnalyticsStore } from './store.ts';
import { dayWindow, daysOf, type DayWindow } from './time.ts';

export interface DailyCost {
  /** YYYY-MM-DD (UTC) */
  date: string;
  cost_usd: number;
  cost_display: number;
}

export interface CostSummary {
  period_days: number;
  total_cost_usd: number;
  total_cost_display: number;
  /** Spend of events with no registry agent (also part of the totals). */
  unattributed_cost_usd: number;
  daily_trend: DailyCost[];
}

export interface UsageFigures {
  cost_usd: number;
  cost_display: number;
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens: number;
  events: number;
}

export interface AgentCostDay extends UsageFigures {
  date: string;
}

export interface AgentModelCost extends UsageFigures {
  model: string;
}

export interface AgentCostDetail extends UsageFigures {
  agent_id: string;
  period_days: number;
  /** Zero-filled, oldest first. */
  daily: AgentCostDay[];
  /** Models with spend in the window, highest cost first. */
  by_model: AgentModelCost[];
}

const FIGURES = `toFloat64(sum(cost_usd)) AS cost_usd, toFloat64(sum(cost_display)) AS cost_display,
  sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens,
  sum(cached_input_tokens) AS cached_input_tokens, sum(events) AS events`;

const ZERO: UsageFigures = { cost_usd: 0, cost_display: 0, input_tokens: 0, output_tokens: 0, cached_input_tokens: 0, events: 0 };

function zeroFill<T extends { date: string }>(window: DayWindow, rows: readonly T[], empty: (date: string) => T): T[] {
  const byDate = new Map(rows.map((r) => [r.date, r]));
  return daysOf(window).map((date) => byDate.get(date) ?? empty(date));
}

export async function getCostSummary(store: AnalyticsStore, options: { days: number; now: Date }): Promise<CostSummary> {
  const window = dayWindow(options.now, options.days);
  const params = { from: window.from, to: window.to, nil: UNATTRIBUTED_AGENT_ID };
  const [daily, totals] = await Promise.all([
    store.query<DailyCost>(
      `SELECT toString(day) AS date, toFloat64(sum(cost_usd)) AS cost_usd, toFloat64(sum(cost_display)) AS cost_display
       FROM spend_per_day WHERE day BETWEEN {from:Date} AND {to:Date}
       GROUP BY day ORDER BY day`,
      params,
    ),
    store.query<{ total_usd: number; total_display: number; unattributed_usd: number }>(
      `SELECT toFloat64(sum(cost_usd)) AS total_usd, toFloat64(sum(cost_display)) AS total_display,
              toFloat64(sumIf(cost_usd, agent_id = {nil:UUID})) AS unattributed_usd
       FROM spend_per_day WHERE day BETWEEN {from:Date} AND {to:Date}`,
      params,
    ),
  ]);
  const t = totals[0] ?? { total_usd: 0, total_display: 0, unattributed_usd: 0 };
  return {
    period_days: options.days,
    total_cost_usd: t.total_usd,
    total_cost_display: t.total_display,
    unattributed_cost_usd: t.unattributed_usd,
    daily_trend: zeroFill(window, daily, (date) => ({ date, cost_usd: 0, cost_display: 0 })),
  };
}

export async function getAgentCostDetail(
  store: AnalyticsStore,
  options: { agentId: string; days: number; now: Date },
): Promise<AgentCostDetail> {
  const window = dayWindow(options.now, options.days);
  const params = { agent: options.agentId, from: window.from, to: window.to };
  const where = 'WHERE agent_id = {agent:UUID} AND day BETWEEN {from:Date} AND {to:Date}';
  const [daily, byModel, totals] = await Promise.all([
    store.query<AgentCostDay>(`SELECT toString(day) AS date, ${FIGURES} FROM spend_per_day ${where} GROUP BY day ORDER BY day`, params),
    store.query<AgentModelCost>(`SELECT model, ${FIGURES} FROM spend_per_day ${where} GROUP BY model ORDER BY cost_usd DESC, model`, params),
    store.query<UsageFigures>(`SELECT ${FIGURES} FROM spend_per_day ${where}`, params),
  ]);
  return {
    agent_id: options.agentId,
    period_days: options.days,
    ...(totals[0] ?? ZERO),
    daily: zeroFill(window, daily, (date) => ({ date, ...ZERO })),
    by_model: byModel,
  };
}

export interface DepartmentSpend {
  /** YYYY-MM-01 */
  month: string;
  /** '' for agents without a department and for unattributed spend. */
  department: string;
  cost_usd: number;
  cost_display: number;
  events: number;
}

/**
 * Spend per department and UTC calendar month for the months `fromMonth`..`toMonth` inclusive
 * (both `YYYY-MM-01`; use monthStart(now) twice for "this month"). Ordered by month, department.
 */
export async function getDepartmentSpend(
  store: AnalyticsStore,
  options: { fromMonth: string; toMonth: string },
): Promise<DepartmentSpend[]> {
  return store.query<DepartmentSpend>(
    `SELECT toString(toStartOfMonth(day)) AS month, department,
            toFloat64(sum(cost_usd)) AS cost_usd, toFloat64(sum(cost_display)) AS cost_display, sum(events) AS events
     FROM spend_per_day
     WHERE day >= toStartOfMonth({fromMonth:Date}) AND day < addMonths(toStartOfMonth({toMonth:Date}), 1)
     GROUP BY month, department
     ORDER BY month, department`,
    { fromMonth: options.fromMonth, toMonth: options.toMonth },
  );
}

export interface UnpricedModel {
  model: string;
  provider: string;
  events: number;
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens: number;
  /** YYYY-MM-DD (UTC) of the first and last unpriced event in the window. */
  first_seen: string;
  last_seen: string;
}

/** Models whose events in the last `days` days had no price, most events first. */
export async function listUnpricedModels(store: AnalyticsStore, options: { days: number; now: Date }): Promise<UnpricedModel[]> {
  const window = dayWindow(options.now, options.days);
  return store.query<UnpricedModel>(
    `SELECT model, provider, count() AS events, sum(input_tokens) AS input_tokens,
            sum(output_tokens) AS output_tokens, sum(cached_input_tokens) AS cached_input_tokens,
            toString(min(toDate(occurred_at, 'UTC'))) AS first_seen, toString(max(toDate(occurred_at, 'UTC'))) AS last_seen
     FROM raw_cost_events
     WHERE NOT priced AND toDate(occurred_at, 'UTC') BETWEEN {from:Date} AND {to:Date}
     GROUP BY model, provider
     ORDER BY events DESC, model, provider`,
    { from: window.from, to: window.to },
  );
}

export interface ObservedModel {
  agent_id: string;
  model: string;
  events: number;
  input_tokens: number;
  output_tokens: number;
  /** YYYY-MM-DD (UTC) */
  last_seen: string;
}

/**
 * Models registry agents used in the last `days` days (from cost events, including those made
 * from quality signals), per agent most-used first. Unattributed spend is left out.
 */
export async function getObservedModels(
  store: AnalyticsStore,
  options: { days: number; now: Date; agentId?: string },
): Promise<ObservedModel[]> {
  const window = dayWindow(options.now, options.days);
  const params: Record<string, string> = { from: window.from, to: window.to, nil: UNATTRIBUTED_AGENT_ID };
  if (options.agentId) params.agent = options.agentId;
  return store.query<ObservedModel>(
    `SELECT agent_id, model, sum(events) AS events, sum(input_tokens) AS input_tokens,
            sum(output_tokens) AS output_tokens, toString(max(day)) AS last_seen
     FROM spend_per_day
     WHERE day BETWEEN {from:Date} AND {to:Date} AND agent_id != {nil:UUID}${options.agentId ? ' AND agent_id = {agent:UUID}' : ''}
     GROUP BY agent_id, model
     ORDER BY agent_id, events DESC, model`,
    params,
  );
}
