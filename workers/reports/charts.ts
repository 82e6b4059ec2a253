// The report's four charts as PNG images (600 px wide, the width mail clients lay out well).
// Every chart also has its figures in the HTML and text parts: a client that blocks images
// loses no fact.
import type { DailyCost } from '../../lib/analytics/cost-reads.ts';
import { Canvas, textWidth, type Rgb } from './raster.ts';
import type { DepartmentBudgetLine, WorstCheck } from './data.ts';

const WIDTH = 600;
const INK: Rgb = [51, 51, 51];
const MUTED: Rgb = [130, 130, 130];
const GRID: Rgb = [222, 222, 222];
const BLUE: Rgb = [33, 113, 181];
export const RISK_COLOURS: Record<string, Rgb> = { CRITICAL: [198, 40, 40], HIGH: [239, 108, 0], MEDIUM: [249, 168, 37], LOW: [67, 160, 71] };
const RISKS = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW'] as const;
const STATUSES = ['APPROVED', 'PENDING_REVIEW', 'DISCOVERED'] as const;

export interface Chart {
  cid: string;
  filename: string;
  alt: string;
  png: Buffer;
}

function fit(text: string, maxWidth: number, scale = 2): string {
  let t = text;
  while (t.length > 1 && textWidth(t, scale) > maxWidth) t = t.slice(0, -1);
  return t === text ? t : `${t.slice(0, -1)}.`;
}

export function agentsChart(byStatusRisk: Record<string, Record<string, number>>): Chart {
  const rowH = 36;
  const c = new Canvas(WIDTH, 40 + STATUSES.length * rowH + 36);
  c.text(10, 10, 'AGENTS BY STATUS AND RISK', INK);
  const totals = STATUSES.map((s) => RISKS.reduce((n, r) => n + (byStatusRisk[s]?.[r] ?? 0), 0));
  const max = Math.max(1, ...totals);
  const x0 = 180;
  const barMax = WIDTH - x0 - 60;
  STATUSES.forEach((status, i) => {
    const y = 40 + i * rowH;
    c.text(10, y + 8, status.replace('_', ' '), INK);
    let x = x0;
    for (const risk of RISKS) {
      const w = ((byStatusRisk[status]?.[risk] ?? 0) / max) * barMax;
      c.fillRect(x, y, w, 26, RISK_COLOURS[risk]!);
      x += w;
    }
    c.text(x + 8, y + 8, String(totals[i]), INK);
  });
  let lx = 10;
  const ly = 40 + STATUSES.length * rowH + 10;
  for (const risk of RISKS) {
    c.fillRect(lx, ly, 14, 14, RISK_COLOURS[risk]!);
    lx += 20 + c.text(lx + 20, ly, risk, MUTED) + 16;
  }
  return { cid: 'agents-by-status-risk', filename: 'agents-by-status-risk.png', alt: 'Agents by status and risk level', png: c.toPng() };
}

export function worstChecksChart(checks: readonly WorstCheck[]): Chart {
  const rowH = 72;
  const c = new Canvas(WIDTH, 44 + Math.max(1, checks.length) * rowH);
  c.text(10, 10, 'WORST CHECKS: DAILY PASS RATE, 14 DAYS', INK);
  if (checks.length === 0) c.text(10, 50, 'EVERY CHECK PASSED THIS WEEK', MUTED);
  const x0 = 10;
  const plotW = WIDTH - 120;
  checks.forEach((check, i) => {
    const y = 44 + i * rowH;
    c.text(x0, y, fit(`${check.agent_name} / ${check.check_id} (${check.severity})`, WIDTH - 20), INK);
    const top = y + 24;
    const h = 36;
    c.fillRect(x0, top, plotW, 1, GRID);
    c.fillRect(x0, top + h, plotW, 1, GRID);
    const step = plotW / Math.max(1, check.daily.length - 1);
    const colour = check.trend === 'DEGRADING' ? RISK_COLOURS.CRITICAL! : BLUE;
    let prev: [number, number] | undefined;
    check.daily.forEach((rate, d) => {
      if (rate === null) {
        prev = undefined;
        return;
      }
      const point: [number, number] = [x0 + d * step, top + h - rate * h];
      if (prev) c.line(prev[0], prev[1], point[0], point[1], colour);
      c.fillRect(point[0] - 2, point[1] - 2, 5, 5, colour);
      prev = point;
    });
    c.text(x0 + plotW + 14, top + 4, `${Math.round(check.pass_rate * 100)}%`, colour);
    c.text(x0 + plotW + 14, top + 22, check.trend, MUTED, 1);
  });
  return { cid: 'worst-checks', filename: 'worst-checks.png', alt: 'Daily pass rate of the worst checks', png: c.toPng() };
}

