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
  /** Busy cores just before the measurement started (all other people's). */
  busy_before_cores: number;
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
  others_cores: number;
  busy_before_cores: number;
}

export interface BaselinesReport {
  machine: MachineInfo;
  shared_machine_note: string;
  command: string;
  /** With --pin: servers on CPU 0, load generators on CPU 1. */
  pinned: boolean;
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
    r.pinned ? '\nPinned: servers on CPU 0, load generators on CPU 1 (taskset).\n' : '',
  ];
  if (r.http.length) {
    out.push(
      '## Bare HTTP servers (POST JSON, parse, 202)',
      '',
      'Latency in ms. Rate rows: latency from the intended send time (coordinated-omission corrected); "service p50/p99" from the actual send. CPU in cores (1.0 = one core busy for the whole window); "others\' CPU" is what the rest of the machine used meanwhile (other people\'s work).',
      '',
      '| server | run | target rps | achieved rps | sustained | p50 | p90 | p99 | max | service p50/p99 | server CPU | req per server CPU-s | generator CPU | others\' CPU | errors / unsent |',
      '|---|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    );
    for (const m of r.http) {
      const l = m.load;
      const errs = Object.values(l.errors).reduce((a, b) => a + b, 0) + nonSuccess(l.statuses);
      const sustained = l.sustained === null ? '–' : l.sustained ? 'yes' : '**no**';
      const service = l.service_latency ? `${f(l.service_latency.p50_ms, 3)} / ${f(l.service_latency.p99_ms, 3)}` : '–';
      out.push(
        `| ${m.server} | ${m.label} | ${l.target_rps === null ? '–' : f(l.target_rps, 0)} | ${f(l.throughput_rps, 0)} | ${sustained} | ${f(l.latency.p50_ms, 3)} | ${f(l.latency.p90_ms, 3)} | ${f(l.latency.p99_ms, 3)} | ${f(l.latency.max_ms, 1)} | ${service} | ${f(m.server_cpu_cores)} | ${f(m.requests_per_server_cpu_s, 0)} | ${f(l.generator_cpu_cores)} | ${f(m.others_cores)} | ${errs} / ${l.unsent} |`,
      );
    }
    out.push('');
  }
  if (r.wrk.length) {
    out.push(
      '## Cross-check with wrk (C load generator), max throughput',
      '',
      '| server | command | rps | p50 | p99 | max | wrk CPU | server CPU | others\' CPU | errors |',
      '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    );
    for (const w of r.wrk) {
      out.push(
        `| ${w.server} | \`${w.command}\` | ${f(w.throughput_rps, 0)} | ${f(w.latency.p50_ms, 3)} | ${f(w.latency.p99_ms, 3)} | ${f(w.latency.max_ms, 1)} | ${f(w.wrk_cpu_cores)} | ${f(w.server_cpu_cores)} | ${f(w.others_cores)} | ${w.non_2xx_3xx + w.socket_errors} |`,
      );
    }
    out.push('', ...generatorCheck(r), '');
  }
  if (r.collector.length) {
    out.push(
      '## OpenTelemetry Collector (OTLP/HTTP receiver -> nop exporter)',
      '',
      '| feed | spans/s | collector CPU | spans per collector CPU-s | generator CPU-s | others\' CPU | command |',
      '|---|---:|---:|---:|---:|---:|---|',
    );
    for (const c of r.collector) {
      out.push(
        `| ${c.label} | ${f(c.spans_per_s, 0)} | ${f(c.collector_cpu_cores)} | ${f(c.spans_per_collector_cpu_s, 0)} | ${f(c.generator_cpu_s)} | ${f(c.others_cores)} | \`${c.command}\` |`,
      );
    }
    out.push('');
  }
  return out.join('\n');
}

function nonSuccess(statuses: Record<string, number>): number {
  return Object.entries(statuses).reduce((n, [k, v]) => (k.startsWith('2') ? n : n + v), 0);
}

/** Is bench/load the limit? Compare it with wrk on the same server: CPU per request of each
 * generator, and the throughput each gets. */
function generatorCheck(r: BaselinesReport): string[] {
  const ours = r.http.find((m) => m.server === 'bare-uws' && m.load.mode === 'max');
  const wrk = r.wrk.find((w) => w.server === 'bare-uws');
  if (!ours || !wrk) return [];
  const us = (cores: number, rps: number) => (rps > 0 ? f((cores / rps) * 1e6, 1) : '–');
  return [
    'Generator check (bare-uws, max): ' +
      `bench/load ${f(ours.load.throughput_rps, 0)} rps at ${us(ours.load.generator_cpu_cores, ours.load.throughput_rps)} µs generator CPU per request; ` +
      `wrk ${f(wrk.throughput_rps, 0)} rps at ${us(wrk.wrk_cpu_cores, wrk.throughput_rps)} µs; ` +
      `the server spends ${us(ours.server_cpu_cores, ours.load.throughput_rps)} µs per request.`,
  ];
}
