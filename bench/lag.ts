// Ingest-to-queryable lag: the time from a quality signal's 202 until the dashboard's answers
// include it, the accuracy answer (its check) and the agent's cost answer (the cost event the
// signal's tokens make). One probe at a time, polled back to back through the API, while
// bench/load sends a moderate background of signals at a fixed rate.
//
//   npx tsx bench/lag.ts --data-dir checks-10m [--probes 150] [--rate 500] [--duration 25] [--connections 64]
//     [--kafka-brokers 127.0.0.1:19092]     # Kafka mode: `bash scripts/kafka.sh start` first
//
// Embedded mode: one process, every role (group commit straight into chDB). Kafka mode: an
// `--role ingest` process writing to the broker and an `--role api,workers` process loading
// from it into chDB (the only process that opens chDB), sharing the latter's PostgreSQL.
// Bounded: at most --probes probes, all inside one load window of at most 30 s. Target p95 <= 1 s.
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { runLoad, type LoadResult } from './load/run.ts';
import { flagNumber, flagString, parseFlags } from './lib/args.ts';
import { dataDirFor, ensureDir, ROOT } from './lib/bench-data.ts';
import { withBenchLock } from './lib/lock.ts';
import { describeMachine, machineMarkdown } from './lib/machine.ts';
import { CpuWindow } from './lib/proc.ts';
import { commandLine, fmt, percentiles, stamp, writeResults, type Percentiles } from './lib/results.ts';
import { createClient, startBenchService, type BenchClient, type BenchService } from './lib/service-child.ts';

const TARGET_P95_MS = 1000;

interface Deployment {
  mode: 'embedded' | 'kafka';
  ingestUrl: string;
  apiUrl: string;
  token: string;
  pids: number[];
  stop(): Promise<void>;
}

async function deploy(dataDir: string, brokers: string | undefined): Promise<Deployment> {
  if (!brokers) {
    const s = await startBenchService(dataDir);
    return { mode: 'embedded', ingestUrl: s.baseUrl, apiUrl: s.baseUrl, token: s.token, pids: [s.pid], stop: s.stop };
  }
  const prefix = `bench-lag-${randomBytes(3).toString('hex')}`;
  const kafkaEnv = { KAFKA_BROKERS: brokers, KAFKA_TOPIC_PREFIX: prefix, KAFKA_PARTITIONS: '3' };
  const loader: BenchService = await startBenchService(dataDir, kafkaEnv, ['--role', 'api,workers']);
  const pgUrl = (loader.db.pool.options as { connectionString?: string }).connectionString!;
  // The ingest process keeps its own (empty) data folder: it opens no chDB in Kafka mode.
  const ingestDir = path.join(path.dirname(dataDir), 'lag-ingest');
  ensureDir(ingestDir);
  let ingest: BenchService;
  try {
    ingest = await startBenchService(ingestDir, { ...kafkaEnv, DATABASE_URL: pgUrl }, ['--role', 'ingest']);
  } catch (error) {
    await loader.stop();
    throw error;
  }
  return {
    mode: 'kafka',
    ingestUrl: ingest.baseUrl,
    apiUrl: loader.baseUrl,
    token: loader.token,
    pids: [ingest.pid, loader.pid],
    async stop() {
      await ingest.stop();
      await loader.stop();
      rmSync(ingestDir, { recursive: true, force: true });
    },
  };
}

interface Probe {
  ack_ms: number;
  accuracy_ms: number | null;
  cost_ms: number | null;
  polls: number;
}

const probeBody = (agent: string, i: number) => ({
  agent_id: agent,
  job_id: `lag-${i}`,
  overall_passed: true,
  latency_ms: 100,
  model: 'gpt-4o-mini',
  token_input: 100,
  token_output: 20,
  checks: [{ check_id: 'lag_probe', severity: 'LOW', passed: true }],
});

interface Counter {
  accuracy(agentId: string): Promise<number>;
  cost(agentId: string): Promise<number>;
  rttMs: number[];
}

