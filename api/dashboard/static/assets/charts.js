// Inline SVG charts built with DOM calls (the content-security-policy allows no inline markup).
// Each chart carries role="img" and a label that says what it shows; the figures themselves
// are also in a table or tiles next to it, for screen readers and for copying.
import { s } from './dom.js';

const PALETTE = ['#2563eb', '#d97706', '#7c3aed', '#059669', '#db2777', '#0891b2', '#65a30d', '#dc2626'];

/**
 * Vertical bars, one per point ({label, value, title}), oldest first. The first and last labels
 * and the largest value are written on the axes.
 */
export function barChart(points, { label, height = 140, formatValue = String } = {}) {
  const width = 640;
  const pad = { top: 12, right: 8, bottom: 22, left: 64 };
  const plotW = width - pad.left - pad.right;
  const plotH = height - pad.top - pad.bottom;
  const max = Math.max(0, ...points.map((p) => p.value));
  const step = plotW / Math.max(points.length, 1);
  const barW = Math.max(1, step * 0.7);
  const svg = s('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': label, class: 'bar-chart', preserveAspectRatio: 'xMidYMid meet' });
  svg.append(
    s('line', { x1: pad.left, y1: pad.top + plotH, x2: width - pad.right, y2: pad.top + plotH, class: 'axis' }),
    s('text', { x: pad.left - 6, y: pad.top + 4, 'text-anchor': 'end', class: 'tick' }, formatValue(max)),
    s('text', { x: pad.left - 6, y: pad.top + plotH, 'text-anchor': 'end', class: 'tick' }, formatValue(0)),
  );
  points.forEach((point, i) => {
    const barH = max > 0 ? (point.value / max) * plotH : 0;
    const x = pad.left + i * step + (step - barW) / 2;
    // A bar of a non-zero day is at least 1 px tall, so small spend stays visible.
    const h = point.value > 0 ? Math.max(barH, 1) : 0;
    svg.append(s('rect', { x: x.toFixed(2), y: (pad.top + plotH - h).toFixed(2), width: barW.toFixed(2), height: h.toFixed(2), class: 'bar', dataset: { date: point.label, value: String(point.value) } },
      s('title', null, point.title ?? `${point.label}: ${formatValue(point.value)}`)));
  });
  if (points.length > 0) {
    const y = height - 6;
    svg.append(s('text', { x: pad.left, y, class: 'tick' }, points[0].label));
    if (points.length > 1) svg.append(s('text', { x: width - pad.right, y, 'text-anchor': 'end', class: 'tick' }, points[points.length - 1].label));
  }
  return svg;
}

/**
 * Daily pass rate per check (rows of GET .../accuracy) as lines over the given days, with a
 * ▼ at a DEGRADING day and a ▲ at an IMPROVING one. Returns the SVG and each check's colour.
 */
export function accuracyChart(rows, days, { label }) {
  const width = 640;
  const height = 180;
  const pad = { top: 14, right: 12, bottom: 22, left: 40 };
  const plotW = width - pad.left - pad.right;
  const plotH = height - pad.top - pad.bottom;
  const x = (day) => pad.left + (days.length <= 1 ? plotW / 2 : (days.indexOf(day) / (days.length - 1)) * plotW);
  const y = (rate) => pad.top + (1 - rate) * plotH;
  const svg = s('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': label, class: 'line-chart' });
  for (const rate of [0, 0.5, 1]) {
    svg.append(
      s('line', { x1: pad.left, x2: width - pad.right, y1: y(rate), y2: y(rate), class: rate === 0 ? 'axis' : 'grid' }),
      s('text', { x: pad.left - 6, y: y(rate) + 4, 'text-anchor': 'end', class: 'tick' }, `${rate * 100}%`),
    );
  }
  if (days.length > 0) {
    svg.append(s('text', { x: pad.left, y: height - 6, class: 'tick' }, days[0]));
    svg.append(s('text', { x: width - pad.right, y: height - 6, 'text-anchor': 'end', class: 'tick' }, days[days.length - 1]));
  }
  const checks = [...new Set(rows.map((r) => r.check_id))].sort();
  const colours = new Map(checks.map((check, i) => [check, PALETTE[i % PALETTE.length]]));
  for (const check of checks) {
    const colour = colours.get(check);
    const points = rows.filter((r) => r.check_id === check && days.includes(r.agg_date)).sort((a, b) => a.agg_date.localeCompare(b.agg_date));
    if (points.length > 1) {
      svg.append(s('polyline', { points: points.map((p) => `${x(p.agg_date).toFixed(1)},${y(p.pass_rate).toFixed(1)}`).join(' '), fill: 'none', stroke: colour, 'stroke-width': 2 }));
    }
    for (const p of points) {
      const cx = x(p.agg_date);
      const cy = y(p.pass_rate);
      const tip = s('title', null, `${check} ${p.agg_date}: ${Math.round(p.pass_rate * 100)}% of ${p.total_runs} runs, ${p.trend}`);
      if (p.trend === 'DEGRADING') svg.append(s('path', { d: `M${cx - 6},${cy - 5} L${cx + 6},${cy - 5} L${cx},${cy + 6} Z`, class: 'trend-degrading', dataset: { trend: 'DEGRADING' } }, tip));
      else if (p.trend === 'IMPROVING') svg.append(s('path', { d: `M${cx - 6},${cy + 5} L${cx + 6},${cy + 5} L${cx},${cy - 6} Z`, class: 'trend-improving', dataset: { trend: 'IMPROVING' } }, tip));
      else svg.append(s('circle', { cx, cy, r: 3.5, fill: colour }, tip));
    }
  }
  return { svg, colours };
}

/** The last `count` UTC days, oldest first, as YYYY-MM-DD (the API's days are UTC days). */
export function lastUtcDays(count, now = new Date()) {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: count }, (_, i) => new Date(today - (count - 1 - i) * 86_400_000).toISOString().slice(0, 10));
}
