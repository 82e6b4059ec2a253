// The weekly health report as an email: HTML with the four charts as inline PNG images
// (multipart/related, `cid:` references, which Gmail, Outlook and Apple Mail show), every figure
// also as text, and a plain-text part with the same facts for clients that read no HTML.
import { escapeHtml } from '../../lib/email/html.ts';
import { storeAttachments, type StoredMessage } from '../../lib/email/outbox.ts';
import { agentsChart, budgetChart, dailySpendChart, worstChecksChart, type Chart } from './charts.ts';
import type { ReportData } from './data.ts';

const STATUSES = ['APPROVED', 'PENDING_REVIEW', 'DISCOVERED'] as const;
const RISKS = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW'] as const;

const pct = (ratio: number | null): string => (ratio === null ? '—' : `${(ratio * 100).toFixed(1)} %`);
const amount = (n: number, currency: string): string => `${n.toFixed(2)} ${currency}`;
const rate = (passed: number, runs: number): number | null => (runs === 0 ? null : passed / runs);

interface Section {
  title: string;
  chart?: Chart;
  lines: string[];
}

function sections(d: ReportData, charts: Chart[]): Section[] {
  const [agents, worst, daily, budget] = charts;
  const statuses = STATUSES.filter((status) => d.agents.byStatusRisk[status]).map((status) => {
    const risks = d.agents.byStatusRisk[status]!;
    const parts = RISKS.filter((r) => risks[r]).map((r) => `${risks[r]} ${r}`).join(', ');
    return `${status}: ${Object.values(risks).reduce((a, b) => a + b, 0)} (${parts})`;
  });
  const change = d.spend.previousWeekDisplay > 0 ? ` (${((d.spend.weekDisplay / d.spend.previousWeekDisplay - 1) * 100).toFixed(0)} % on the week before)` : '';
  return [
    {
      title: 'Agents and risk',
      chart: agents,
      lines: [`${d.agents.total} agents; ${d.agents.noOwner} without an owner.`, ...statuses],
    },
    {
      title: 'Accuracy and the worst checks',
      chart: worst,
      lines: [
        `Pass rate this week: ${pct(rate(d.accuracy.passed, d.accuracy.runs))} of ${d.accuracy.runs} check runs ` +
          `(week before: ${pct(rate(d.accuracy.previousPassed, d.accuracy.previousRuns))}).`,
        ...d.worstChecks.map((w) => `${w.agent_name} / ${w.check_id} (${w.severity}): ${pct(w.pass_rate)} of ${w.total_runs} runs, trend ${w.trend}`),
      ],
    },
    {
      title: 'Spend',
      chart: daily,
      lines: [`Spend this week: ${amount(d.spend.weekDisplay, d.currency)}${change}.`],
    },
    {
      title: `Spend against budgets (${d.spend.month})`,
      chart: budget,
      lines: d.spend.departments.map((l) =>
        l.budget === null ? `${l.department}: ${amount(l.spent, d.currency)}, no budget` : `${l.department}: ${amount(l.spent, d.currency)} of ${amount(l.budget, d.currency)} (${pct(l.utilisation)})`,
      ),
    },
    {
      title: 'Discrepancies',
      lines: [`${d.agents.withDiscrepancies} agents do not match what they declare.`, ...d.discrepancies.map((x) => `${x.name}: ${x.kinds.join(', ')}`)],
    },
    {
      title: 'New discoveries',
      lines: d.discoveries.length === 0
        ? ['No new agent was discovered this week.']
        : d.discoveries.map((x) => `${x.name} (found by ${x.source}, ${x.status}${x.contains_pii ? ', handles PII' : ''})`),
    },
    {
      title: 'Alerts sent this week',
      lines: d.alerts.length === 0 ? ['None.'] : d.alerts.map((a) => `${a.kind}: ${a.count}`),
    },
  ];
}

export function renderWeeklyReport(d: ReportData): StoredMessage {
  const charts = [agentsChart(d.agents.byStatusRisk), worstChecksChart(d.worstChecks), dailySpendChart(d.spend.daily, d.currency), budgetChart(d.spend.departments, d.spend.month)];
  const list = sections(d, charts);
  const heading = `Weekly health report ${d.week}: ${d.from} to ${d.to} (UTC days)`;
  const text = [
    `${d.companyName} — ${heading}`,
    '',
    ...list.flatMap((s) => [s.title.toUpperCase(), ...s.lines.map((l) => `  ${l}`), '']),
    'Charts are in the HTML part of this email. Sent to the alert contacts; admins change them in the settings.',
    '',
  ].join('\n');
  const body = list
    .map((s) => {
      const img = s.chart ? `<img src="cid:${s.chart.cid}" alt="${escapeHtml(s.chart.alt)}" width="600" style="display:block;max-width:100%;border:0;margin:8px 0">` : '';
      const items = s.lines.map((l) => `<li>${escapeHtml(l)}</li>`).join('');
      return `<h3 style="font-size:16px;margin:24px 0 4px">${escapeHtml(s.title)}</h3>${img}<ul style="margin:4px 0;padding-left:20px">${items}</ul>`;
    })
    .join('');
  const html =
    `<!doctype html><html><body style="font-family:Arial,Helvetica,sans-serif;font-size:14px;color:#222;max-width:640px">` +
    `<h2 style="font-size:20px;margin:0">${escapeHtml(d.companyName)}</h2><p style="color:#555;margin:4px 0 0">${escapeHtml(heading)}</p>` +
    `${body}<p style="color:#777;font-size:12px;margin-top:24px">Sent to the alert contacts of the Agent Operations Registry; admins change them in the settings.</p></body></html>`;
  return {
    subject: `[${d.companyName}] Weekly health report ${d.week}`,
    text,
    html,
    attachments: storeAttachments(charts.map((c) => ({ filename: c.filename, contentType: 'image/png', content: c.png, cid: c.cid }))),
  };
}