function counters(acc: BenchClient, cost: BenchClient): Counter {
  const rttMs: number[] = [];
  const get = async (client: BenchClient, p: string) => {
    const r = await client.get(p);
    rttMs.push(r.ms);
    if (r.status !== 200) throw new Error(`${p} answered ${r.status}: ${r.body.slice(0, 200)}`);
    return JSON.parse(r.body);
  };
  return {
    rttMs,
    // days=2: a run that crosses UTC midnight still counts yesterday's probes.
    accuracy: async (id) => (await get(acc, `/api/v1/agents/${id}/accuracy?days=2`) as { total_runs: number }[]).reduce((a, r) => a + r.total_runs, 0),
    cost: async (id) => ((await get(cost, `/api/v1/costs/agents/${id}?days=2`)) as { events: number }).events,
  };
}

/** Posts one probe and polls both answers back to back until each shows it (or the timeout). */
async function probe(ingest: BenchClient, c: Counter, agentExt: string, agentId: string, i: number, expect: number, timeoutMs: number): Promise<Probe> {
  const t0 = performance.now();
  const r = await ingest.post(`/api/v1/jobs/lag-${i}/quality`, probeBody(agentExt, i));
  if (r.status !== 202) throw new Error(`probe ${i} answered ${r.status}: ${r.body.slice(0, 200)}`);
  const ack = performance.now();
  const out: Probe = { ack_ms: ack - t0, accuracy_ms: null, cost_ms: null, polls: 0 };
  const until = ack + timeoutMs;
  const watch = async (count: () => Promise<number>, key: 'accuracy_ms' | 'cost_ms') => {
    while (performance.now() < until) {
      out.polls++;
      if ((await count()) >= expect) return void (out[key] = performance.now() - ack);
    }
  };
  await Promise.all([watch(() => c.accuracy(agentId), 'accuracy_ms'), watch(() => c.cost(agentId), 'cost_ms')]);
  return out;
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2));
  const dataDir = dataDirFor(flagString(flags, 'data-dir', 'checks-10m'));
  const probes = flagNumber(flags, 'probes', 150);
  const rate = flagNumber(flags, 'rate', 500);
  const durationS = Math.min(30, flagNumber(flags, 'duration', 25));
  const timeoutMs = flagNumber(flags, 'poll-timeout-ms', 10_000);
  // One request in flight per connection and a ~50-100 ms commit wait per answer: 500/s needs ~64.
  const connections = flagNumber(flags, 'connections', 64);
  const brokers = flags.get('kafka-brokers')?.at(-1) ?? undefined;
  const machine = describeMachine();
  const d = await deploy(dataDir, brokers);
  const [ingest, acc, cost] = [createClient(d.ingestUrl), createClient(d.apiUrl, d.token), createClient(d.apiUrl, d.token)];
  const c = counters(acc, cost);
  const agentExt = `bench-lag-probe-${randomBytes(3).toString('hex')}`;
  const results: Probe[] = [];
  let load: LoadResult | undefined;
  const cpu = new CpuWindow(d.pids);
  try {
    // Probe 0 registers the probe agent (a slower, once-only path): not counted.
    const first = await ingest.post('/api/v1/jobs/lag-0/quality', probeBody(agentExt, 0));
    const agentId = (JSON.parse(first.body) as { agent_id: string }).agent_id;
    const warm = await probe(ingest, c, agentExt, agentId, 1, 2, 30_000);
    if (warm.accuracy_ms === null || warm.cost_ms === null) throw new Error('the first probes never became visible');
    await withBenchLock(`lag ${d.mode}`, async () => {
      let windowOpen = false;
      let done: Promise<void> = Promise.resolve();
      const probing = async () => {
        for (let i = 2; i < probes + 2 && windowOpen; i++) {
          results.push(await probe(ingest, c, agentExt, agentId, i, i + 1, timeoutMs));
          await new Promise((r) => setTimeout(r, 20 + Math.random() * 80)); // off the commit ticks
        }
      };
      load = await runLoad(
        {
          url: `${d.ingestUrl}/api/v1/jobs/job-{{seq}}/quality`,
          body: readFileSync(path.join(ROOT, 'bench/load/bodies/quality-signal.json'), 'utf8'),
          mode: 'rate', rate, connections, processes: 1, warmupS: 2, durationS, timeoutMs: 5000,
        },
        {
          onWindowStart: () => ((windowOpen = true), cpu.start(), (done = probing())),
          onWindowEnd: () => ((windowOpen = false), cpu.end()),
        },
      );
      await done;
    });
  } finally {
    for (const x of [ingest, acc, cost]) x.close();
    await d.stop();
  }

  const ok = (k: 'accuracy_ms' | 'cost_ms') => results.map((p) => p[k]).filter((x): x is number => x !== null);
  const both = results.filter((p) => p.accuracy_ms !== null && p.cost_ms !== null).map((p) => Math.max(p.accuracy_ms!, p.cost_ms!));
  const summary = {
    accuracy_visible: percentiles(ok('accuracy_ms')),
    cost_visible: percentiles(ok('cost_ms')),
    both_visible: percentiles(both),
    post_ack: percentiles(results.map((p) => p.ack_ms)),
    poll_round_trip: percentiles(c.rttMs),
    never_visible: results.length - both.length,
    /** Probes whose first poll of both answers already showed them: the lag is below one poll. */
    visible_on_first_poll: results.filter((p) => p.polls === 2 && p.accuracy_ms !== null && p.cost_ms !== null).length,
  };
  const report = {
    machine, command: commandLine(), mode: d.mode, data_dir: path.relative(ROOT, dataDir), probes: results.length, background_rate: rate,
    service_cpu_cores: d.pids.map((p) => Math.round((cpu.cpuS(p) / (cpu.wallS || 1)) * 100) / 100),
    machine_busy_cores: Math.round(cpu.machineBusyCores * 100) / 100,
    ...summary,
    load: load && { throughput_rps: load.throughput_rps, latency: load.latency, statuses: load.statuses, errors: load.errors, sustained: load.sustained },
    samples: results,
  };
  const row = (name: string, p: Percentiles) => `| ${name} | ${p.n} | ${fmt(p.p50_ms)} | ${fmt(p.p95_ms)} | ${fmt(p.p99_ms)} | ${fmt(p.max_ms)} |`;
  const md = [
    `# Ingest-to-queryable lag, ${d.mode} mode`, '', '## Machine', machineMarkdown(machine), '', '## Command', '```', report.command, '```', '',
    `Data: \`${report.data_dir}\`. ${results.length} probes, one at a time, during ${durationS} s of background load at ${rate} signals/s ` +
      `over ${connections} connections (achieved ${fmt(load?.throughput_rps, 0)}/s, p99 ${fmt(load?.latency.p99_ms)} ms, statuses ${JSON.stringify(load?.statuses)}). ` +
      `Service CPU ${report.service_cpu_cores.join(' + ')} cores; machine ${report.machine_busy_cores} busy cores. ` +
      `Lag runs from the probe's 202 to the receipt of the first answer that includes it; answers are polled back to back, ` +
      `so the resolution is one poll round trip. Target: p95 ≤ ${TARGET_P95_MS} ms (${summary.both_visible.p95_ms <= TARGET_P95_MS && summary.never_visible === 0 ? 'met' : '**missed**'}).`,
    '', '| figure | n | p50 ms | p95 ms | p99 ms | max ms |', '|---|---:|---:|---:|---:|---:|',
    row('visible in accuracy', summary.accuracy_visible), row('visible in agent cost', summary.cost_visible),
    row('visible in both', summary.both_visible), row('POST to 202', summary.post_ack), row('one poll (GET)', summary.poll_round_trip),
    '', `Never visible within ${timeoutMs} ms: ${summary.never_visible}. Visible on the first poll of both answers: ${summary.visible_on_first_poll} of ${results.length}.`,
  ].join('\n');
  const files = writeResults(`lag-${d.mode}-${stamp()}`, report, md);
  console.error(`[lag] ${JSON.stringify(summary)}\n[lag] wrote ${files.join(', ')}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
