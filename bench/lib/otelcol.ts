// The OpenTelemetry Collector baseline: how many spans per CPU-second a Collector (OTLP
// receiver -> nop exporter) accepts, fed once by telemetrygen (OTLP/HTTP protobuf) and once by
// bench/load with an OTLP/HTTP JSON body (the encoding our own endpoint takes).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { runLoad, type LoadResult } from '../load/run.ts';
import { otlpTracesTemplate } from '../load/otlp-body.ts';
import { CpuWindow } from './proc.ts';
import { freePort, runMeasured, startServer, type Started, type StartOptions } from './server.ts';

export interface CollectorMeasurement {
  label: string;
  command: string;
  duration_s: number;
  /** Spans the receiver accepted in the window (the Collector's own counter). */
  spans: number;
  spans_per_s: number;
  collector_cpu_s: number;
  collector_cpu_cores: number;
  spans_per_collector_cpu_s: number;
  generator_cpu_s: number;
  machine_busy_cores: number;
  /** Busy cores that were neither the Collector's nor the generator's: other people's. */
  others_cores: number;
  /** Busy cores just before the measurement (set by the caller). */
  busy_before_cores?: number;
  load?: LoadResult;
}

export interface Collector extends Started {
  metricsPort: number;
}

export function toolPath(root: string, name: string): string {
  const p = join(root, '.cache/bin', name);
  if (!existsSync(p)) throw new Error(`${p} is missing: run bash bench/tools.sh first`);
  return p;
}

export async function startCollector(root: string, wrap: (o: StartOptions) => StartOptions = (o) => o): Promise<Collector> {
  const [port, metricsPort] = [await freePort(), await freePort()];
  const s = await startServer(wrap({
    cmd: toolPath(root, 'otelcol-bench'),
    args: ['--config', join(root, 'bench/otelcol/config.yaml')],
    env: { OTELCOL_PORT: String(port), OTELCOL_METRICS_PORT: String(metricsPort) },
    port,
  }));
  return { ...s, metricsPort };
}

/** otelcol_receiver_accepted_spans, summed over transports. */
export async function acceptedSpans(metricsPort: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  let sum = 0;
  for (const m of text.matchAll(/^otelcol_receiver_accepted_spans(?:\{[^}]*\})? ([\d.e+]+)/gm)) sum += Number(m[1]);
  return sum;
}

function figures(label: string, command: string, durationS: number, spans: number, w: CpuWindow, pid: number, genCpuS: number) {
  const cpu = w.cpuS(pid);
  return {
    label,
    command,
    duration_s: durationS,
    spans,
    spans_per_s: Math.round(spans / w.wallS),
    collector_cpu_s: round(cpu),
    collector_cpu_cores: round(cpu / w.wallS),
    spans_per_collector_cpu_s: cpu > 0 ? Math.round(spans / cpu) : 0,
    generator_cpu_s: round(genCpuS),
    machine_busy_cores: round(w.machineBusyCores),
    others_cores: round(Math.max(0, w.machineBusyCores - (cpu + genCpuS) / w.wallS)),
  };
}

/** telemetrygen at full speed (--rate 0). Its SDK drops what it cannot export, so only the
 * Collector's accepted-spans counter is trusted, never telemetrygen's "traces generated". */
export async function measureTelemetrygen(root: string, c: Collector, durationS: number, workers: number): Promise<CollectorMeasurement> {
  const args = ['traces', '--otlp-http', '--otlp-insecure', '--otlp-endpoint', `127.0.0.1:${c.port}`, '--rate', '0', '--duration', `${durationS}s`, '--workers', String(workers)];
  const w = new CpuWindow([c.pid]);
  const before = await acceptedSpans(c.metricsPort);
  w.start();
  const run = await runMeasured(toolPath(root, 'telemetrygen'), args, (durationS + 20) * 1000);
  w.end();
  if (run.code !== 0) throw new Error(`telemetrygen failed (${run.code}):\n${run.stdout.slice(-2000)}`);
  const spans = (await acceptedSpans(c.metricsPort)) - before;
  const command = `telemetrygen ${args.join(' ').replace(String(c.port), 'PORT')}`;
  return figures(`telemetrygen, OTLP/HTTP protobuf, ${workers} worker(s)`, command, durationS, spans, w, c.pid, run.cpuS);
}

/** bench/load posting OTLP/HTTP JSON exports of `spansPerRequest` spans, max throughput. */
export async function measureOtlpJson(
  c: Collector,
  o: { durationS: number; warmupS: number; connections: number; processes: number; spansPerRequest: number },
): Promise<CollectorMeasurement> {
  const w = new CpuWindow([c.pid]);
  let before = 0;
  let after = 0;
  const load = await runLoad(
    {
      url: `http://127.0.0.1:${c.port}/v1/traces`,
      body: otlpTracesTemplate(o.spansPerRequest),
      mode: 'max',
      connections: o.connections,
      processes: o.processes,
      warmupS: o.warmupS,
      durationS: o.durationS,
      timeoutMs: 5000,
    },
    {
      // Hooks are synchronous; the counter is fetched right after, a few ms off the window.
      onWindowStart: () => {
        w.start();
        void acceptedSpans(c.metricsPort).then((n) => (before = n));
      },
      onWindowEnd: () => {
        w.end();
        void acceptedSpans(c.metricsPort).then((n) => (after = n));
      },
    },
  );
  await new Promise((r) => setTimeout(r, 200));
  const spans = after - before;
  const command = `npx tsx bench/load/run.ts --url http://127.0.0.1:PORT/v1/traces --otlp-spans ${o.spansPerRequest} --connections ${o.connections} --processes ${o.processes} --warmup ${o.warmupS} --duration ${o.durationS}`;
  return { ...figures(`bench/load, OTLP/HTTP JSON, ${o.spansPerRequest} spans/request`, command, o.durationS, spans, w, c.pid, load.generator_cpu_s), load };
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}
