// Renders a baselines run as Markdown: the machine, the command, then one table per kind.
import type { LoadResult } from '../load/run.ts';
import type { CollectorMeasurement } from './otelcol.ts';
import { machineMarkdown, type MachineInfo } from './machine.ts';

export interface HttpMeasurement {
  server: string;
  label: string;
  load: LoadResult;
  server_cpu_s: number;
  /** Server CPU-seconds per second of the window; 1.0 = one core fully busy. */
  server_cpu_cores: number;
  requests_per_server_cpu_s: number;
  /** Every process on the machine, ours and other people's, in cores. */
  machine_busy_cores: number;
  /** What neither the server nor the generator used: other people's work, roughly. */
  others_cores: number;
}

export interface WrkCheck {
  server: string;
  command: string;
  throughput_rps: number;
  latency: Record<string, number>;
  non_2xx_3xx: number;
  socket_errors: number;
  wrk_cpu_cores: number;
  server_cpu_cores: number;
  machine_busy_cores: number;
}

export interface BaselinesReport {
  machine: MachineInfo;
  shared_machine_note: string;
  command: string;
  http: HttpMeasurement[];
  wrk: WrkCheck[];
  collector: CollectorMeasurement[];
}

const f = (x: number | undefined, d = 2) => (x === undefined ? '–' : x.toLocaleString('en-US', { maximumFractionDigits: d }));

export function renderMarkdown(r: BaselinesReport): string {
  const out: string[] = [
    `# Baselines, ${r.machine.date.slice(0, 10)}`,
    '',
    '## Machine',
    machineMarkdown(r.machine),
    `- ${r.shared_machine_note}`,
    '',
    '## Command',
    '```',
    r.command,
    '```',
    '',
  ];
  if (r.http.length) {
    out.push(
      '## Bare HTTP servers (POST JSON, parse, 202)',
      '',
      'Latency in ms. Rate rows: latency from the intended send time (coordinated-omission corrected); "service p50/p99" from the actual send. CPU in cores (1.0 = one core busy for the whole window).',
      '',
      '| server | run | target rps | achieved rps | p50 | p90 | p99 | max | service p50/p99 | server CPU | req per server CPU-s | generator CPU | machine busy | errors |',
      '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    );
    for (const m of r.http) {
      const l = m.load;
      const errs = Object.values(l.errors).reduce((a, b) => a + b, 0) + l.unsent + nonSuccess(l.statuses);
      const service = l.service_latency ? `${f(l.service_latency.p50_ms, 3)} / ${f(l.service_latency.p99_ms, 3)}` : '–';
      out.push(
        `| ${m.server} | ${m.label} | ${l.target_rps === null ? '–' : f(l.target_rps, 0)} | ${f(l.throughput_rps, 0)} | ${f(l.latency.p50_ms, 3)} | ${f(l.latency.p90_ms, 3)} | ${f(l.latency.p99_ms, 3)} | ${f(l.latency.max_ms, 1)} | ${service} | ${f(m.server_cpu_cores)} | ${f(m.requests_per_server_cpu_s, 0)} | ${f(l.generator_cpu_cores)} | ${f(m.machine_busy_cores)} | ${errs} |`,
      );
    }
    out.push('');
  }
  if (r.wrk.length) {
    out.push(
      '## Cross-check with wrk (C load generator), max throughput',
      '',
      '| server | command | rps | p50 | p99 | max | wrk CPU | server CPU | machine busy | errors |',
      '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    );
    for (const w of r.wrk) {
      out.push(
        `| ${w.server} | \`${w.command}\` | ${f(w.throughput_rps, 0)} | ${f(w.latency.p50_ms, 3)} | ${f(w.latency.p99_ms, 3)} | ${f(w.latency.max_ms, 1)} | ${f(w.wrk_cpu_cores)} | ${f(w.server_cpu_cores)} | ${f(w.machine_busy_cores)} | ${w.non_2xx_3xx + w.socket_errors} |`,
      );
    }
    out.push('');
  }
  if (r.collector.length) {
    out.push(
      '## OpenTelemetry Collector (OTLP/HTTP receiver -> nop exporter)',
      '',
      '| feed | spans/s | collector CPU | spans per collector CPU-s | generator CPU-s | machine busy | command |',
      '|---|---:|---:|---:|---:|---:|---|',
    );
    for (const c of r.collector) {
      out.push(
        `| ${c.label} | ${f(c.spans_per_s, 0)} | ${f(c.collector_cpu_cores)} | ${f(c.spans_per_collector_cpu_s, 0)} | ${f(c.generator_cpu_s)} | ${f(c.machine_busy_cores)} | \`${c.command}\` |`,
      );
    }
    out.push('');
  }
  return out.join('\n');
}

function nonSuccess(statuses: Record<string, number>): number {
  return Object.entries(statuses).reduce((n, [k, v]) => (k.startsWith('2') ? n : n + v), 0);
}
