// Quality signals in the analytics store: loading with deduplication, the signals list, daily
// accuracy with trend, heatmap and failing checks. Expected figures are computed here from the
// records the test inserted (and, for trends, designed by hand), never read back from the store.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../lib/log.ts';
import { createAnalyticsStore, type AnalyticsStore } from '../lib/analytics/store.ts';
import { batchToken } from '../lib/analytics/dedup.ts';
import { insertSignals, listSignals } from '../lib/analytics/signals.ts';
import { getAccuracy, getFailingChecks, getHeatmap } from '../lib/analytics/quality.ts';
import type { SignalRecord } from '../schemas/analytics-rows.ts';

const backends = [{ name: 'chdb' }, ...(process.env.CLICKHOUSE_URL ? [{ name: 'server' }] : [])];
const NOW = new Date('2025-03-20T12:00:00.000Z');
const AGENT_A = 'aaaaaaaa-0000-4000-8000-000000000001';
const AGENT_B = 'bbbbbbbb-0000-4000-8000-000000000002';
const TABLES = ['raw_signals', 'raw_check_results', 'check_results_per_day'];

const day = (d: number) => `2025-03-${String(d).padStart(2, '0')}`;

function signal(agent: string, at: string, checks: SignalRecord['checks']): SignalRecord {
  return {
    signal_id: randomUUID(),
    agent_id: agent,
    agent_external_id: agent === AGENT_A ? 'agent-a' : 'agent-b',
    job_id: `job-${randomUUID().slice(0, 8)}`,
    overall_passed: checks.every((c) => c.passed),
    latency_ms: 100 + checks.length,
    model: 'gpt-4o',
    token_input: 10,
    token_output: 20,
    received_at: at,
    checks,
  };
}

/**
 * Agent A, check c_high (HIGH): 10 runs a day 03-07..03-19 (9 pass, except 03-17: 8 and 03-18: 10),
 * 20 runs on 03-20 (17 pass). The first run of each day is at 00:00:00.000 and the last at
 * 23:59:59.999, so every midnight has rows on both sides. c_low (LOW, lower-case on input): 03-05
 * (0/4, more than 7 days before 03-14), 03-14 (1/2), 03-19 (2/2). Agent B: c_sev is MEDIUM on 03-15
 * and HIGH on 03-18, all failing; one B signal is sent with a +02:00 offset.
 */
function dataset(): SignalRecord[] {
  const out: SignalRecord[] = [];
  for (let d = 7; d <= 20; d++) {
    const runs = d === 20 ? 20 : 10;
    const passes = d === 17 ? 8 : d === 18 ? 10 : d === 20 ? 17 : 9;
    for (let i = 0; i < runs; i++) {
      const ms = i === runs - 1 ? 86_399_999 : Math.floor((i * 86_400_000) / runs);
      const at = new Date(Date.parse(`${day(d)}T00:00:00Z`) + ms).toISOString();
      const checks: SignalRecord['checks'] = [{ check_id: 'c_high', severity: 'HIGH', passed: i < passes, expected: '1.5', actual: '1.25', delta: '-0.25' }];
      if (d === 14 && i < 2) checks.push({ check_id: 'c_low', severity: 'low', passed: i === 0 });
      if (d === 19 && i < 2) checks.push({ check_id: 'c_low', severity: 'low', passed: true });
      out.push(signal(AGENT_A, at, checks));
    }
  }
  for (let i = 0; i < 4; i++) out.push(signal(AGENT_A, `${day(5)}T10:00:0${i}.000Z`, [{ check_id: 'c_low', severity: 'LOW', passed: false }]));
  out.push(signal(AGENT_B, `${day(15)}T08:00:00.000Z`, [{ check_id: 'c_sev', severity: 'MEDIUM', passed: false }]));
  // 2025-03-19T01:30+02:00 is 03-18 23:30 UTC: it belongs to 03-18.
  out.push(signal(AGENT_B, '2025-03-19T01:30:00.000+02:00', [{ check_id: 'c_sev', severity: 'HIGH', passed: false }]));
  return out;
}

interface Count { total: number; passed: number; severity: string; day: string }

/** Per agent|check|UTC day, straight from the records. */
function countChecks(records: readonly SignalRecord[]): Map<string, Count> {
  const counts = new Map<string, Count>();
  for (const s of records) {
    const d = new Date(s.received_at).toISOString().slice(0, 10);
    for (const c of s.checks) {
      const key = `${s.agent_id}|${c.check_id}|${d}`;
      const entry = counts.get(key) ?? { total: 0, passed: 0, severity: c.severity.toUpperCase(), day: d };
      entry.total++;
      if (c.passed) entry.passed++;
      counts.set(key, entry);
    }
  }
  return counts;
}

