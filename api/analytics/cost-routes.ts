// Cost reads (summary, one agent, departments this month) and department budgets.
// decisions §6: budgets are in the display currency; utilisation = spend / budget, or null.
import { AppError } from '../../lib/errors.ts';
import { compile, queryInteger, readBody } from '../../lib/http/body.ts';
import type { Route } from '../../lib/http/types.ts';
import { getAgentCostDetail, getCostSummary, getDepartmentSpend } from '../../lib/analytics/cost-reads.ts';
import { monthStart } from '../../lib/analytics/time.ts';
import { readInstanceSettings } from '../../lib/instance-settings.ts';
import { BudgetSchema } from '../../schemas/costs-api.ts';
import type { ApiContext } from '../context.ts';
import { registryAgentId } from './agent-exists.ts';

export const COST_DAYS = { fallback: 30, max: 365 };
const budgetValidator = compile(BudgetSchema);

export function costRoutes(ctx: ApiContext): Route[] {
  return [
    {
      method: 'GET',
      pattern: '/api/v1/costs/summary',
      async handler(request) {
        await ctx.guard.user(request);
        const days = queryInteger(request, 'days', COST_DAYS.fallback, 1, COST_DAYS.max);
        const [summary, settings] = await Promise.all([getCostSummary(ctx.analytics, { days, now: ctx.now() }), readInstanceSettings(ctx.db)]);
        return { status: 200, body: { ...summary, display_currency: settings.display_currency } };
      },
    },
    {
      method: 'GET',
      pattern: '/api/v1/costs/agents/:agent_id',
      async handler(request) {
        await ctx.guard.user(request);
        const days = queryInteger(request, 'days', COST_DAYS.fallback, 1, COST_DAYS.max);
        const agentId = await registryAgentId(ctx.db, request);
        const [detail, settings] = await Promise.all([getAgentCostDetail(ctx.analytics, { agentId, days, now: ctx.now() }), readInstanceSettings(ctx.db)]);
        return { status: 200, body: { ...detail, display_currency: settings.display_currency } };
      },
    },
    {
      method: 'GET',
      pattern: '/api/v1/costs/departments',
      async handler(request) {
        await ctx.guard.user(request);
        const month = monthStart(ctx.now());
        const [spend, budgets, settings] = await Promise.all([
          getDepartmentSpend(ctx.analytics, { fromMonth: month, toMonth: month }),
          ctx.db.query<{ department: string; budget_amount: number }>(
            'SELECT department, budget_amount::float8 AS budget_amount FROM department_budgets WHERE month = $1',
            [month],
          ),
          readInstanceSettings(ctx.db),
        ]);
        const budgetOf = new Map(budgets.rows.map((b) => [b.department, b.budget_amount]));
        const names = new Set([...spend.map((s) => s.department), ...budgetOf.keys()]);
        const departments = [...names].sort().map((name) => {
          const row = spend.find((s) => s.department === name);
          const budget = budgetOf.get(name) ?? null;
          const costDisplay = row?.cost_display ?? 0;
          return {
            department: name === '' ? null : name,
            cost_usd: row?.cost_usd ?? 0,
            cost_display: costDisplay,
            events: row?.events ?? 0,
            budget_amount: budget,
            utilisation: budget === null || budget === 0 ? null : costDisplay / budget,
          };
        });
        return { status: 200, body: { month, display_currency: settings.display_currency, departments } };
      },
    },
    {
      method: 'GET',
      pattern: '/api/v1/costs/budgets',
      async handler(request) {
        await ctx.guard.user(request);
        const { rows } = await ctx.db.query(
          `SELECT department, to_char(month, 'YYYY-MM-DD') AS month, budget_amount::float8 AS budget_amount, updated_at
             FROM department_budgets ORDER BY month DESC, department`,
        );
        return { status: 200, body: rows };
      },
    },
    {
      method: 'POST',
      pattern: '/api/v1/costs/budgets',
      async handler(request) {
        await ctx.guard.admin(request);
        const body = readBody(request, budgetValidator);
        const month = new Date(`${body.month}T00:00:00Z`);
        if (Number.isNaN(month.getTime()) || month.toISOString().slice(0, 10) !== body.month || month.getUTCDate() !== 1) {
          throw new AppError({
            code: 'validation_failed',
            status: 422,
            detail: 'month must be the first day of a month (YYYY-MM-01).',
            errors: [{ path: '/month', message: 'must be the first day of a month' }],
          });
        }
        const { rows } = await ctx.db.query<{ inserted: boolean }>(
          `INSERT INTO department_budgets (department, month, budget_amount) VALUES ($1, $2, $3)
           ON CONFLICT (department, month) DO UPDATE SET budget_amount = excluded.budget_amount, updated_at = now()
           RETURNING (xmax = 0) AS inserted, department, to_char(month, 'YYYY-MM-DD') AS month, budget_amount::float8 AS budget_amount, updated_at`,
          [body.department, body.month, body.budget_amount],
        );
        const { inserted, ...budget } = rows[0]!;
        const settings = await readInstanceSettings(ctx.db);
        return { status: inserted ? 201 : 200, body: { ...budget, currency: settings.display_currency } };
      },
    },
  ];
}
