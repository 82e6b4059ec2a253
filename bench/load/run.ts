// Load generator: forks N load processes (worker.ts), each with its share of the connections
// and of the target rate, and merges their results into one JSON summary.
//
//   npx tsx bench/load/run.ts --url http://127.0.0.1:3000/v1/x --body-file bench/load/bodies/small.json \
//     [--mode max|rate] [--rate 20000] [--connections 64] [--processes 1] [--duration 10] \
//     [--warmup 2] [--timeout-ms 5000] [--header 'authorization: Bearer …'] [--method POST]
//   --otlp-spans N instead of --body-file sends an OTLP/HTTP JSON export of N spans (otlp-body.ts).
//
// Bounded by design: loopback targets only, at most 30 s measured, and every load process is
// killed if it has not reported shortly after its deadline.
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { flagNumber, flagString, parseFlags } from '../lib/args.ts';
import { Histogram, type LatencySummary } from './histogram.ts';
import { otlpTracesTemplate } from './otlp-body.ts';
import type { WorkerConfig, WorkerMessage, WorkerResult } from './worker.ts';

export interface LoadOptions {
  url: string;
  /** JSON body template (see request.ts for placeholders); empty for GET. */
  body: string;
  method?: string;
  headers?: string[];
  mode: 'max' | 'rate';
  /** Target requests/s over all processes (rate mode). */
  rate?: number;
  connections: number;
  processes: number;
  warmupS: number;
  durationS: number;
  timeoutMs: number;
}

export interface LoadHooks {
  /** Called when the first load process starts its measured window. */
  onWindowStart?: () => void;
  /** Called when every load process has ended its measured window. */
  onWindowEnd?: () => void;
}

export interface LoadResult {
  mode: 'max' | 'rate';
  url: string;
  target_rps: number | null;
  connections: number;
  processes: number;
  warmup_s: number;
  duration_s: number;
  /** Answered requests whose (intended) start fell in the measured window. */
  requests: number;
  throughput_rps: number;
  /** Max mode: from send to answer. Rate mode: from the intended send time (CO-corrected). */
  latency: LatencySummary;
  /** Rate mode only: from the actual send; latency minus this is the wait for a connection
   * plus the generator's own timer delay (Node timers tick at ~1 ms). */
  service_latency: LatencySummary | null;
  statuses: Record<string, number>;
  errors: Record<string, number>;
  /** Rate mode: requests due in the window that never found a free connection. */
  unsent: number;
  /** Rate mode: the target was met (≥ 98 % answered, no errors); always null in max mode. */
  sustained: boolean | null;
  /** CPU the load processes used in the window; cores = seconds / duration. */
  generator_cpu_s: number;
  generator_cpu_cores: number;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);
const MAX_DURATION_S = 30;

export function validate(o: LoadOptions): void {
  const host = new URL(o.url).hostname;
  if (!LOOPBACK.has(host)) throw new Error(`load is only ever aimed at loopback, not ${host}`);
  if (!(o.durationS > 0 && o.durationS <= MAX_DURATION_S)) throw new Error(`duration must be in (0, ${MAX_DURATION_S}] s`);
  if (!(o.warmupS >= 0 && o.warmupS <= 10)) throw new Error('warmup must be in [0, 10] s');
  if (!(o.processes >= 1 && o.processes <= 8)) throw new Error('processes must be in [1, 8]');
  if (!(o.connections >= o.processes && o.connections <= 2000)) throw new Error('connections must be in [processes, 2000]');
  if (o.mode === 'rate' && !(o.rate! > 0)) throw new Error('rate mode needs --rate > 0');
}

