// Writes a synthetic history straight into the analytics store of a data folder: N check
// results (4 per signal), their signals and one cost event per signal over 90 days, plus the
// agents in PostgreSQL. The materialized views fill as the inserts run, exactly as at ingest.
// Inserts go in chunks (default 1M signals = 4M check rows) so memory stays bounded.
//
//   npx tsx bench/bulk-generate.ts --checks 10000000 [--agents 2000] [--days 90]
//     [--data-dir checks-10m] [--chunk-signals 1000000] [--fresh]
//
// The data folder lives under .cache/bench-data/ (gitignored); delete it when done. Heavy work
// runs under the machine-wide benchmark lock (bench/lib/lock.ts).
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createAnalyticsStore, type AnalyticsStore } from '../lib/analytics/store.ts';
import { createDatabase } from '../lib/postgres/database.ts';
import { startEmbeddedPostgres } from '../lib/postgres/embedded.ts';
import { migrate } from '../lib/postgres/migrate.ts';
import { flagNumber, flagString, parseFlags } from './lib/args.ts';
import { CHECKS_PER_SIGNAL, countLabel, dataDirFor, ensureDir, freeDiskGiB, quietLogger, ROOT } from './lib/bench-data.ts';
import { insertAgentsPgSql, insertChecksSql, insertCostsSql, insertSignalsSql, type BulkShape } from './lib/bulk-sql.ts';
import { withBenchLock } from './lib/lock.ts';
import { describeMachine, machineMarkdown } from './lib/machine.ts';
import { commandLine, fmt, stamp, writeResults } from './lib/results.ts';

const DAY_MS = 86_400_000;
// Measured: about 25 bytes on disk per check row with its share of signals and cost events;
// the margin covers merges, which rewrite parts before dropping the old ones.
const BYTES_PER_CHECK_BUDGET = 60;

export interface Manifest {
  checks: number;
  signals: number;
  agents: number;
  days: number;
  /** ISO instants: the data covers [from, to). */
  from: string;
  to: string;
  generated_at: string;
}

export const MANIFEST = 'bench-manifest.json';

async function registerAgents(dataDir: string, agents: number): Promise<number> {
  const logger = quietLogger();
  const pg = await startEmbeddedPostgres(dataDir, logger);
  const db = createDatabase(pg.url, { max: 2 });
  try {
    await migrate(db);
    await db.query(insertAgentsPgSql(agents));
    // Enterprise with room for every agent: the registry must not refuse the lag probes' agent.
    await db.query(`UPDATE instance_settings SET company_name = 'Bench Co', plan = 'enterprise', agent_limit = 100000, display_currency = 'USD', usd_rate = 1`);
    await db.query('ANALYZE agents');
    const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM agents');
    return rows[0]!.n;
  } finally {
    await db.close();
    await pg.stop();
  }
}

interface TableSize {
  table: string;
  rows: number;
  parts: number;
  bytes_on_disk: number;
}

export async function tableSizes(store: AnalyticsStore): Promise<TableSize[]> {
  return store.query<TableSize>(
    `SELECT table, sum(rows) AS rows, count() AS parts, sum(bytes_on_disk) AS bytes_on_disk
     FROM system.parts WHERE database = currentDatabase() AND active
       AND table IN ('raw_check_results', 'raw_signals', 'raw_cost_events', 'check_results_per_day', 'spend_per_day')
     GROUP BY table ORDER BY table`,
  );
}

