// Scenario 1 of issue 7: single quality signals, POST /api/v1/jobs/{job_id}/quality, one signal
// per request (the body carries tokens and a model, so each also yields a cost event).
// Per run: the bare-uWS ceiling with the same body and connections, then the service in
// embedded mode (max, then fixed rate at 50 % and 80 % of it), then Kafka mode (an ingest and a
// workers process on a broker of our own) when a broker can be started. Never run in CI.
//
//   npx tsx bench/ingest-signals.ts [--repeat 2] [--duration 10] [--warmup 2] [--connections 1000]
//        [--only uws,embedded,kafka] [--kafka auto|on|off] [--profile auto|on|off] [--service-env K=V]... [--out-dir bench/results]
//
// Targets: ≥ 70 % of the bare-uWS max, 30,000 signals/s, p99 ack ≤ 10 ms at 50 % of max.
// Writes bench/results/ingest-signals-<date>.json and .md.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { flagString } from './lib/args.ts';
import { maxThenRates, measureRow, type IngestRow, type Party } from './lib/ingest-measure.ts';
import { fmt, parseIngestCli } from './lib/ingest-cli.ts';
import { collectProfile, profileRun } from './lib/ingest-profile.ts';
import { all, renderIngestReport, SHARED_NOTE, writeReport, type IngestReport, type ReportProfile, type TargetCheck } from './lib/ingest-report.ts';
import { freshDataDir, primeAgents, removeDataDir, ROOT, serviceCommand, startService, storedRows, revisionDuring, serviceRevision } from './lib/ingest-service.ts';
import { drain, ingestCounters, startBroker, startKafkaDeployment, type Broker, type KafkaDeployment } from './lib/kafka-bench.ts';
import { describeMachine } from './lib/machine.ts';
import { startServer, tsServer } from './lib/server.ts';

const log = (m: string) => console.error(`[ingest-signals] ${m}`);
const cli = parseIngestCli('ingest-signals.ts', 1000, log);
const BODY = readFileSync(path.join(ROOT, 'bench/load/bodies/quality-signal.json'), 'utf8').trim();
const PATH = '/api/v1/jobs/job-{{seq}}/quality';
const EMBEDDED = 'service (embedded)';
const KAFKA = 'service (Kafka: ingest + workers + broker)';

const spec = (port: number, repeat: number) => ({ url: `http://127.0.0.1:${port}${PATH}`, body: BODY, itemsPerRequest: 1, repeat });

async function bareUws(repeat: number): Promise<IngestRow> {
  const s = await startServer(tsServer(path.join(ROOT, 'bench/baselines/bare-uws.ts')));
  try {
    return await measureRow([{ name: 'bare-uws', pid: s.pid }], { ...spec(s.port, repeat), target: 'bare-uws', label: 'max', mode: 'max' }, cli.set);
  } finally {
    await s.stop();
  }
}

async function embedded(repeat: number, stored: Record<string, unknown>): Promise<IngestRow[]> {
  const dataDir = freshDataDir('signals');
  const svc = await startService({ name: 'service', dataDir, env: cli.serviceEnv });
  try {
    let rows: IngestRow[];
    try {
      await primeAgents(svc.port, cli.set.processes);
      rows = await maxThenRates([{ name: 'service', pid: svc.pid }], { ...spec(svc.port, repeat), target: EMBEDDED }, cli.set);
    } finally {
      await svc.stop();
    }
    const acked = rows.reduce((n, r) => n + r.items_per_s * cli.set.durationS, 0);
    stored[`embedded run ${repeat}`] = { acked_in_windows: acked, ...storedRows(dataDir, ['raw_signals', 'raw_cost_events']) };
    return rows;
  } finally {
    removeDataDir(dataDir);
  }
}

async function kafka(broker: Broker, repeat: number, stored: Record<string, unknown>): Promise<IngestRow[]> {
  const dep = await startKafkaDeployment(broker, `aorbench${repeat}x${Date.now().toString(36)}`, cli.serviceEnv);
  try {
    return await kafkaRows(broker, dep, repeat, stored);
  } finally {
    removeDataDir(dep.dataDir);
  }
}

