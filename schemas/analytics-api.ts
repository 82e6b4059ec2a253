// Answers of the quality and cost read endpoints (documentation and OpenAPI; the figures come
// from lib/analytics/*, whose TypeScript types these mirror).
import { Type } from '@sinclair/typebox';

const Day = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'UTC day, YYYY-MM-DD' });
const Trend = Type.Union([Type.Literal('DEGRADING'), Type.Literal('IMPROVING'), Type.Literal('STABLE')], {
  description: 'DEGRADING: the day is at least 5 points below the mean daily pass rate of the 7 days before it; IMPROVING: 5 above.',
});

export const AccuracyRowSchema = Type.Object({
  check_id: Type.String(),
  severity: Type.String(),
  agg_date: Day,
  total_runs: Type.Integer(),
  passed_runs: Type.Integer(),
  pass_rate: Type.Number({ minimum: 0, maximum: 1 }),
  trend: Trend,
});

export const SignalRowSchema = Type.Object({
  signal_id: Type.String(),
  agent_id: Type.String(),
  agent_external_id: Type.String(),
  job_id: Type.String(),
  overall_passed: Type.Boolean(),
  check_count: Type.Integer(),
  passed_count: Type.Integer(),
  latency_ms: Type.Integer(),
  model: Type.Union([Type.String(), Type.Null()]),
  token_input: Type.Union([Type.Integer(), Type.Null()]),
  token_output: Type.Union([Type.Integer(), Type.Null()]),
  received_at: Type.String({ description: 'When it happened (occurred_at, default the time of receipt), ISO 8601 UTC' }),
  checks: Type.Array(
    Type.Object({
      check_id: Type.String(),
      severity: Type.String(),
      passed: Type.Boolean(),
      expected: Type.Union([Type.String(), Type.Null()]),
      actual: Type.Union([Type.String(), Type.Null()]),
      delta: Type.Union([Type.String(), Type.Null()]),
    }),
  ),
});

const Cell = Type.Object({
  agent_id: Type.String(),
  agent_name: Type.Union([Type.String(), Type.Null()]),
  check_id: Type.String(),
  severity: Type.String(),
  total_runs: Type.Integer(),
  passed_runs: Type.Integer(),
  pass_rate: Type.Number(),
});

export const HeatmapSchema = Type.Object({
  window_days: Type.Integer(),
  severity: Type.String(),
  agents: Type.Array(Type.Object({ agent_id: Type.String(), name: Type.Union([Type.String(), Type.Null()]), external_id: Type.Union([Type.String(), Type.Null()]) })),
  checks: Type.Array(Type.String()),
  cells: Type.Array(Cell),
});

const DailyCost = Type.Object({ date: Day, cost_usd: Type.Number(), cost_display: Type.Number() });

export const CostSummarySchema = Type.Object({
  period_days: Type.Integer(),
  total_cost_usd: Type.Number(),
  total_cost_display: Type.Number(),
  unattributed_cost_usd: Type.Number({ description: 'Spend of cost events whose agent is not in the registry (part of the totals).' }),
  display_currency: Type.String(),
  daily_trend: Type.Array(DailyCost, { description: 'One element per day of the window, oldest first, zero-filled.' }),
});

const Usage = {
  cost_usd: Type.Number(),
  cost_display: Type.Number(),
  input_tokens: Type.Integer(),
  output_tokens: Type.Integer(),
  cached_input_tokens: Type.Integer(),
  events: Type.Integer(),
};

export const AgentCostDetailSchema = Type.Object({
  agent_id: Type.String(),
  period_days: Type.Integer(),
  display_currency: Type.String(),
  ...Usage,
  daily: Type.Array(Type.Object({ date: Day, ...Usage })),
  by_model: Type.Array(Type.Object({ model: Type.String(), ...Usage })),
});

export const DepartmentCostsSchema = Type.Object({
  month: Day,
  display_currency: Type.String(),
  departments: Type.Array(
    Type.Object({
      department: Type.Union([Type.String(), Type.Null()], { description: 'null: agents without a department and unattributed spend' }),
      cost_usd: Type.Number(),
      cost_display: Type.Number(),
      events: Type.Integer(),
      budget_amount: Type.Union([Type.Number(), Type.Null()], { description: 'In the display currency' }),
      utilisation: Type.Union([Type.Number(), Type.Null()], { description: 'cost_display / budget_amount; null without a budget' }),
    }),
  ),
});

export const StoredBudgetSchema = Type.Object({
  department: Type.String(),
  month: Day,
  budget_amount: Type.Number(),
  currency: Type.Optional(Type.String()),
  updated_at: Type.String(),
});