function cellsFrom(records: readonly SignalRecord[], from: string, to: string) {
  const cells = new Map<string, { agent_id: string; check_id: string; total_runs: number; passed_runs: number; last: string; severity: string }>();
  for (const [key, c] of countChecks(records)) {
    if (c.day < from || c.day > to) continue;
    const [agent, check] = key.split('|') as [string, string];
    const cell = cells.get(`${agent}|${check}`) ?? { agent_id: agent, check_id: check, total_runs: 0, passed_runs: 0, last: '', severity: '' };
    cell.total_runs += c.total;
    cell.passed_runs += c.passed;
    if (c.day > cell.last) [cell.last, cell.severity] = [c.day, c.severity];
    cells.set(`${agent}|${check}`, cell);
  }
  return [...cells.values()]
    .map(({ last: _last, ...cell }) => ({ ...cell, pass_rate: cell.passed_runs / cell.total_runs }))
    .sort((a, b) => (a.agent_id + a.check_id).localeCompare(b.agent_id + b.check_id));
}

describe.each(backends)('quality signals on $name', ({ name }) => {
  let store: AnalyticsStore;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'analytics-signals-'));

  beforeAll(async () => {
    store = createAnalyticsStore({
      dataDir,
      logger: createLogger('silent'),
      clickhouseUrl: name === 'server' ? process.env.CLICKHOUSE_URL : undefined,
      database: name === 'server' ? `test_signals_${randomUUID().replaceAll('-', '')}` : undefined,
    });
    await store.start();
  });

  afterAll(async () => {
    if (name === 'server') await store.command(`DROP DATABASE IF EXISTS ${store.database}`);
    await store.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  beforeEach(async () => {
    for (const table of TABLES) await store.command(`TRUNCATE TABLE ${table}`);
  });

  const load = async (records: SignalRecord[], size = 40) => {
    let stored = 0;
    for (let i = 0; i < records.length; i += size) stored += await insertSignals(store, records.slice(i, i + size), `batch-${i}`);
    return stored;
  };

  // Every figure the reads expose, to compare before and after a redelivery.
  const figures = async () => ({
    accuracy: await getAccuracy(store, { agentId: AGENT_A, days: 14, now: NOW }),
    heatmap: await getHeatmap(store, { windowDays: 30, now: NOW }),
    failing: await getFailingChecks(store, { days: 30, now: NOW }),
    signals: (await listSignals(store, { agentId: AGENT_A, limit: 500 })).map((s) => s.signal_id),
    raw: await store.query('SELECT count() AS signals, sum(check_count) AS checks FROM raw_signals'),
    rawChecks: await store.query('SELECT count() AS n FROM raw_check_results'),
  });

  it('lists an agent\'s signals newest first with derived counts and their checks', async () => {
    const records = dataset();
    expect(await load(records)).toBe(records.length);
    const ofA = records.filter((r) => r.agent_id === AGENT_A).sort((a, b) => Date.parse(b.received_at) - Date.parse(a.received_at));

    const page = await listSignals(store, { agentId: AGENT_A, limit: 3 });
    expect(page.map((s) => s.signal_id)).toEqual(ofA.slice(0, 3).map((s) => s.signal_id));
    const newest = ofA[0]!;
    expect(page[0]).toMatchObject({
      agent_id: AGENT_A,
      agent_external_id: 'agent-a',
      job_id: newest.job_id,
      overall_passed: newest.overall_passed,
      check_count: newest.checks.length,
      passed_count: newest.checks.filter((c) => c.passed).length,
      latency_ms: newest.latency_ms,
      model: 'gpt-4o',
      token_input: 10,
      token_output: 20,
      received_at: '2025-03-20T23:59:59.999Z',
      checks: [{ check_id: 'c_high', severity: 'HIGH', passed: false, expected: '1.5', actual: '1.25', delta: '-0.25' }],
    });
    expect(await listSignals(store, { agentId: AGENT_A })).toHaveLength(50);
    const before = await listSignals(store, { agentId: AGENT_A, limit: 2, before: new Date('2025-03-17T00:00:00.000Z') });
    expect(before.map((s) => s.received_at)).toEqual(['2025-03-16T23:59:59.999Z', ofA.find((s) => s.received_at < '2025-03-16T23:59:59.999Z')!.received_at]);
    expect(await listSignals(store, { agentId: randomUUID() })).toEqual([]);
  });

  it('reports accuracy per check and UTC day with the trend rule of decisions §7', async () => {
    const records = dataset();
    await load(records);
    const rows = await getAccuracy(store, { agentId: AGENT_A, days: 7, now: NOW });

    const expected = [...countChecks(records)]
      .filter(([key, c]) => key.startsWith(`${AGENT_A}|`) && c.day >= day(14) && c.day <= day(20))
      .map(([key, c]) => ({ check_id: key.split('|')[1]!, severity: c.severity, agg_date: c.day, total_runs: c.total, passed_runs: c.passed, pass_rate: c.passed / c.total }))
      .sort((a, b) => (a.check_id + a.agg_date).localeCompare(b.check_id + b.agg_date));
    expect(rows.map(({ trend: _t, ...r }) => r)).toEqual(expected);

    const trend = (check: string, d: number) => rows.find((r) => r.check_id === check && r.agg_date === day(d))?.trend;
    // c_high baselines are means of the 7 prior daily rates (designed in dataset()).
    expect(trend('c_high', 16)).toBe('STABLE'); // 0.9 vs 0.9
    expect(trend('c_high', 17)).toBe('DEGRADING'); // 0.8 vs 0.9
    expect(trend('c_high', 18)).toBe('IMPROVING'); // 1.0 vs 0.886
    expect(trend('c_high', 19)).toBe('STABLE'); // 0.9 vs 0.9
    expect(trend('c_high', 20)).toBe('DEGRADING'); // 0.85 vs 0.9: exactly 5 points
    expect(trend('c_low', 14)).toBe('STABLE'); // 03-05 is more than 7 days back: no baseline
    expect(trend('c_low', 19)).toBe('IMPROVING'); // 1.0 vs 0.5 (only 03-14 has data)
    expect(rows.find((r) => r.agg_date === day(17))).toMatchObject({ total_runs: 10, passed_runs: 8 });
  });

  it('builds heatmap cells per agent and check over the window, filtered by severity', async () => {
    const records = dataset();
    await load(records);
    const all = await getHeatmap(store, { windowDays: 7, now: NOW });
    expect(all).toEqual(cellsFrom(records, day(14), day(20)));
    expect(all.find((c) => c.agent_id === AGENT_B)).toMatchObject({ check_id: 'c_sev', severity: 'HIGH', total_runs: 2, passed_runs: 0 });

    const high = await getHeatmap(store, { windowDays: 7, now: NOW, severity: 'high' });
    expect(high.map((c) => `${c.agent_id}|${c.check_id}`)).toEqual([`${AGENT_A}|c_high`, `${AGENT_B}|c_sev`]);
    expect(await getHeatmap(store, { windowDays: 7, now: NOW, severity: 'MEDIUM' })).toEqual([]);
    expect(await getHeatmap(store, { windowDays: 1, now: NOW })).toEqual(cellsFrom(records, day(20), day(20)));
  });

  it('lists failing checks per agent, most failures first', async () => {
    const records = dataset();
    await load(records);
    const failing = await getFailingChecks(store, { days: 7, now: NOW });
    const expected = cellsFrom(records, day(14), day(20))
      .filter((c) => c.passed_runs < c.total_runs)
      .map((c) => ({ ...c, failed_runs: c.total_runs - c.passed_runs }))
      .sort((a, b) => a.agent_id.localeCompare(b.agent_id) || b.failed_runs - a.failed_runs || a.check_id.localeCompare(b.check_id));
    expect(failing).toEqual(expected);
    expect(await getFailingChecks(store, { days: 7, now: NOW, agentId: AGENT_B })).toEqual(expected.filter((c) => c.agent_id === AGENT_B));
  });

  it('counts a redelivered batch and the same events in another batch once', async () => {
    const records = dataset();
    await load(records);
    const baseline = await figures();
    expect(baseline.signals).toHaveLength(records.filter((r) => r.agent_id === AGENT_A).length);
    expect(await insertSignals(store, records.slice(0, 40), 'batch-0')).toBe(0);
    expect(await insertSignals(store, records.slice(10, 70), 'another-batch')).toBe(0);
    expect(await figures()).toEqual(baseline);
  });

  it('writes a batch once when two loaders deliver it at once, and an event listed twice once', async () => {
    const records = dataset().slice(0, 30);
    const [first, second] = await Promise.all([insertSignals(store, records, 'race'), insertSignals(store, records, 'race')]);
    expect(first + second).toBeGreaterThanOrEqual(30);
    const twice = dataset().slice(30, 35);
    expect(await insertSignals(store, [...twice, ...twice], 'twice')).toBe(5);
    const all = [...records, ...twice];
    expect(await store.query('SELECT count() AS n FROM raw_signals')).toEqual([{ n: all.length }]);
    expect(await getHeatmap(store, { windowDays: 30, now: NOW })).toEqual(cellsFrom(all, '2025-02-19', day(20)));
  });

  it('stores the rest of a batch that partly landed before a retry under the same token', async () => {
    const records = dataset().slice(0, 10);
    expect(await insertSignals(store, records.slice(0, 4), 'retry-token')).toBe(4);
    expect(await insertSignals(store, records, 'retry-token')).toBe(6);
    const stored = await listSignals(store, { agentId: AGENT_A, limit: 500 });
    expect(stored.map((s) => s.signal_id).sort()).toEqual(records.map((r) => r.signal_id).sort());
    expect(await getHeatmap(store, { windowDays: 30, now: NOW })).toEqual(cellsFrom(records, '2025-02-19', day(20)));
  });

  it('does not double checks when a loader died between writing a batch\'s checks and its signals', async () => {
    const records = dataset().slice(0, 12);
    const ids = records.map((r) => r.signal_id);
    // What insertSignals had written before the crash: the check rows, under the batch's token.
    const checkRows = records.flatMap((r) =>
      r.checks.map((c) => ({
        signal_id: r.signal_id, agent_id: r.agent_id, job_id: r.job_id, check_id: c.check_id, severity: c.severity.toUpperCase(),
        passed: c.passed, expected: c.expected ?? null, actual: c.actual ?? null, delta: c.delta ?? null,
        received_at: new Date(r.received_at).toISOString().replace('T', ' ').replace('Z', ''),
      })),
    );
    await store.insert('raw_check_results', checkRows, { dedupToken: batchToken('crashed', ids) });
    expect(await insertSignals(store, records, 'crashed')).toBe(12);
    expect(await store.query('SELECT count() AS n FROM raw_check_results')).toEqual([{ n: checkRows.length }]);
    expect(await getHeatmap(store, { windowDays: 30, now: NOW })).toEqual(cellsFrom(records, '2025-02-19', day(20)));
  });

  it('does not double checks when the signals come again in another batch after such a crash', async () => {
    const records = dataset().slice(0, 12);
    const checkRows = records.flatMap((r) =>
      r.checks.map((c) => ({
        signal_id: r.signal_id, agent_id: r.agent_id, job_id: r.job_id, check_id: c.check_id, severity: c.severity.toUpperCase(),
        passed: c.passed, expected: c.expected ?? null, actual: c.actual ?? null, delta: c.delta ?? null,
        received_at: new Date(r.received_at).toISOString().replace('T', ' ').replace('Z', ''),
      })),
    );
    await store.insert('raw_check_results', checkRows, { dedupToken: batchToken('crashed', records.map((r) => r.signal_id)) });
    // Embedded mode: the clients resend the events, which join other batches with other tokens.
    const others = dataset().slice(12, 15);
    expect(await insertSignals(store, [...records.slice(0, 6), ...others], 'retry-batch-1')).toBe(9);
    expect(await insertSignals(store, records.slice(6), 'retry-batch-2')).toBe(6);
    const all = [...records, ...others];
    expect(await store.query('SELECT count() AS n FROM raw_check_results')).toEqual([{ n: all.reduce((n, r) => n + r.checks.length, 0) }]);
    expect(await getHeatmap(store, { windowDays: 30, now: NOW })).toEqual(cellsFrom(all, '2025-02-19', day(20)));
  });

  it('keeps check_results_per_day equal to the raw checks, before and after merges', async () => {
    await load(dataset());
    await insertSignals(store, dataset().slice(0, 40), 'extra');
    const fromView = () =>
      store.query(
        `SELECT agent_id, check_id, day, sum(total_runs) AS total, sum(passed_runs) AS passed
         FROM check_results_per_day GROUP BY agent_id, check_id, day ORDER BY agent_id, check_id, day`,
      );
    const raw = await store.query(
      `SELECT agent_id, check_id, toDate(received_at, 'UTC') AS day, count() AS total, countIf(passed) AS passed
       FROM raw_check_results GROUP BY agent_id, check_id, day ORDER BY agent_id, check_id, day`,
    );
    expect(raw.length).toBeGreaterThan(10);
    expect(await fromView()).toEqual(raw);
    await store.command('OPTIMIZE TABLE check_results_per_day FINAL');
    expect(await fromView()).toEqual(raw);
  });
});
