// Rows of the OTLP benchmark: one load against one receiver (the service or the Collector),
// counted by the receiver's own figures, with CPU, threads and memory of the receiver. Each
// row holds the bench lock from its quiet-wait to its end, like every ingest row.
import { runLoad, type LoadResult } from '../load/run.ts';
import { otlpTracesTemplate } from '../load/otlp-body.ts';
import type { Party, RowSettings } from './ingest-measure.ts';
import { successes } from './ingest-measure.ts';
import { withBenchLock } from './lock.ts';
import { toolPath } from './otelcol.ts';
import { awaitQuiet, CpuWindow } from './proc.ts';
import { MemorySampler, ThreadWindow, type MemoryFigures } from './sampling.ts';
import { runMeasured } from './server.ts';
import { ROOT } from './ingest-service.ts';

export interface SpanRow {
  target: string;
  feed: string;
  repeat: number;
  command: string;
  spans: number;
  spans_per_s: number;
  cpu_cores: number;
  spans_per_cpu_s: number;
  threads: Record<string, number>;
  memory: Record<string, MemoryFigures>;
  generator_cpu_cores: number;
  machine_busy_cores: number;
  others_cores: number;
  busy_before_cores: number;
  /** Counter-based cross-check (whole run, warm-up included) where the row counts answers. */
  counted_by_receiver?: number;
  load?: LoadResult;
}

interface Receiver {
  target: string;
  party: Party;
  /** Spans the receiver says it accepted so far (its own counter). */
  spans: () => Promise<number>;
}

const r2 = (x: number) => Math.round(x * 100) / 100;

async function measured<T>(
  label: string,
  rcv: Receiver,
  set: RowSettings,
  work: (hooks: { start: () => void; end: () => void }) => Promise<T>,
): Promise<{ value: T; cpu: CpuWindow; threads: Record<string, number>; memory: Record<string, MemoryFigures>; busyBefore: number }> {
  return withBenchLock(label, async () => {
    const busyBefore = await awaitQuiet(set.quietCores, set.quietWaitS, set.log);
    set.log(label);
    const cpu = new CpuWindow([rcv.party.pid]);
    const tw = new ThreadWindow(rcv.party.pid);
    const mem = new MemorySampler({ [rcv.party.name]: rcv.party.pid });
    let threads: Record<string, number> = {};
    let memory: Record<string, MemoryFigures> = {};
    const value = await work({
      start: () => (cpu.start(), tw.start(), mem.start()),
      end: () => (cpu.end(), (threads = tw.end()), (memory = mem.stop())),
    });
    return { value, cpu, threads, memory, busyBefore };
  }, set.log);
}

/** Reads the counter until two reads 600 ms apart agree (the service flushes it every second). */
async function settled(read: () => Promise<number>): Promise<number> {
  let last = await read();
  for (let i = 0; i < 10; i++) {
    await new Promise((r) => setTimeout(r, 600));
    const now = await read();
    if (now === last) return now;
    last = now;
  }
  return last;
}

/** telemetrygen, OTLP/HTTP protobuf, at full speed for `set.durationS`. */
export async function telemetrygenRow(rcv: Receiver, o: { port: number; urlPath?: string; headers?: string[]; workers: number; repeat: number }, set: RowSettings): Promise<SpanRow> {
  const args = ['traces', '--otlp-http', '--otlp-insecure', '--otlp-endpoint', `127.0.0.1:${o.port}`, '--rate', '0', '--duration', `${set.durationS}s`, '--workers', String(o.workers)];
  if (o.urlPath) args.push('--otlp-http-url-path', o.urlPath);
  for (const h of o.headers ?? []) args.push('--otlp-header', h);
  const before = await settled(rcv.spans);
  const m = await measured(`${rcv.target}: telemetrygen, run ${o.repeat}`, rcv, set, async (h) => {
    h.start();
    const run = await runMeasured(toolPath(ROOT, 'telemetrygen'), args, (set.durationS + 30) * 1000);
    h.end();
    if (run.code !== 0) throw new Error(`telemetrygen failed (${run.code}):\n${run.stdout.slice(-2000)}`);
    return run;
  });
  const spans = (await settled(rcv.spans)) - before;
  const cpuS = m.cpu.cpuS(rcv.party.pid);
  const command = `telemetrygen ${args.join(' ')}`.replace(String(o.port), 'PORT').replace(/Bearer [^"]+/, 'Bearer <service token>');
  return row(rcv, `telemetrygen, OTLP/HTTP protobuf, ${o.workers} worker`, o.repeat, command, spans, m, cpuS, m.value.cpuS / m.cpu.wallS);
}

/** bench/load posting OTLP/HTTP JSON exports of `spansPerRequest` spans, max throughput. */
export async function otlpJsonRow(
  rcv: Receiver,
  o: { url: string; headers?: string[]; spansPerRequest: number; connections: number; repeat: number },
  set: RowSettings,
): Promise<SpanRow> {
  const before = await settled(rcv.spans);
  const m = await measured(`${rcv.target}: OTLP JSON, run ${o.repeat}`, rcv, set, (h) =>
    runLoad(
      { url: o.url, body: otlpTracesTemplate(o.spansPerRequest), headers: o.headers, mode: 'max', connections: o.connections, processes: set.processes, warmupS: set.warmupS, durationS: set.durationS, timeoutMs: 10_000 },
      { onWindowStart: h.start, onWindowEnd: h.end },
    ),
  );
  const counted = (await settled(rcv.spans)) - before;
  const spans = successes(m.value) * o.spansPerRequest;
  const cpuS = m.cpu.cpuS(rcv.party.pid);
  const command = `npx tsx bench/load/run.ts --url ${o.url.replace(/:\d+\//, ':PORT/')} --otlp-spans ${o.spansPerRequest} --connections ${o.connections} --warmup ${set.warmupS} --duration ${set.durationS}${o.headers?.length ? " --header 'authorization: Bearer <service token>'" : ''}`;
  return { ...row(rcv, `bench/load, OTLP/HTTP JSON, ${o.spansPerRequest} spans/request, ${o.connections} conn`, o.repeat, command, spans, m, cpuS, m.value.generator_cpu_cores), counted_by_receiver: counted, load: m.value };
}

function row(rcv: Receiver, feed: string, repeat: number, command: string, spans: number, m: Awaited<ReturnType<typeof measured>>, cpuS: number, genCores: number): SpanRow {
  const cores = cpuS / m.cpu.wallS;
  return {
    target: rcv.target,
    feed,
    repeat,
    command,
    spans,
    spans_per_s: Math.round(spans / m.cpu.wallS),
    cpu_cores: r2(cores),
    spans_per_cpu_s: cpuS > 0 ? Math.round(spans / cpuS) : 0,
    threads: m.threads,
    memory: m.memory,
    generator_cpu_cores: r2(genCores),
    machine_busy_cores: r2(m.cpu.machineBusyCores),
    others_cores: r2(Math.max(0, m.cpu.machineBusyCores - cores - genCores)),
    busy_before_cores: m.busyBefore,
  };
}