async function kafkaRows(broker: Broker, dep: KafkaDeployment, repeat: number, stored: Record<string, unknown>): Promise<IngestRow[]> {
  let rows: IngestRow[];
  try {
    await primeAgents(dep.ingest.port, cli.set.processes);
    const parties: Party[] = [
      { name: 'ingest', pid: dep.ingest.pid },
      { name: 'workers', pid: dep.workers.pid },
      { name: 'broker', pid: broker.pid },
    ];
    rows = await maxThenRates(parties, { ...spec(dep.ingest.port, repeat), target: KAFKA }, cli.set);
    const counters = await ingestCounters(dep.ingest);
    const drained = await drain(dep.workers, counters.acked, 120);
    stored[`kafka run ${repeat}`] = { acked_events_total: counters.acked, timed_out_requests: counters.timedOut, refused_requests: counters.refused, drain_s: drained.seconds, loaded_events_total: drained.loaded };
  } finally {
    await dep.stop();
  }
  Object.assign(stored[`kafka run ${repeat}`] as object, storedRows(dep.dataDir, ['raw_signals', 'raw_cost_events']));
  return rows;
}

function checks(rows: IngestRow[], target: string): TargetCheck[] {
  const max = all(rows, target, 'max');
  const uws = all(rows, 'bare-uws', 'max');
  const half = all(rows, target, '50% of max');
  if (!max.length) return [{ target: `${target}: all targets`, goal: '–', measured: 'not measured', met: null }];
  const ratios = max.map((m) => m.items_per_s / (uws.find((u) => u.repeat === m.repeat)?.items_per_s ?? NaN));
  const measured = ratios.some(Number.isNaN) ? 'no bare-uWS row' : ratios.map((x) => `${fmt(x * 100, 1)} %`).join(' / ');
  return [
    { target: `${target}: share of the bare-uWS max (same run, same body and connections)`, goal: '≥ 70 %', measured, met: ratios.some(Number.isNaN) ? null : ratios.every((x) => x >= 0.7) },
    { target: `${target}: signals/s at max`, goal: '≥ 30,000', measured: max.map((m) => fmt(m.items_per_s)).join(' / '), met: max.every((m) => m.items_per_s >= 30_000) },
    { target: `${target}: p99 ack at 50 % of max`, goal: '≤ 10 ms', measured: half.map((h) => `${fmt(h.load.latency.p99_ms, 1)} ms at ${fmt(h.load.target_rps ?? 0)}/s`).join(' / '), met: half.length ? half.every((h) => h.load.latency.p99_ms <= 10 && h.load.sustained === true) : null },
  ];
}

