// p50/p95 of the dashboard's questions on a data folder made by bench/bulk-generate.ts:
// directly on the store with the materialized views (the shipped reads) and without them (the
// same aggregates over the raw tables, bench/dashboard-raw.ts; answers asserted equal on a
// sample), then through the HTTP API of the real service (--role api) on the same folder.
// A profile step replays every query once more on a bare chDB session for rows and bytes read.
//
//   npx tsx bench/dashboard-queries.ts --data-dir checks-10m [--iterations 40] [--max-seconds 15]
//     [--warmup 3] [--skip-raw] [--skip-http] [--skip-profile] [--only heatmap_30d,...] [--cpu-prof]
//
// Every measured row runs under the machine-wide benchmark lock. Target: view-backed p95 <= 100 ms.
import { deepStrictEqual } from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createAnalyticsStore, type AnalyticsStore } from '../lib/analytics/store.ts';
import { createDatabase, type Database } from '../lib/postgres/database.ts';
import { startEmbeddedPostgres } from '../lib/postgres/embedded.ts';
import { MANIFEST, tableSizes, type Manifest } from './bulk-generate.ts';
import { recording, withoutViews, type RecordedQuery } from './dashboard-raw.ts';
import { flagNumber, flagString, parseFlags } from './lib/args.ts';
import { countLabel, dataDirFor, quietLogger, ROOT } from './lib/bench-data.ts';
import { dashboardQuestions, type Question } from './lib/dashboard-questions.ts';
import { renderDashboardMarkdown, type DashboardReport, type ProfileRow, type Row } from './lib/dashboard-report.ts';
import { withBenchLock } from './lib/lock.ts';
import { describeMachine } from './lib/machine.ts';
import { CpuWindow } from './lib/proc.ts';
import { commandLine, percentiles, stamp, writeResults } from './lib/results.ts';
import { createClient, startBenchService } from './lib/service-child.ts';

interface LoopOptions {
  iterations: number;
  maxSeconds: number;
  warmup: number;
}

const MIN_SAMPLES = 5;

/** Warm-up calls, then timed calls until `iterations` or `maxSeconds` (at least 5 samples).
 * `cpu` (optional) brackets the timed calls, so a row can say how busy the machine was. */
async function timeLoop(call: (i: number) => Promise<void>, o: LoopOptions, cpu?: CpuWindow): Promise<number[]> {
  for (let i = 0; i < o.warmup; i++) await call(i);
  const samples: number[] = [];
  cpu?.start();
  const t0 = performance.now();
  for (let i = 0; i < o.iterations; i++) {
    const elapsedS = (performance.now() - t0) / 1000;
    if (elapsedS > o.maxSeconds && samples.length >= MIN_SAMPLES) break;
    if (elapsedS > o.maxSeconds * 4) break;
    const t = performance.now();
    await call(i);
    samples.push(performance.now() - t);
  }
  cpu?.end();
  return samples;
}

/** The views and the raw-table queries must give the same answers (10 calls of each). */
async function verify(questions: Question[], store: AnalyticsStore, db: Database): Promise<number> {
  const raw = withoutViews(store);
  let compared = 0;
  for (const q of questions.filter((x) => x.analytics)) {
    for (let i = 0; i < (q.id === 'accuracy_30d' ? 10 : 1); i++) {
      const now = new Date();
      const [a, b] = [await q.direct({ store, db, now }, i), await q.direct({ store: raw, db, now }, i)];
      deepStrictEqual(b, a, `${q.id} call ${i}: raw tables and views disagree`);
      if (Array.isArray(a) && a.length === 0) throw new Error(`${q.id} call ${i}: empty answer, nothing compared`);
      compared++;
    }
  }
  return compared;
}

