// Baselines: what bare servers and an OpenTelemetry Collector do on this machine, so that the
// figures of our own ingest have a ceiling to be read against. Never run in CI.
//
//   bash bench/tools.sh                 # once: telemetrygen, otelcol-bench, wrk
//   npx tsx bench/baselines.ts [--duration 10] [--warmup 2] [--connections 64] [--processes 1]
//                              [--only uws,node,wrk,otelcol] [--out-dir bench/results] [--pin]
//                              [--quiet-cores 0.3] [--quiet-wait 30]
//
// Before each measurement it waits (up to --quiet-wait s) for the rest of the machine to use
// fewer than --quiet-cores cores: the machine is shared, and a test run next door halves a
// figure. Each row records what the others used before and during it.
//
// --pin puts servers on CPU 0 and this process with its load generators on CPU 1 (taskset),
// so a server at ~1.0 core beside a generator below 1.0 shows the server is the limit.
//
// Writes bench/results/baselines-<date>[-pinned].json and .md. Every measurement is warm-up + duration
// (≤ 20 s by default), aimed at 127.0.0.1 only.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { flagNumber, flagString, parseFlags } from './lib/args.ts';
import { describeMachine } from './lib/machine.ts';
import { measureOtlpJson, measureTelemetrygen, startCollector, type CollectorMeasurement } from './lib/otelcol.ts';
import { awaitQuiet, CpuWindow } from './lib/proc.ts';
import { renderMarkdown, type BaselinesReport, type HttpMeasurement, type WrkCheck } from './lib/report.ts';
import { runMeasured, startServer, tsServer, type Started, type StartOptions } from './lib/server.ts';
import { runLoad } from './load/run.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const BODY_FILE = join(root, 'bench/load/bodies/quality-signal.json');
const PATH = '/api/v1/jobs/job-{{seq}}/quality';

interface Settings {
  /** Wraps a server's command line, e.g. to pin it to a CPU. */
  wrap: (o: StartOptions) => StartOptions;
  durationS: number;
  warmupS: number;
  connections: number;
  processes: number;
  /** Before each measurement: wait until others use less than this many cores... */
  quietCores: number;
  /** ...but no longer than this. */
  quietWaitS: number;
  log: (m: string) => void;
}

/** Busy cores (others' work, since ours is idle then) just before a measurement. */
function beforeMeasuring(set: Settings): Promise<number> {
  return awaitQuiet(set.quietCores, set.quietWaitS, set.log);
}

async function measureHttp(name: string, s: Started, set: Settings, label: string, rate?: number): Promise<HttpMeasurement> {
  const busyBefore = await beforeMeasuring(set);
  const w = new CpuWindow([s.pid]);
  const load = await runLoad(
    {
      url: `http://127.0.0.1:${s.port}${PATH}`,
      body: readFileSync(BODY_FILE, 'utf8').trim(),
      mode: rate ? 'rate' : 'max',
      rate,
      connections: set.connections,
      processes: set.processes,
      warmupS: set.warmupS,
      durationS: set.durationS,
      timeoutMs: 5000,
    },
    { onWindowStart: () => w.start(), onWindowEnd: () => w.end() },
  );
  const cpu = w.cpuS(s.pid);
  const cores = cpu / w.wallS;
  return {
    server: name,
    label,
    load,
    server_cpu_s: r2(cpu),
    server_cpu_cores: r2(cores),
    requests_per_server_cpu_s: cpu > 0 ? Math.round(load.requests / cpu) : 0,
    machine_busy_cores: r2(w.machineBusyCores),
    others_cores: r2(Math.max(0, w.machineBusyCores - cores - load.generator_cpu_cores)),
    busy_before_cores: busyBefore,
  };
}

/** Max throughput, then fixed rate at 50 % and 80 % of it (latency under load that is met). */
async function serverSeries(name: string, file: string, set: Settings): Promise<HttpMeasurement[]> {
  const s = await startServer(set.wrap(tsServer(join(root, file))));
  try {
    const max = await measureHttp(name, s, set, 'max');
    const out = [max];
    for (const share of [0.5, 0.8]) {
      const rate = Math.round(max.load.throughput_rps * share);
      out.push(await measureHttp(name, s, set, `${share * 100}% of max`, rate));
    }
    return out;
  } finally {
    await s.stop();
  }
}

