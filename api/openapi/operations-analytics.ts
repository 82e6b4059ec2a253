// Quality and cost reads, budgets.
import { Type } from '@sinclair/typebox';
import { AccuracyRowSchema, AgentCostDetailSchema, CostSummarySchema, DepartmentCostsSchema, HeatmapSchema, SignalRowSchema, StoredBudgetSchema } from '../../schemas/analytics-api.ts';
import { BudgetSchema, PriceOverrideSchema } from '../../schemas/costs-api.ts';
import { BEARER_ERRORS, int, type Operation } from './operation-types.ts';

const days = (fallback: number, max: number) => ({ name: 'days', description: 'Whole UTC days ending today', schema: int(1, max, fallback) });

export const ANALYTICS_OPERATIONS: Operation[] = [
  { id: 'listSignals', method: 'GET', pattern: '/api/v1/agents/:agent_id/signals', tag: 'quality', summary: 'Recent quality signals, newest first', auth: 'bearer', query: [{ name: 'limit', description: 'how many', schema: int(1, 500, 50) }], responses: { 200: { description: 'Signals', schema: Type.Array(SignalRowSchema) } }, errors: BEARER_ERRORS },
  { id: 'getAccuracy', method: 'GET', pattern: '/api/v1/agents/:agent_id/accuracy', tag: 'quality', summary: 'Daily accuracy per check with trend', auth: 'bearer', query: [days(30, 365)], responses: { 200: { description: 'One row per check and day with runs', schema: Type.Array(AccuracyRowSchema) } }, errors: BEARER_ERRORS },
  {
    id: 'getHeatmap', method: 'GET', pattern: '/api/v1/optimise/heatmap', tag: 'quality', summary: 'Pass rate of every (agent, check)', auth: 'bearer',
    query: [
      { name: 'window_days', description: 'Whole UTC days ending today', schema: int(1, 90, 7) },
      { name: 'severity', description: 'ALL (default) or a severity such as HIGH', schema: { type: 'string', default: 'ALL' } },
    ],
    responses: { 200: { description: 'Cells', schema: HeatmapSchema } }, errors: BEARER_ERRORS,
  },
  { id: 'getCostSummary', method: 'GET', pattern: '/api/v1/costs/summary', tag: 'costs', summary: 'Spend over a period', auth: 'bearer', query: [days(30, 365)], responses: { 200: { description: 'Summary', schema: CostSummarySchema } }, errors: BEARER_ERRORS },
  { id: 'getAgentCost', method: 'GET', pattern: '/api/v1/costs/agents/:agent_id', tag: 'costs', summary: 'Spend of one agent per day and per model', auth: 'bearer', query: [days(30, 365)], responses: { 200: { description: 'Detail', schema: AgentCostDetailSchema } }, errors: BEARER_ERRORS },
  { id: 'getDepartmentCosts', method: 'GET', pattern: '/api/v1/costs/departments', tag: 'costs', summary: "This month's spend per department against budgets", auth: 'bearer', responses: { 200: { description: 'Departments', schema: DepartmentCostsSchema } }, errors: BEARER_ERRORS },
  { id: 'listBudgets', method: 'GET', pattern: '/api/v1/costs/budgets', tag: 'costs', summary: 'Department budgets', auth: 'bearer', responses: { 200: { description: 'Budgets', schema: Type.Array(StoredBudgetSchema) } }, errors: BEARER_ERRORS },
  { id: 'putBudget', method: 'POST', pattern: '/api/v1/costs/budgets', tag: 'costs', summary: 'Set the budget of a department and month (admins)', description: 'month is the first day of the month; the amount is in the display currency. 201 when created, 200 when replaced.', auth: 'bearer', body: BudgetSchema, responses: { 200: { description: 'Replaced', schema: StoredBudgetSchema }, 201: { description: 'Created', schema: StoredBudgetSchema } }, errors: [...BEARER_ERRORS, 415, 422] },
  { id: 'listPrices', method: 'GET', pattern: '/api/v1/prices', tag: 'costs', summary: 'Model prices: the shipped table (with its as-of date) and the operator overrides', auth: 'bearer', responses: { 200: { description: '{as_of, unit, models: [{model, provider, input, output, cached_input, source}]}' } }, errors: BEARER_ERRORS },
  { id: 'putPrice', method: 'PUT', pattern: '/api/v1/prices/:model', tag: 'costs', summary: 'Override or add the price of a model (admins)', description: 'USD per million tokens. Applies to events ingested from then on; stored events keep their price.', auth: 'bearer', body: PriceOverrideSchema, responses: { 200: { description: 'Replaced' }, 201: { description: 'Added' } }, errors: [...BEARER_ERRORS, 415, 422] },
  { id: 'deletePrice', method: 'DELETE', pattern: '/api/v1/prices/:model', tag: 'costs', summary: 'Remove an override (admins); the shipped price applies again', auth: 'bearer', responses: { 204: { description: 'Removed' } }, errors: BEARER_ERRORS },
  { id: 'listUnpricedModels', method: 'GET', pattern: '/api/v1/costs/unpriced-models', tag: 'costs', summary: 'Models seen without a price, to price them', auth: 'bearer', query: [days(30, 365)], responses: { 200: { description: 'Models with events and tokens' } }, errors: BEARER_ERRORS },
];