async function main(): Promise<void> {
  const machine = describeMachine();
  const revision = serviceRevision();
  const only = new Set(flagString(cli.flags, 'only', 'uws,embedded,kafka').split(','));
  const kafkaMode = only.has('kafka') ? flagString(cli.flags, 'kafka', 'auto') : 'off';
  const rows: IngestRow[] = [];
  const stored: Record<string, unknown> = {};
  const profiles: ReportProfile[] = [];
  const notes: string[] = [
    `Connections: ${cli.set.connections} for max rows, bare-uWS included; ${cli.set.rateConnections} for fixed-rate rows. Each request waits for the group commit of its batch, so the service needs hundreds of requests in flight to reach its throughput (at 64 connections it managed about 1,200 signals/s in a trial), and a fixed rate needs rate × ack latency connections.`,
    'Each signal carries tokens and a model, so the service also stores one cost event per signal (two appends per request).',
  ];
  let broker: Broker | undefined;
  if (kafkaMode !== 'off') {
    try {
      broker = await startBroker();
    } catch (error) {
      if (kafkaMode === 'on') throw error;
      notes.push(`Kafka mode not measured: the broker did not start (${String(error).slice(0, 300)}).`);
    }
  }
  const report: IngestReport = {
    title: 'Ingest: single quality signals',
    machine,
    shared_machine_note: SHARED_NOTE,
    command: cli.command,
    service_revision: revision,
    settings: { ...cli.set, log: undefined, repeat: cli.repeat, path: PATH, body: 'bench/load/bodies/quality-signal.json' },
    processes: {
      'bare-uws': 'node --import tsx bench/baselines/bare-uws.ts 0',
      service: serviceCommand({ env: cli.serviceEnv }),
      ...(broker ? { 'Kafka mode': `bash scripts/kafka.sh start (own data dir, free port); workers: ${serviceCommand({ roles: 'workers', env: { ...cli.serviceEnv, KAFKA_BROKERS: '<broker>' } })}; ingest: ${serviceCommand({ roles: 'ingest', env: { ...cli.serviceEnv, KAFKA_BROKERS: '<broker>', DATABASE_URL: '<the workers\' PostgreSQL>' } })}` } : {}),
    },
    rows,
    checks: [],
    notes,
    stored,
    profiles,
  };
  try {
    for (let r = 1; r <= cli.repeat; r++) {
      if (only.has('uws')) rows.push(await bareUws(r));
      if (only.has('embedded')) rows.push(...(await embedded(r, stored)));
      if (broker) {
        try {
          rows.push(...(await kafka(broker, r, stored)));
        } catch (error) {
          if (kafkaMode === 'on') throw error;
          notes.push(`Kafka mode, run ${r}: not measured (${String(error).slice(0, 400)}).`);
          log(`kafka run ${r} failed: ${String(error)}`);
        }
      }
    }
    report.checks = [...checks(rows, EMBEDDED), ...checks(rows, KAFKA)];
    const missed = report.checks.some((c) => c.met === false);
    if (cli.profile === 'on' || (cli.profile === 'auto' && missed)) {
      if (only.has('embedded')) profiles.push(await profileEmbedded());
      if (broker && rows.some((r) => r.target === KAFKA)) profiles.push(await profileKafkaIngest(broker));
    }
  } finally {
    await broker?.stop();
  }
  report.service_revision = revisionDuring(revision);
  const base = writeReport(cli.outDir, cli.name, report);
  log(`wrote ${base}.json and .md`);
  console.log(renderIngestReport(report));
}

async function profileEmbedded(): Promise<ReportProfile> {
  log('profile pass (node --cpu-prof), embedded mode, max');
  const p = await profileRun({
    name: cli.name,
    dir: cli.profileDir,
    env: cli.serviceEnv,
    set: cli.set,
    spec: async (svc) => {
      await primeAgents(svc.port, cli.set.processes);
      return { ...spec(svc.port, 1), target: `${EMBEDDED}, profiled` };
    },
  });
  return { title: 'embedded service', file: path.relative(ROOT, p.profile), command: p.command, markdown: p.markdown, row: p.row };
}

/** The Kafka ingest process under --cpu-prof: what ingest costs without any chDB work. */
async function profileKafkaIngest(broker: Broker): Promise<ReportProfile> {
  log('profile pass (node --cpu-prof), Kafka ingest process, max');
  const t0 = Date.now();
  const dep = await startKafkaDeployment(broker, `aorbenchprof${Date.now().toString(36)}`, cli.serviceEnv, cli.profileDir);
  let row: IngestRow;
  try {
    try {
      await primeAgents(dep.ingest.port, cli.set.processes);
      const parties: Party[] = [{ name: 'ingest', pid: dep.ingest.pid }, { name: 'workers', pid: dep.workers.pid }, { name: 'broker', pid: broker.pid }];
      row = await measureRow(parties, { ...spec(dep.ingest.port, 1), target: `${KAFKA}, profiled`, label: 'max (profiled)', mode: 'max' }, cli.set);
    } finally {
      await dep.stop();
    }
  } finally {
    removeDataDir(dep.dataDir);
  }
  const command = serviceCommand({ roles: 'ingest', env: { ...cli.serviceEnv, KAFKA_BROKERS: '<broker>', DATABASE_URL: '<the workers\' PostgreSQL>' }, cpuProfDir: cli.profileDir });
  const p = collectProfile(cli.profileDir, dep.ingest.pid, t0, `${cli.name}-kafka-ingest`, command);
  return { title: 'Kafka ingest process', file: path.relative(ROOT, p.profile), command, markdown: p.markdown, row };
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