export function dailySpendChart(daily: readonly DailyCost[], currency: string): Chart {
  const c = new Canvas(WIDTH, 220);
  const max = Math.max(0, ...daily.map((d) => d.cost_display));
  c.text(10, 10, `DAILY SPEND, ${daily.length} DAYS (${currency})`, INK);
  const top = 40;
  const h = 140;
  const x0 = 10;
  const plotW = WIDTH - 20;
  c.fillRect(x0, top + h, plotW, 1, MUTED);
  const slot = plotW / Math.max(1, daily.length);
  daily.forEach((d, i) => {
    const barH = max > 0 ? (d.cost_display / max) * h : 0;
    c.fillRect(x0 + i * slot + 2, top + h - barH, Math.max(1, slot - 4), barH, i >= daily.length - 7 ? BLUE : [158, 202, 225]);
  });
  c.text(x0, top - 14 + 2, `MAX ${max.toFixed(2)}`, MUTED, 1);
  if (daily.length > 0) {
    c.text(x0, top + h + 8, daily[0]!.date.slice(5), MUTED);
    const last = daily[daily.length - 1]!.date.slice(5);
    c.text(x0 + plotW - textWidth(last), top + h + 8, last, MUTED);
  }
  return { cid: 'daily-spend', filename: 'daily-spend.png', alt: `Daily spend in ${currency}`, png: c.toPng() };
}

export function budgetChart(lines: readonly DepartmentBudgetLine[], month: string): Chart {
  const withBudget = lines.filter((l) => l.utilisation !== null);
  const rowH = 34;
  const c = new Canvas(WIDTH, 40 + Math.max(1, withBudget.length) * rowH + 10);
  c.text(10, 10, `SPEND AGAINST BUDGET, ${month}`, INK);
  if (withBudget.length === 0) c.text(10, 50, 'NO BUDGETS SET FOR THIS MONTH', MUTED);
  const x0 = 170;
  const full = (WIDTH - x0 - 70) / 1.2; // width of 100 %; bars show up to 120 %
  withBudget.forEach((line, i) => {
    const y = 40 + i * rowH;
    const u = line.utilisation!;
    c.text(10, y + 6, fit(line.department, x0 - 20), INK);
    c.fillRect(x0, y, full * 1.2, 24, [240, 240, 240]);
    const colour = u >= 1 ? RISK_COLOURS.CRITICAL! : u >= 0.8 ? RISK_COLOURS.HIGH! : RISK_COLOURS.LOW!;
    c.fillRect(x0, y, full * Math.min(u, 1.2), 24, colour);
    c.fillRect(x0 + full * 0.8, y - 3, 2, 30, MUTED);
    c.fillRect(x0 + full, y - 3, 2, 30, INK);
    c.text(x0 + full * 1.2 + 8, y + 6, `${Math.round(u * 100)}%`, INK);
  });
  return { cid: 'spend-vs-budget', filename: 'spend-vs-budget.png', alt: `Spend against budget, ${month}`, png: c.toPng() };
}
