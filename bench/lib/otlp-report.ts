// Markdown of the OTLP benchmark: the span rows of both receivers, then the common sections.
import { renderIngestReport, type IngestReport } from './ingest-report.ts';
import type { SpanRow } from './otlp-measure.ts';

const f = (x: number | undefined, d = 0) => (x === undefined ? '–' : x.toLocaleString('en-US', { maximumFractionDigits: d }));

export function renderSpanReport(r: IngestReport & { spans: SpanRow[] }): string {
  const rows = [
    'spans: accepted by the receiver in the window (its own counter for telemetrygen; 2xx answers × spans per request for bench/load, with the receiver\'s counter over the whole run, warm-up included, in brackets). CPU of the receiver in cores; spans per CPU-s = spans / receiver CPU-seconds.',
    '',
    '| receiver | feed | run | spans/s | receiver CPU | spans per CPU-s | threads (cores) | peak RSS MiB (HWM) | generator CPU | others\' CPU | latency p50/p99 ms | not ok |',
    '|---|---|---:|---:|---:|---:|---|---|---:|---:|---|---|',
  ];
  for (const s of r.spans) {
    const mem = Object.values(s.memory).map((m) => `${f(m.peak_rss_mib)} (${f(m.hwm_mib)})`).join(', ');
    const threads = Object.entries(s.threads).slice(0, 5).map(([k, v]) => `${k} ${f(v, 2)}`).join(', ');
    const lat = s.load ? `${f(s.load.latency.p50_ms, 1)} / ${f(s.load.latency.p99_ms, 1)}` : '–';
    const bad = s.load ? Object.entries(s.load.statuses).filter(([k]) => !k.startsWith('2')).map(([k, v]) => `${v}×${k}`).concat(Object.entries(s.load.errors).map(([k, v]) => `${v} ${k}`)).join(', ') || '0' : '–';
    const spans = s.counted_by_receiver === undefined ? f(s.spans_per_s) : `${f(s.spans_per_s)} [${f(s.counted_by_receiver)} counted]`;
    rows.push(`| ${s.target} | ${s.feed} | ${s.repeat} | ${spans} | ${f(s.cpu_cores, 2)} | ${f(s.spans_per_cpu_s)} | ${threads} | ${mem} | ${f(s.generator_cpu_cores, 2)} | ${f(s.others_cores, 2)} | ${lat} | ${bad} |`);
  }
  rows.push('', 'Commands:', '', ...[...new Set(r.spans.map((s) => `- ${s.target}: \`${s.command}\``))]);
  return renderIngestReport(r, rows);
}