/** The same server under wrk: if a C generator gets no more out of it, ours is not the limit. */
async function wrkCheck(set: Settings): Promise<WrkCheck> {
  const s = await startServer(set.wrap(tsServer(join(root, 'bench/baselines/bare-uws.ts'))));
  try {
    const args = ['-t1', `-c${set.connections}`, `-d${set.durationS}s`, '-s', join(root, 'bench/load/wrk-post.lua'), `http://127.0.0.1:${s.port}`, '--', BODY_FILE, PATH];
    const busyBefore = await beforeMeasuring(set);
    const w = new CpuWindow([s.pid]);
    w.start();
    const run = await runMeasured('wrk', args, (set.durationS + 15) * 1000);
    w.end();
    const line = /^WRK_JSON (.*)$/m.exec(run.stdout);
    if (run.code !== 0 || !line) throw new Error(`wrk failed (${run.code}):\n${run.stdout.slice(-2000)}`);
    const r = JSON.parse(line[1]!) as Omit<WrkCheck, 'server' | 'command' | 'wrk_cpu_cores' | 'server_cpu_cores' | 'machine_busy_cores'>;
    return {
      server: 'bare-uws',
      command: `wrk -t1 -c${set.connections} -d${set.durationS}s -s bench/load/wrk-post.lua http://127.0.0.1:PORT -- bench/load/bodies/quality-signal.json '${PATH}'`,
      ...r,
      wrk_cpu_cores: r2(run.cpuS / w.wallS),
      server_cpu_cores: r2(w.cpuS(s.pid) / w.wallS),
      machine_busy_cores: r2(w.machineBusyCores),
      others_cores: r2(Math.max(0, w.machineBusyCores - (run.cpuS + w.cpuS(s.pid)) / w.wallS)),
      busy_before_cores: busyBefore,
    };
  } finally {
    await s.stop();
  }
}

async function collectorSeries(set: Settings): Promise<CollectorMeasurement[]> {
  const c = await startCollector(root, set.wrap);
  try {
    // 1 worker: telemetrygen exports one batch at a time per process, and extra workers only
    // burn CPU on spans its SDK then drops (measured: 4 workers accepted fewer spans than 1).
    const tgBusy = await beforeMeasuring(set);
    const tg = await measureTelemetrygen(root, c, set.durationS, 1);
    const jsonBusy = await beforeMeasuring(set);
    const json = await measureOtlpJson(c, { ...set, connections: Math.min(set.connections, 16), spansPerRequest: 100 });
    return [
      { ...tg, busy_before_cores: tgBusy },
      { ...json, busy_before_cores: jsonBusy },
    ];
  } finally {
    await c.stop();
  }
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const flags = parseFlags(argv);
  const pin = flags.has('pin');
  if (pin) pinSelf();
  const log = (msg: string) => console.error(`[baselines] ${msg}`);
  const set: Settings = {
    quietCores: flagNumber(flags, 'quiet-cores', 0.3),
    quietWaitS: flagNumber(flags, 'quiet-wait', 30),
    log,
    wrap: pin ? (o) => ({ ...o, cmd: 'taskset', args: ['-c', '0', o.cmd, ...o.args] }) : (o) => o,
    durationS: flagNumber(flags, 'duration', 10),
    warmupS: flagNumber(flags, 'warmup', 2),
    connections: flagNumber(flags, 'connections', 64),
    processes: flagNumber(flags, 'processes', 1),
  };
  if (set.durationS + set.warmupS > 20) throw new Error('keep warm-up + duration ≤ 20 s: the machine is shared');
  const only = new Set(flagString(flags, 'only', 'uws,node,wrk,otelcol').split(','));
  const outDir = flagString(flags, 'out-dir', join(root, 'bench/results'));
  const machine = describeMachine();

  const report: BaselinesReport = {
    machine,
    shared_machine_note:
      'The machine was shared with other engineers while measuring: "others\' CPU" is the CPU the rest of the machine used during each row.',
    command: `npx tsx bench/baselines.ts ${argv.join(' ')}`.trim(),
    pinned: pin,
    http: [],
    wrk: [],
    collector: [],
  };
  if (only.has('uws')) {
    log('bare-uws: max, 50 %, 80 %');
    report.http.push(...(await serverSeries('bare-uws', 'bench/baselines/bare-uws.ts', set)));
  }
  if (only.has('node')) {
    log('bare-node-http: max, 50 %, 80 %');
    report.http.push(...(await serverSeries('bare-node-http', 'bench/baselines/bare-node-http.ts', set)));
  }
  if (only.has('wrk')) {
    log('wrk cross-check against bare-uws');
    report.wrk.push(await wrkCheck(set));
  }
  if (only.has('otelcol')) {
    log('collector: telemetrygen, then OTLP JSON');
    report.collector.push(...(await collectorSeries(set)));
  }

  mkdirSync(outDir, { recursive: true });
  const base = join(outDir, `baselines-${machine.date.slice(0, 10)}${pin ? '-pinned' : ''}`);
  writeFileSync(`${base}.json`, JSON.stringify(report, null, 2) + '\n');
  writeFileSync(`${base}.md`, renderMarkdown(report));
  log(`wrote ${base}.json and .md`);
  console.log(renderMarkdown(report));
}

/** This process, and so the load processes and wrk it starts, onto CPU 1 (servers get CPU 0). */
function pinSelf(): void {
  const r = spawnSync('taskset', ['-a', '-p', '-c', '1', String(process.pid)], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`--pin needs taskset and 2 CPUs: ${r.stderr || r.error}`);
}

function r2(x: number): number {
  return Math.round(x * 100) / 100;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