/** Waits (bounded) until background merges have brought the part count down. */
async function settleMerges(store: AnalyticsStore, maxWaitS: number): Promise<number> {
  const t0 = performance.now();
  while ((performance.now() - t0) / 1000 < maxWaitS) {
    const [m] = await store.query<{ n: number }>('SELECT count() AS n FROM system.merges WHERE database = currentDatabase()');
    if ((m?.n ?? 0) === 0) break;
    await new Promise((r) => setTimeout(r, 2000));
  }
  return (performance.now() - t0) / 1000;
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2));
  const checks = flagNumber(flags, 'checks', 10_000_000);
  const agents = flagNumber(flags, 'agents', 2000);
  const days = flagNumber(flags, 'days', 90);
  const chunkSignals = flagNumber(flags, 'chunk-signals', 1_000_000);
  const mergeWaitS = flagNumber(flags, 'merge-wait', 300);
  const dataDir = dataDirFor(flagString(flags, 'data-dir', `checks-${countLabel(checks)}`));
  if (checks % CHECKS_PER_SIGNAL !== 0 || checks <= 0) throw new Error(`--checks must be a positive multiple of ${CHECKS_PER_SIGNAL}`);

  if (existsSync(dataDir) && readdirSync(dataDir).length > 0) {
    if (!flags.has('fresh')) throw new Error(`${dataDir} already holds data; pass --fresh to delete it first`);
    rmSync(dataDir, { recursive: true, force: true });
  }
  const needGiB = (checks * BYTES_PER_CHECK_BUDGET) / 2 ** 30 + 5;
  const freeGiB = freeDiskGiB(dataDir);
  if (freeGiB < needGiB) throw new Error(`need about ${needGiB.toFixed(1)} GiB free for ${checks} checks, have ${freeGiB.toFixed(1)} GiB`);
  ensureDir(dataDir);
  const machine = describeMachine();
  const log = (m: string) => console.error(`[bulk] ${m}`);

  const tPg = performance.now();
  const registered = await registerAgents(dataDir, agents);
  const pgS = (performance.now() - tPg) / 1000;
  log(`${registered} agents in PostgreSQL (${pgS.toFixed(1)} s)`);

  const signals = checks / CHECKS_PER_SIGNAL;
  const to = Date.now();
  const shape: BulkShape = { signals, agents, startMs: to - days * DAY_MS, spanMs: days * DAY_MS };
  const store = createAnalyticsStore({ dataDir, logger: quietLogger() });
  await store.start();
  const chunks: { signals: number; seconds: number }[] = [];
  let sizes: TableSize[] = [];
  let mergeS = 0;
  try {
    await withBenchLock('bulk-generate', async () => {
      for (let from = 0; from < signals; from += chunkSignals) {
        const count = Math.min(chunkSignals, signals - from);
        const t = performance.now();
        await store.command(insertChecksSql(shape, from, count));
        await store.command(insertSignalsSql(shape, from, count));
        await store.command(insertCostsSql(shape, from, count));
        const seconds = (performance.now() - t) / 1000;
        chunks.push({ signals: count, seconds });
        log(`signals ${from + count}/${signals}: ${count} signals (${count * CHECKS_PER_SIGNAL} checks) in ${seconds.toFixed(1)} s`);
      }
      mergeS = await settleMerges(store, mergeWaitS);
    });
    sizes = await tableSizes(store);
  } finally {
    await store.stop();
  }

  const insertS = chunks.reduce((a, c) => a + c.seconds, 0);
  const manifest: Manifest = { checks, signals, agents, days, from: new Date(shape.startMs).toISOString(), to: new Date(to).toISOString(), generated_at: new Date().toISOString() };
  writeFileSync(path.join(dataDir, MANIFEST), JSON.stringify(manifest, null, 2));
  const report = {
    machine,
    command: commandLine(),
    data_dir: path.relative(ROOT, dataDir),
    manifest,
    postgres_agents: registered,
    postgres_seconds: round(pgS),
    insert_seconds: round(insertS),
    check_rows_per_s: Math.round(checks / insertS),
    merge_wait_seconds: round(mergeS),
    chunks: chunks.map((c) => ({ ...c, seconds: round(c.seconds) })),
    tables: sizes,
  };
  const md = [
    `# Bulk generation, ${countLabel(checks)} check results`,
    '',
    '## Machine',
    machineMarkdown(machine),
    '',
    '## Command',
    '```',
    report.command,
    '```',
    '',
    `${signals.toLocaleString('en-US')} signals × ${CHECKS_PER_SIGNAL} checks, 1 cost event per signal, ${agents} agents, ${days} days up to ${manifest.to}.`,
    `Inserts took ${fmt(insertS)} s (${fmt(report.check_rows_per_s, 0)} check rows/s, with signals, cost events and both views); ` +
      `waiting for merges ${fmt(mergeS)} s; agents in PostgreSQL ${fmt(pgS)} s.`,
    '',
    '| table | rows | active parts | on disk (MiB) |',
    '|---|---:|---:|---:|',
    ...sizes.map((t) => `| ${t.table} | ${fmt(t.rows, 0)} | ${t.parts} | ${fmt(t.bytes_on_disk / 2 ** 20)} |`),
  ].join('\n');
  const files = writeResults(`bulk-generate-${countLabel(checks)}-${stamp()}`, report, md);
  log(`wrote ${files.join(', ')}`);
}

const round = (x: number) => Math.round(x * 100) / 100;

if (process.argv[1]?.endsWith('bulk-generate.ts')) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
