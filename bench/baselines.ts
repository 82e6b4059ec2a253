// Baselines: what bare servers and an OpenTelemetry Collector do on this machine, so that the
// figures of our own ingest have a ceiling to be read against. Never run in CI.
//
//   bash bench/tools.sh                 # once: telemetrygen, otelcol-bench, wrk
//   npx tsx bench/baselines.ts [--duration 10] [--warmup 2] [--connections 64] [--processes 1]
//                              [--only uws,node,wrk,otelcol] [--out-dir bench/results]
//
// Writes bench/results/baselines-<date>.json and .md. Every measurement is warm-up + duration
// (≤ 20 s by default), aimed at 127.0.0.1 only.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { flagNumber, flagString, parseFlags } from './lib/args.ts';
import { describeMachine } from './lib/machine.ts';
import { measureOtlpJson, measureTelemetrygen, startCollector, type CollectorMeasurement } from './lib/otelcol.ts';
import { CpuWindow } from './lib/proc.ts';
import { renderMarkdown, type BaselinesReport, type HttpMeasurement, type WrkCheck } from './lib/report.ts';
import { runMeasured, startServer, tsServer, type Started } from './lib/server.ts';
import { runLoad } from './load/run.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const BODY_FILE = join(root, 'bench/load/bodies/quality-signal.json');
const PATH = '/api/v1/jobs/job-{{seq}}/quality';

interface Settings {
  durationS: number;
  warmupS: number;
  connections: number;
  processes: number;
}

async function measureHttp(name: string, s: Started, set: Settings, label: string, rate?: number): Promise<HttpMeasurement> {
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
  };
}

/** Max throughput, then fixed rate at 50 % and 80 % of it (latency under load that is met). */
async function serverSeries(name: string, file: string, set: Settings): Promise<HttpMeasurement[]> {
  const s = await startServer(tsServer(join(root, file)));
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
  const s = await startServer(tsServer(join(root, 'bench/baselines/bare-uws.ts')));
  try {
    const args = ['-t1', `-c${set.connections}`, `-d${set.durationS}s`, '-s', join(root, 'bench/load/wrk-post.lua'), `http://127.0.0.1:${s.port}${PATH.replace('{{seq}}', '1')}`, '--', BODY_FILE];
    const w = new CpuWindow([s.pid]);
    w.start();
    const run = await runMeasured('wrk', args, (set.durationS + 15) * 1000);
    w.end();
    const line = /^WRK_JSON (.*)$/m.exec(run.stdout);
    if (run.code !== 0 || !line) throw new Error(`wrk failed (${run.code}):\n${run.stdout.slice(-2000)}`);
    const r = JSON.parse(line[1]!) as Omit<WrkCheck, 'server' | 'command' | 'wrk_cpu_cores' | 'server_cpu_cores' | 'machine_busy_cores'>;
    return {
      server: 'bare-uws',
      command: `wrk -t1 -c${set.connections} -d${set.durationS}s -s bench/load/wrk-post.lua http://127.0.0.1:PORT/api/v1/jobs/job-1/quality -- bench/load/bodies/quality-signal.json`,
      ...r,
      wrk_cpu_cores: r2(run.cpuS / w.wallS),
      server_cpu_cores: r2(w.cpuS(s.pid) / w.wallS),
      machine_busy_cores: r2(w.machineBusyCores),
    };
  } finally {
    await s.stop();
  }
}

async function collectorSeries(set: Settings): Promise<CollectorMeasurement[]> {
  const c = await startCollector(root);
  try {
    // 1 worker: telemetrygen exports one batch at a time per process, and extra workers only
    // burn CPU on spans its SDK then drops (measured: 4 workers accepted fewer spans than 1).
    const tg = await measureTelemetrygen(root, c, set.durationS, 1);
    const json = await measureOtlpJson(c, { ...set, connections: Math.min(set.connections, 16), spansPerRequest: 100 });
    return [tg, json];
  } finally {
    await c.stop();
  }
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const flags = parseFlags(argv);
  const set: Settings = {
    durationS: flagNumber(flags, 'duration', 10),
    warmupS: flagNumber(flags, 'warmup', 2),
    connections: flagNumber(flags, 'connections', 64),
    processes: flagNumber(flags, 'processes', 1),
  };
  if (set.durationS + set.warmupS > 20) throw new Error('keep warm-up + duration ≤ 20 s: the machine is shared');
  const only = new Set(flagString(flags, 'only', 'uws,node,wrk,otelcol').split(','));
  const outDir = flagString(flags, 'out-dir', join(root, 'bench/results'));
  const machine = describeMachine();
  const log = (msg: string) => console.error(`[baselines] ${msg}`);

  const report: BaselinesReport = {
    machine,
    shared_machine_note:
      'The machine was shared with other engineers while measuring; "machine busy" counts every process, so busy cores above server + generator were someone else\'s.',
    command: `npx tsx bench/baselines.ts ${argv.join(' ')}`.trim(),
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
  const base = join(outDir, `baselines-${machine.date.slice(0, 10)}`);
  writeFileSync(`${base}.json`, JSON.stringify(report, null, 2) + '\n');
  writeFileSync(`${base}.md`, renderMarkdown(report));
  log(`wrote ${base}.json and .md`);
  console.log(renderMarkdown(report));
}

function r2(x: number): number {
  return Math.round(x * 100) / 100;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