/** The embedded PostgreSQL's postmaster (its backends are not counted: a small share). */
function pgPid(dataDir: string): number {
  return Number(readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
}

/** Busy cores machine-wide in the window, and how many of them were not this benchmark's. */
function busy(cpu: CpuWindow, pids: number[]): { machine_busy_cores: number; others_cores: number } {
  const ours = pids.reduce((a, p) => a + cpu.cpuS(p), 0) / (cpu.wallS || 1);
  const r = (x: number) => Math.round(x * 100) / 100;
  return { machine_busy_cores: r(cpu.machineBusyCores), others_cores: r(Math.max(0, cpu.machineBusyCores - ours)) };
}

async function directPhase(dataDir: string, questions: Question[], o: LoopOptions, skipRaw: boolean) {
  const pg = await startEmbeddedPostgres(dataDir, quietLogger());
  const db = createDatabase(pg.url, { max: 2 });
  const store = createAnalyticsStore({ dataDir, logger: quietLogger() });
  await store.start();
  const rows: Row[] = [];
  const recorded = new Map<string, RecordedQuery[]>();
  try {
    const tables = await tableSizes(store);
    const compared = skipRaw ? 0 : await withBenchLock('verify views = raw', () => verify(questions, store, db));
    console.error(`[dashboard] views and raw tables agree on ${compared} answers`);
    for (const q of questions) {
      const variants: Array<['views' | 'raw' | 'postgres', AnalyticsStore]> = q.analytics
        ? [['views', store], ...(skipRaw ? [] : [['raw', withoutViews(store)] as ['raw', AnalyticsStore]])]
        : [['postgres', store]];
      for (const [variant, s] of variants) {
        let size = 0;
        const pids = [process.pid, pgPid(dataDir)];
        const cpu = new CpuWindow(pids);
        const samples = await withBenchLock(`${q.id} ${variant}`, () =>
          timeLoop(async (i) => {
            const answer = await q.direct({ store: s, db, now: new Date() }, i);
            size = Array.isArray(answer) ? answer.length : 1;
          }, o, cpu),
        );
        rows.push({ question: q.id, label: q.label, via: 'store', variant, answer_rows: size, ...percentiles(samples), ...busy(cpu, pids) });
        console.error(`[dashboard] store ${q.id} ${variant}: ${JSON.stringify(percentiles(samples))}`);
        if (q.analytics) {
          const into: RecordedQuery[] = [];
          const rec = variant === 'raw' ? withoutViews(recording(store, into)) : recording(store, into);
          await q.direct({ store: rec, db, now: new Date() }, 0);
          recorded.set(`${q.id} ${variant}`, into);
        }
      }
    }
    return { rows, recorded, tables, compared };
  } finally {
    await store.stop();
    await db.close();
    await pg.stop();
  }
}

/** Replays each recorded query on a bare chDB session: engine time and what it has to read. */
async function profilePhase(dataDir: string, recorded: Map<string, RecordedQuery[]>): Promise<ProfileRow[]> {
  const { Session } = await import('chdb');
  const session = new Session(path.join(dataDir, 'chdb'), { connectionArgs: ['--output_format_json_quote_64bit_integers=0'] });
  const out: ProfileRow[] = [];
  try {
    await session.queryAsync('USE agent_ops');
    await withBenchLock('profile', async () => {
      for (const [key, queries] of recorded) {
        for (const [n, q] of queries.entries()) {
          const run = (sql: string) =>
            Object.keys(q.params).length ? session.queryBindAsync(sql, q.params, { format: 'JSONEachRow' }) : session.queryAsync(sql, { format: 'JSONEachRow' });
          let best = Infinity;
          for (let i = 0; i < 3; i++) best = Math.min(best, (await run(q.sql)).elapsed);
          // chDB reports result rows, not rows read; EXPLAIN ESTIMATE gives what the primary key
          // and partition pruning leave to read, per table.
          const est = (await run(`EXPLAIN ESTIMATE ${q.sql}`)).text().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { table: string; parts: number; rows: number; marks: number });
          out.push({
            query: `${key} #${n + 1}`,
            engine_ms: Math.round(best * 1e5) / 100,
            tables: est.map((e) => e.table).join(', '),
            rows_to_read: est.reduce((a, e) => a + Number(e.rows), 0),
            parts: est.reduce((a, e) => a + Number(e.parts), 0),
            marks: est.reduce((a, e) => a + Number(e.marks), 0),
          });
        }
      }
    });
  } finally {
    session.close();
  }
  return out;
}

async function httpPhase(dataDir: string, questions: Question[], o: LoopOptions, cpuProfDir?: string): Promise<Row[]> {
  // --role api: the reads tier alone, so the workers' 30-second observation sync does not run
  // inside a measured window (it is part of the lag benchmark's background instead).
  const nodeArgs = cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${cpuProfDir}`] : [];
  const service = await startBenchService(dataDir, {}, ['--role', 'api'], nodeArgs);
  const client = createClient(service.baseUrl, service.token);
  const rows: Row[] = [];
  try {
    for (const q of questions) {
      let bytes = 0;
      const pids = [process.pid, service.pid, pgPid(dataDir)];
      const cpu = new CpuWindow(pids);
      const samples = await withBenchLock(`http ${q.id}`, () =>
        timeLoop(async (i) => {
          const r = await client.get(q.httpPath(i));
          if (r.status !== 200) throw new Error(`${q.httpPath(i)} answered ${r.status}: ${r.body.slice(0, 300)}`);
          bytes = r.body.length;
        }, o, cpu),
      );
      rows.push({ question: q.id, label: q.label, via: 'http', variant: q.analytics ? 'views' : 'postgres', answer_bytes: bytes, ...percentiles(samples), ...busy(cpu, pids) });
      console.error(`[dashboard] http ${q.id}: ${JSON.stringify(percentiles(samples))}`);
    }
  } finally {
    client.close();
    await service.stop();
  }
  return rows;
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2));
  const dataDir = dataDirFor(flagString(flags, 'data-dir', 'checks-10m'));
  const o: LoopOptions = { iterations: flagNumber(flags, 'iterations', 40), maxSeconds: flagNumber(flags, 'max-seconds', 15), warmup: flagNumber(flags, 'warmup', 3) };
  const manifest = JSON.parse(readFileSync(path.join(dataDir, MANIFEST), 'utf8')) as Manifest;
  const machine = describeMachine();
  const only = flags.get('only')?.at(-1)?.split(',');
  const questions = dashboardQuestions(manifest.agents).filter((q) => !only || only.includes(q.id));
  // --cpu-prof: the service writes a V8 CPU profile of the HTTP phase (bench/results/*.cpuprofile
  // is gitignored); summarise it with bench/lib/profile-summary.ts.
  const cpuProfDir = flags.has('cpu-prof') ? path.join(ROOT, 'bench/results') : undefined;

  const direct = await directPhase(dataDir, questions, o, flags.has('skip-raw'));
  const profile = flags.has('skip-profile') ? [] : await profilePhase(dataDir, direct.recorded);
  const http = flags.has('skip-http') ? [] : await httpPhase(dataDir, questions, o, cpuProfDir);

  const report: DashboardReport = {
    machine,
    command: commandLine(),
    data_dir: path.relative(ROOT, dataDir),
    manifest,
    loop: o,
    tables: direct.tables,
    verified_answers: direct.compared,
    rows: [...direct.rows, ...http],
    profile,
  };
  const files = writeResults(`dashboard-queries-${countLabel(manifest.checks)}-${stamp()}`, report, renderDashboardMarkdown(report));
  console.error(`[dashboard] wrote ${files.join(', ')}`);
}

if (process.argv[1]?.endsWith('dashboard-queries.ts')) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
