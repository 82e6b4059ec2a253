// Spend anomalies (decisions §10): a day's spend well above its recent baseline, and a
// department crossing 80 % and 100 % of its monthly budget.
//
// Spike rule: for day D (today so far, and yesterday so that spend in the last minutes before
// midnight is judged too), baseline = mean daily spend of the 14 days before D, days without
// spend counted as 0. D is a spike when its spend is at least 2x the baseline and at least
// 5 USD above it, and the baseline has spend on at least 3 days (a new instance has no
// "usual" yet). Today is judged on its spend so far, so a spike is reported as soon as it is one.
import { getDepartmentSpend } from '../../lib/analytics/cost-reads.ts';
import { addDays, monthStart, utcDay } from '../../lib/analytics/time.ts';
import { money, percent, type AlertCandidate, type DetectionContext } from './types.ts';

export const SPIKE = { lookbackDays: 14, ratio: 2, minExcessUsd: 5, minActiveDays: 3 } as const;
export const BUDGET_THRESHOLDS = [0.8, 1] as const;

export async function detectSpendSpikes(ctx: DetectionContext): Promise<AlertCandidate[]> {
  const today = utcDay(ctx.now);
  const from = addDays(today, -(SPIKE.lookbackDays + 1));
  const rows = await ctx.analytics.query<{ date: string; cost_usd: number; cost_display: number }>(
    `SELECT toString(day) AS date, toFloat64(sum(cost_usd)) AS cost_usd, toFloat64(sum(cost_display)) AS cost_display
     FROM spend_per_day WHERE day BETWEEN {from:Date} AND {to:Date} GROUP BY day`,
    { from, to: today },
  );
  const byDay = new Map(rows.map((r) => [r.date, r]));
  const out: AlertCandidate[] = [];
  for (const day of [addDays(today, -1), today]) {
    const spend = byDay.get(day);
    if (!spend) continue;
    let sum = 0;
    let active = 0;
    for (let i = 1; i <= SPIKE.lookbackDays; i++) {
      const usd = byDay.get(addDays(day, -i))?.cost_usd ?? 0;
      sum += usd;
      if (usd > 0) active++;
    }
    const baseline = sum / SPIKE.lookbackDays;
    if (active < SPIKE.minActiveDays) continue;
    if (spend.cost_usd < baseline * SPIKE.ratio || spend.cost_usd - baseline < SPIKE.minExcessUsd) continue;
    const ratio = spend.cost_usd / baseline;
    out.push({
      key: `spend_spike:${day}`,
      kind: 'spend_spike',
      title: `Spend on ${day} is ${ratio.toFixed(1)}x the usual daily spend`,
      summary:
        `LLM spend on ${day} (UTC)${day === today ? ' so far' : ''} is ${money(spend.cost_usd, 'USD')}, ` +
        `${ratio.toFixed(1)} times the mean daily spend of the ${SPIKE.lookbackDays} days before (${money(baseline, 'USD')}).`,
      facts: [
        ['Day (UTC)', day],
        ['Spend', `${money(spend.cost_usd, 'USD')} (${money(spend.cost_display, ctx.settings.display_currency)})`],
        [`Mean of the ${SPIKE.lookbackDays} days before`, money(baseline, 'USD')],
        ['Ratio', `${ratio.toFixed(2)}x`],
      ],
      details: { day, cost_usd: spend.cost_usd, cost_display: spend.cost_display, baseline_usd: baseline, ratio, active_baseline_days: active },
    });
  }
  return out;
}

export async function detectBudgetCrossings(ctx: DetectionContext): Promise<AlertCandidate[]> {
  const month = monthStart(ctx.now);
  const [budgets, spend] = await Promise.all([
    ctx.db.query<{ department: string; budget_amount: number }>(
      'SELECT department, budget_amount::float8 AS budget_amount FROM department_budgets WHERE month = $1 AND budget_amount > 0',
      [month],
    ),
    getDepartmentSpend(ctx.analytics, { fromMonth: month, toMonth: month }),
  ]);
  const currency = ctx.settings.display_currency;
  const period = month.slice(0, 7);
  const out: AlertCandidate[] = [];
  for (const { department, budget_amount: budget } of budgets.rows) {
    const spent = spend.find((s) => s.department === department)?.cost_display ?? 0;
    const utilisation = spent / budget;
    // The highest threshold crossed only: a jump straight past 100 % sends one email, not two.
    const crossed = [...BUDGET_THRESHOLDS].reverse().find((t) => utilisation >= t);
    if (crossed === undefined) continue;
    const level = Math.round(crossed * 100);
    out.push({
      key: `budget_${level}:${department}:${period}`,
      kind: level === 100 ? 'budget_100' : 'budget_80',
      title: `${department} has used ${percent(utilisation)} of its ${period} budget`,
      summary:
        `Department ${department} has spent ${money(spent, currency)} of its ${money(budget, currency)} budget for ${period}` +
        (level === 100 ? ': the budget is exhausted.' : `, past the ${level} % warning line.`),
      facts: [
        ['Department', department],
        ['Month', period],
        ['Spent', money(spent, currency)],
        ['Budget', money(budget, currency)],
        ['Utilisation', percent(utilisation)],
      ],
      details: { department, month, spent_display: spent, budget_amount: budget, utilisation, threshold: crossed, currency },
      supersedes: level === 100 ? [`budget_80:${department}:${period}`] : undefined,
    });
  }
  return out;
}
