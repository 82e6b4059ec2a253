// A HIGH or CRITICAL check turning DEGRADING (decisions §7 and §10). The trend is the one the
// accuracy API shows (lib/analytics/trend.ts): the day's pass rate at least 5 points below the
// mean of the 7 days before. Judged for today and yesterday, per (agent, check), once per day.
// A day needs at least 3 runs: one failed run early in the morning is not a trend worth an email.
import { addDays, utcDay } from '../../lib/analytics/time.ts';
import { TREND_LOOKBACK_DAYS, baselineFor, classifyTrend, type DailyRate } from '../../lib/analytics/trend.ts';
import { percent, type AlertCandidate, type DetectionContext } from './types.ts';

export const ALERT_SEVERITIES = ['HIGH', 'CRITICAL'] as const;
export const MIN_RUNS_FOR_ALERT = 3;

interface DayRow {
  agent_id: string;
  check_id: string;
  severity: string;
  date: string;
  total_runs: number;
  passed_runs: number;
}

interface CheckSeries {
  agentId: string;
  checkId: string;
  severity: string;
  lastDay: string;
  days: Map<string, { total: number; passed: number }>;
}

function group(rows: readonly DayRow[]): CheckSeries[] {
  const series = new Map<string, CheckSeries>();
  for (const r of rows) {
    const id = `${r.agent_id}\u0000${r.check_id}`;
    let s = series.get(id);
    if (!s) {
      s = { agentId: r.agent_id, checkId: r.check_id, severity: r.severity, lastDay: r.date, days: new Map() };
      series.set(id, s);
    }
    // The check's latest severity labels it, as in the accuracy API.
    if (r.date >= s.lastDay) {
      s.lastDay = r.date;
      s.severity = r.severity;
    }
    const d = s.days.get(r.date) ?? { total: 0, passed: 0 };
    d.total += Number(r.total_runs);
    d.passed += Number(r.passed_runs);
    s.days.set(r.date, d);
  }
  return [...series.values()];
}

export async function detectDegradingChecks(ctx: DetectionContext): Promise<AlertCandidate[]> {
  const today = utcDay(ctx.now);
  const rows = await ctx.analytics.query<DayRow>(
    `SELECT toString(agent_id) AS agent_id, check_id, severity, toString(day) AS date,
            sum(total_runs) AS total_runs, sum(passed_runs) AS passed_runs
     FROM check_results_per_day
     WHERE day BETWEEN {from:Date} AND {to:Date}
     GROUP BY agent_id, check_id, severity, day`,
    { from: addDays(today, -(TREND_LOOKBACK_DAYS + 1)), to: today },
  );
  const found: Array<{ s: CheckSeries; day: string; rate: number; baseline: number; runs: number; passed: number }> = [];
  for (const s of group(rows)) {
    if (!(ALERT_SEVERITIES as readonly string[]).includes(s.severity)) continue;
    const rates: DailyRate[] = [...s.days].map(([day, d]) => ({ day, rate: d.passed / d.total }));
    for (const day of [addDays(today, -1), today]) {
      const d = s.days.get(day);
      if (!d || d.total < MIN_RUNS_FOR_ALERT) continue;
      const rate = d.passed / d.total;
      const baseline = baselineFor(rates, day);
      if (classifyTrend(rate, baseline) !== 'DEGRADING') continue;
      found.push({ s, day, rate, baseline: baseline!, runs: d.total, passed: d.passed });
    }
  }
  if (found.length === 0) return [];
  const ids = [...new Set(found.map((f) => f.s.agentId))];
  const agents = await ctx.db.query<{ id: string; name: string; department: string | null }>(
    'SELECT id::text AS id, name, department FROM agents WHERE id = ANY($1::uuid[])',
    [ids],
  );
  const agentOf = new Map(agents.rows.map((a) => [a.id, a]));
  return found.map(({ s, day, rate, baseline, runs, passed }) => {
    const agent = agentOf.get(s.agentId);
    const name = agent?.name ?? s.agentId;
    return {
      key: `check_degrading:${s.agentId}:${s.checkId}:${day}`,
      kind: 'check_degrading' as const,
      title: `${s.severity} check ${s.checkId} of ${name} is DEGRADING`,
      summary:
        `The ${s.severity} check ${s.checkId} of agent ${name} passed ${percent(rate)} of its runs on ${day} (UTC), ` +
        `against ${percent(baseline)} on average over the ${TREND_LOOKBACK_DAYS} days before.`,
      facts: [
        ['Agent', name],
        ['Department', agent?.department ?? '—'],
        ['Check', `${s.checkId} (${s.severity})`],
        ['Day (UTC)', day],
        ['Pass rate', `${percent(rate)} (${passed} of ${runs} runs)`],
        [`Mean of the ${TREND_LOOKBACK_DAYS} days before`, percent(baseline)],
      ],
      details: { agent_id: s.agentId, agent_name: name, check_id: s.checkId, severity: s.severity, day, pass_rate: rate, baseline, total_runs: runs, passed_runs: passed },
    };
  });
}