export async function runLoad(o: LoadOptions, hooks: LoadHooks = {}): Promise<LoadResult> {
  validate(o);
  const workerFile = fileURLToPath(new URL('./worker.ts', import.meta.url));
  // Load processes are TypeScript too; load tsx by absolute URL so any cwd works.
  const execArgv = ['--import', import.meta.resolve('tsx')];
  const children: ChildProcess[] = [];
  let started = 0;
  let ended = 0;
  const results: Promise<WorkerResult>[] = [];
  for (let w = 0; w < o.processes; w++) {
    const cfg: WorkerConfig = {
      worker: w,
      spec: { url: o.url, body: o.body, method: o.method, headers: o.headers },
      mode: o.mode,
      rate: (o.rate ?? 0) / o.processes,
      connections: Math.floor(o.connections / o.processes) + (w < o.connections % o.processes ? 1 : 0),
      warmupS: o.warmupS,
      durationS: o.durationS,
      timeoutMs: o.timeoutMs,
    };
    const child = fork(workerFile, [], { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    children.push(child);
    results.push(
      new Promise((resolve, reject) => {
        child.on('message', (m: WorkerMessage) => {
          if (m.type === 'window-start' && started++ === 0) hooks.onWindowStart?.();
          if (m.type === 'window-end' && ++ended === o.processes) hooks.onWindowEnd?.();
          if (m.type === 'result') resolve(m.result);
        });
        child.on('exit', (code) => reject(new Error(`load process ${w} exited with ${code} before reporting`)));
        child.send(cfg);
      }),
    );
  }
  const deadline = setTimeout(
    () => children.forEach((c) => c.kill('SIGKILL')),
    (o.warmupS + o.durationS) * 1000 + o.timeoutMs + 15_000,
  );
  try {
    return merge(o, await Promise.all(results));
  } finally {
    clearTimeout(deadline);
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  }
}

function merge(o: LoadOptions, rs: WorkerResult[]): LoadResult {
  const hist = new Histogram();
  const service = new Histogram();
  const statuses: Record<string, number> = {};
  const errors: Record<string, number> = {};
  let unsent = 0;
  let cpuS = 0;
  for (const r of rs) {
    hist.merge(r.hist);
    if (r.serviceHist) service.merge(r.serviceHist);
    for (const [k, v] of Object.entries(r.statuses)) statuses[k] = (statuses[k] ?? 0) + v;
    for (const [k, v] of Object.entries(r.errors)) errors[k] = (errors[k] ?? 0) + v;
    unsent += r.unsent;
    cpuS += r.cpuS;
  }
  const throughput = hist.count / o.durationS;
  const errorCount = Object.values(errors).reduce((a, b) => a + b, 0);
  const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;
  return {
    mode: o.mode,
    url: o.url,
    target_rps: o.mode === 'rate' ? o.rate! : null,
    connections: o.connections,
    processes: o.processes,
    warmup_s: o.warmupS,
    duration_s: o.durationS,
    requests: hist.count,
    throughput_rps: round(throughput),
    latency: hist.summary(),
    service_latency: o.mode === 'rate' ? service.summary() : null,
    statuses,
    errors,
    unsent,
    sustained: o.mode === 'rate' ? throughput >= 0.98 * o.rate! && errorCount === 0 : null,
    generator_cpu_s: round(cpuS, 2),
    generator_cpu_cores: round(cpuS / o.durationS, 2),
  };
}

export function optionsFromArgv(argv: string[]): LoadOptions {
  const f = parseFlags(argv);
  const bodyFile = f.get('body-file')?.at(-1);
  const otlpSpans = flagNumber(f, 'otlp-spans', 0);
  const body = otlpSpans > 0 ? otlpTracesTemplate(otlpSpans) : bodyFile ? readFileSync(bodyFile, 'utf8').trim() : flagString(f, 'body', '');
  return {
    url: flagString(f, 'url', 'http://127.0.0.1:3000/'),
    body,
    method: f.get('method')?.at(-1),
    headers: f.get('header') ?? [],
    mode: flagString(f, 'mode', 'max') === 'rate' ? 'rate' : 'max',
    rate: flagNumber(f, 'rate', 0),
    connections: flagNumber(f, 'connections', 64),
    processes: flagNumber(f, 'processes', 1),
    warmupS: flagNumber(f, 'warmup', 2),
    durationS: flagNumber(f, 'duration', 10),
    timeoutMs: flagNumber(f, 'timeout-ms', 5000),
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  runLoad(optionsFromArgv(process.argv.slice(2))).then(
    (r) => console.log(JSON.stringify(r, null, 2)),
    (err: unknown) => {
      console.error(String(err instanceof Error ? err.message : err));
      process.exit(1);
    },
  );
}
