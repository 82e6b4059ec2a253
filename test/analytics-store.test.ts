// The analytics store itself: backend choice, migrations applied once, parameter binding,
// insert deduplication tokens, and the stop/outage contract loaders rely on.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AppError } from '../lib/errors.ts';
import { createLogger } from '../lib/log.ts';
import { DEFAULT_MIGRATIONS_DIR, createAnalyticsStore, type AnalyticsStoreOptions } from '../lib/analytics/store.ts';
import { loadMigrations, splitStatements } from '../lib/analytics/migrate.ts';

const backends = [{ name: 'chdb' }, ...(process.env.CLICKHOUSE_URL ? [{ name: 'server' }] : [])];
const logger = createLogger('silent');

describe('migration files', () => {
  it('are numbered from 001 in increasing order, each opens with a why line, and hold the expected objects', async () => {
    const migrations = await loadMigrations(DEFAULT_MIGRATIONS_DIR);
    const versions = migrations.map((m) => m.version);
    expect(versions[0]).toBe(1);
    // Areas take number ranges (signals and costs 001-009, spans 010-019), so gaps are allowed.
    expect(versions.every((v, i) => i === 0 || v > versions[i - 1]!)).toBe(true);
    const all = migrations.flatMap((m) => m.statements).join('\n');
    for (const name of ['raw_signals', 'raw_check_results', 'check_results_per_day', 'check_results_per_day_mv', 'raw_cost_events', 'spend_per_day', 'spend_per_day_mv']) {
      expect(all).toMatch(new RegExp(`CREATE (TABLE|MATERIALIZED VIEW) IF NOT EXISTS ${name}\\b`));
    }
  });

  it('splitStatements splits at line-ending semicolons and drops comment-only chunks', () => {
    const sql = '-- why: x\nCREATE TABLE a (x String DEFAULT \'a;b\') ENGINE = Memory;\n-- note\nCREATE VIEW v AS SELECT 1;\n-- trailing comment\n';
    expect(splitStatements(sql)).toEqual(["-- why: x\nCREATE TABLE a (x String DEFAULT 'a;b') ENGINE = Memory", '-- note\nCREATE VIEW v AS SELECT 1']);
  });

  it('refuses a file without a why line, a bad name, or a version used twice', async () => {
    const cases: Record<string, string>[] = [
      { '001_a.sql': 'CREATE TABLE a (x UInt8) ENGINE = Memory;\n' },
      { '1_a.sql': '-- why: a\nSELECT 1;\n' },
      { '001_a.sql': '-- why: a\nSELECT 1;\n', '001_b.sql': '-- why: b\nSELECT 1;\n' },
    ];
    for (const files of cases) {
      const dir = mkdtempSync(path.join(tmpdir(), 'analytics-migrations-'));
      for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
      await expect(loadMigrations(dir)).rejects.toThrow(/clickhouse migration/);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.each(backends)('analytics store on $name', ({ name }) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'analytics-store-'));
  const database = name === 'server' ? `test_store_${randomUUID().replaceAll('-', '')}` : undefined;
  const options = (extra: Partial<AnalyticsStoreOptions> = {}): AnalyticsStoreOptions => ({
    dataDir,
    logger,
    database,
    clickhouseUrl: name === 'server' ? process.env.CLICKHOUSE_URL : undefined,
    ...extra,
  });

  afterAll(async () => {
    if (name === 'server') {
      const cleanup = createAnalyticsStore(options({ migrationsDir: mkdtempSync(path.join(tmpdir(), 'none-')) }));
      await cleanup.start();
      await cleanup.command(`DROP DATABASE IF EXISTS ${cleanup.database}`);
      await cleanup.stop();
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('applies every migration on first start, records each once, and applies none on restart', async () => {
    const first = createAnalyticsStore(options());
    expect(first.backend).toBe(name);
    await first.start();
    const expected = (await loadMigrations(DEFAULT_MIGRATIONS_DIR)).map((m) => m.version);
    const recorded = async (s: typeof first) =>
      (await s.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version')).map((r) => r.version);
    expect(await recorded(first)).toEqual(expected);
    const tables = await first.query<{ name: string }>('SELECT name FROM system.tables WHERE database = currentDatabase() ORDER BY name');
    expect(tables.map((t) => t.name)).toEqual(expect.arrayContaining(['raw_signals', 'raw_cost_events', 'spend_per_day_mv', 'check_results_per_day_mv']));
    await first.stop();

    const second = createAnalyticsStore(options());
    await second.start();
    expect(await recorded(second)).toEqual(expected);
    await second.stop();
  });

  it('binds parameters as values, never as SQL', async () => {
    const store = createAnalyticsStore(options());
    await store.start();
    try {
      const hostile = "x'); DROP TABLE raw_signals; --";
      const rows = await store.query<{ s: string; n: number; ids: string[] }>(
        'SELECT {s:String} AS s, {n:UInt32} + 1 AS n, {ids:Array(UUID)} AS ids',
        { s: hostile, n: 41, ids: ['00000000-0000-0000-0000-000000000001'] },
      );
      expect(rows).toEqual([{ s: hostile, n: 42, ids: ['00000000-0000-0000-0000-000000000001'] }]);
      expect(await store.query('SELECT count() AS c FROM raw_signals')).toEqual([{ c: 0 }]);
    } finally {
      await store.stop();
    }
  });

  it('drops a retried insert with the same dedup token, keeps one with another token', async () => {
    const store = createAnalyticsStore(options());
    await store.start();
    try {
      await store.command(
        'CREATE TABLE IF NOT EXISTS dedup_probe (k String) ENGINE = MergeTree ORDER BY k SETTINGS non_replicated_deduplication_window = 100',
      );
      await store.command(
        'CREATE TABLE IF NOT EXISTS dedup_probe_per_k (k String, n UInt64) ENGINE = SummingMergeTree ORDER BY k SETTINGS non_replicated_deduplication_window = 100',
      );
      await store.command('CREATE MATERIALIZED VIEW IF NOT EXISTS dedup_probe_mv TO dedup_probe_per_k AS SELECT k, count() AS n FROM dedup_probe GROUP BY k');
      await store.insert('dedup_probe', [{ k: 'a' }], { dedupToken: 'batch-1' });
      await store.insert('dedup_probe', [{ k: 'a' }], { dedupToken: 'batch-1' });
      // The token is the identity, not the content: other rows under a used token are dropped too,
      // which is why the loaders fold the ids into the token (dedup.ts).
      await store.insert('dedup_probe', [{ k: 'b' }], { dedupToken: 'batch-1' });
      await store.insert('dedup_probe', [{ k: 'a' }], { dedupToken: 'batch-2' });
      // A token on one insert must not stick to the next one (chDB sessions keep SET values).
      await store.insert('dedup_probe', [{ k: 'c' }]);
      const rows = await store.query<{ k: string; n: number }>('SELECT k, count() AS n FROM dedup_probe GROUP BY k ORDER BY k');
      expect(rows).toEqual([{ k: 'a', n: 2 }, { k: 'c', n: 1 }]);
      // The retried block is dropped from materialized views fed by the table as well.
      const viewRows = await store.query<{ k: string; n: number }>('SELECT k, sum(n) AS n FROM dedup_probe_per_k GROUP BY k ORDER BY k');
      expect(viewRows).toEqual(rows);
    } finally {
      await store.stop();
    }
  });

  it('answers ping, drains calls in flight on stop, then refuses work as retryable store_unavailable', async () => {
    const store = createAnalyticsStore(options());
    expect(await store.ping()).toBe(false);
    await store.start();
    expect(await store.ping()).toBe(true);
    const inFlight = store.query<{ c: number }>('SELECT count() AS c FROM numbers(2000000) WHERE number % 3 = 0');
    await store.stop();
    expect(await inFlight).toEqual([{ c: 666667 }]);
    expect(await store.ping()).toBe(false);
    const error = await store.query('SELECT 1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'store_unavailable', status: 503, retryable: true });
  });

  it('fails start on a broken migration and releases the engine for the next start', async () => {
    const broken = mkdtempSync(path.join(tmpdir(), 'analytics-broken-'));
    writeFileSync(path.join(broken, '900_broken.sql'), '-- why: prove a bad file stops start\nCREATE TABLE nope (;\n');
    const store = createAnalyticsStore(options({ migrationsDir: broken }));
    await expect(store.start()).rejects.toThrow();
    expect(await store.ping()).toBe(false);
    rmSync(broken, { recursive: true, force: true });

    const next = createAnalyticsStore(options());
    await next.start();
    expect(await next.ping()).toBe(true);
    await next.stop();
  });
});
