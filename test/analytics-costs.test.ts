// Cost events in the analytics store: loading with deduplication and every cost read. Expected
// figures are computed here from the events the test inserted, never read back from the store.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../lib/log.ts';
import { createAnalyticsStore, type AnalyticsStore } from '../lib/analytics/store.ts';
import { insertCostEvents } from '../lib/analytics/costs.ts';
import {
  getAgentCostDetail,
  getCostSummary,
  getDepartmentSpend,
  getObservedModels,
  listUnpricedModels,
} from '../lib/analytics/cost-reads.ts';
import type { CostEventRecord } from '../schemas/analytics-rows.ts';

const backends = [{ name: 'chdb' }, ...(process.env.CLICKHOUSE_URL ? [{ name: 'server' }] : [])];
const NOW = new Date('2025-03-20T12:00:00.000Z');
const AGENT_A = 'aaaaaaaa-0000-4000-8000-00000000000a';
const AGENT_B = 'bbbbbbbb-0000-4000-8000-00000000000b';
const RATE = 0.92;
const TABLES = ['raw_cost_events', 'spend_per_day'];
const round9 = (x: number) => Math.round(x * 1e9) / 1e9;

function event(agent: string | null, at: string, model: string, n: number, priced = true): CostEventRecord {
  const input = 100 * n;
  const output = 37 * n;
  const cost = priced ? round9(n * 0.000123457 + 0.01) : 0;
  return {
    event_id: randomUUID(),
    agent_id: agent,
    agent_external_id: agent === AGENT_A ? 'agent-a' : agent === AGENT_B ? 'agent-b' : 'ghost-agent',
    department: agent === AGENT_A ? 'research' : agent === AGENT_B ? 'support' : '',
    job_id: `job-${n}`,
    model,
    provider: model.startsWith('claude') ? 'anthropic' : model === 'mystery-llm' ? 'acme' : 'openai',
    input_tokens: input,
    output_tokens: output,
    cached_input_tokens: n % 3 === 0 ? 10 : 0,
    cost_usd: cost,
    usd_rate: RATE,
    cost_display: round9(cost * RATE),
    display_currency: 'EUR',
    priced,
    input_usd_per_mtok: priced ? 2.5 : 0,
    output_usd_per_mtok: priced ? 10 : 0,
    cached_input_usd_per_mtok: priced ? 1.25 : 0,
    source: n % 4 === 0 ? 'signal' : 'cost_event',
    occurred_at: at,
    received_at: at,
  };
}

/** A: gpt-4o twice a day 03-08..03-20 plus claude on some days; B: gpt-4o-mini; unattributed: priced and unpriced. */
function dataset(): CostEventRecord[] {
  const out: CostEventRecord[] = [];
  let n = 1;
  for (let d = 8; d <= 20; d++) {
    const date = `2025-03-${String(d).padStart(2, '0')}`;
    out.push(event(AGENT_A, `${date}T00:00:00.000Z`, 'gpt-4o', n++));
    out.push(event(AGENT_A, `${date}T23:59:59.999Z`, 'gpt-4o', n++));
    if (d % 3 === 0) out.push(event(AGENT_A, `${date}T12:00:00.000Z`, 'claude-3-5-sonnet', n++));
    if (d % 2 === 0) out.push(event(AGENT_B, `${date}T06:30:00.000Z`, 'gpt-4o-mini', n++));
    if (d % 5 === 0) out.push(event(null, `${date}T09:00:00.000Z`, 'gpt-4o', n++));
    if (d >= 14 && d % 2 === 1) out.push(event(null, `${date}T18:00:00.000Z`, 'mystery-llm', n++, false));
  }
  // Month boundary: the last millisecond of February and the first of March.
  out.push(event(AGENT_A, '2025-02-28T23:59:59.999Z', 'gpt-4o', n++));
  out.push(event(AGENT_B, '2025-03-01T00:00:00.000Z', 'gpt-4o-mini', n++));
  out.push(event(AGENT_B, '2025-03-01T01:00:00.000+02:00', 'gpt-4o-mini', n++)); // 02-28 23:00 UTC
  return out;
}

const dayOf = (e: CostEventRecord) => new Date(e.occurred_at).toISOString().slice(0, 10);
const sum = (xs: readonly CostEventRecord[], f: (e: CostEventRecord) => number) => xs.reduce((acc, e) => acc + f(e), 0);
const inDays = (xs: readonly CostEventRecord[], from: string, to: string) => xs.filter((e) => dayOf(e) >= from && dayOf(e) <= to);
const usage = (xs: readonly CostEventRecord[]) => ({
  cost_usd: sum(xs, (e) => e.cost_usd),
  cost_display: sum(xs, (e) => e.cost_display),
  input_tokens: sum(xs, (e) => e.input_tokens),
  output_tokens: sum(xs, (e) => e.output_tokens),
  cached_input_tokens: sum(xs, (e) => e.cached_input_tokens),
  events: xs.length,
});

/** Deep equality with money compared to 1e-9 (Decimal(_, 9) in the store). */
function expectClose(actual: unknown, expected: unknown): void {
  if (typeof expected === 'number' && !Number.isInteger(expected)) {
    expect(actual).toBeCloseTo(expected, 8);
  } else if (Array.isArray(expected)) {
    expect(actual).toHaveLength(expected.length);
    expected.forEach((item, i) => expectClose((actual as unknown[])[i], item));
  } else if (expected && typeof expected === 'object') {
    expect(Object.keys(actual as object).sort()).toEqual(Object.keys(expected).sort());
    for (const [k, v] of Object.entries(expected)) expectClose((actual as Record<string, unknown>)[k], v);
  } else {
    expect(actual).toBe(expected);
  }
}

describe.each(backends)('cost events on $name', ({ name }) => {
  let store: AnalyticsStore;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'analytics-costs-'));

  beforeAll(async () => {
    store = createAnalyticsStore({
      dataDir,
      logger: createLogger('silent'),
      clickhouseUrl: name === 'server' ? process.env.CLICKHOUSE_URL : undefined,
      database: name === 'server' ? `test_costs_${randomUUID().replaceAll('-', '')}` : undefined,
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

  const load = async (events: CostEventRecord[], size = 25) => {
    let stored = 0;
    for (let i = 0; i < events.length; i += size) stored += await insertCostEvents(store, events.slice(i, i + size), `batch-${i}`);
    return stored;
  };

  const figures = async () => ({
    summary: await getCostSummary(store, { days: 30, now: NOW }),
    detail: await getAgentCostDetail(store, { agentId: AGENT_A, days: 30, now: NOW }),
    departments: await getDepartmentSpend(store, { fromMonth: '2025-02-01', toMonth: '2025-03-01' }),
    unpriced: await listUnpricedModels(store, { days: 30, now: NOW }),
    observed: await getObservedModels(store, { days: 30, now: NOW }),
    raw: await store.query('SELECT count() AS n, toFloat64(sum(cost_usd)) AS usd FROM raw_cost_events'),
  });

  it('summarises spend over UTC days with unattributed cost and a zero-filled daily trend', async () => {
    const events = dataset();
    expect(await load(events)).toBe(events.length);
    const summary = await getCostSummary(store, { days: 7, now: NOW });
    const window = inDays(events, '2025-03-14', '2025-03-20');
    const days = ['14', '15', '16', '17', '18', '19', '20'].map((d) => `2025-03-${d}`);
    expectClose(summary, {
      period_days: 7,
      total_cost_usd: sum(window, (e) => e.cost_usd),
      total_cost_display: sum(window, (e) => e.cost_display),
      unattributed_cost_usd: sum(window.filter((e) => e.agent_id === null), (e) => e.cost_usd),
      daily_trend: days.map((date) => {
        const ofDay = window.filter((e) => dayOf(e) === date);
        return { date, cost_usd: sum(ofDay, (e) => e.cost_usd), cost_display: sum(ofDay, (e) => e.cost_display) };
      }),
    });
    expect(summary.unattributed_cost_usd).toBeGreaterThan(0);

    // A window with no spend at all still has one zero element per day.
    const empty = await getCostSummary(store, { days: 3, now: new Date('2024-01-10T00:00:00Z') });
    expect(empty).toEqual({
      period_days: 3,
      total_cost_usd: 0,
      total_cost_display: 0,
      unattributed_cost_usd: 0,
      daily_trend: ['2024-01-08', '2024-01-09', '2024-01-10'].map((date) => ({ date, cost_usd: 0, cost_display: 0 })),
    });
  });

  it('details one agent\'s cost per day and per model', async () => {
    const events = dataset();
    await load(events);
    const detail = await getAgentCostDetail(store, { agentId: AGENT_A, days: 7, now: NOW });
    const ofA = inDays(events.filter((e) => e.agent_id === AGENT_A), '2025-03-14', '2025-03-20');
    const models = [...new Set(ofA.map((e) => e.model))]
      .map((model) => ({ model, ...usage(ofA.filter((e) => e.model === model)) }))
      .sort((a, b) => b.cost_usd - a.cost_usd);
    expectClose(detail, {
      agent_id: AGENT_A,
      period_days: 7,
      ...usage(ofA),
      daily: ['14', '15', '16', '17', '18', '19', '20'].map((d) => {
        const date = `2025-03-${d}`;
        return { date, ...usage(ofA.filter((e) => dayOf(e) === date)) };
      }),
      by_model: models,
    });
    expect(detail.daily.find((d) => d.date === '2025-03-15')?.events).toBe(3); // 00:00:00.000 + 23:59:59.999 + claude
  });

  it('groups spend by department and UTC calendar month', async () => {
    const events = dataset();
    await load(events);
    const rows = await getDepartmentSpend(store, { fromMonth: '2025-02-01', toMonth: '2025-03-01' });
    const groups = new Map<string, CostEventRecord[]>();
    for (const e of events) {
      const key = `${dayOf(e).slice(0, 7)}-01|${e.department}`;
      groups.set(key, [...(groups.get(key) ?? []), e]);
    }
    const expected = [...groups]
      .map(([key, xs]) => ({ month: key.split('|')[0]!, department: key.split('|')[1]!, cost_usd: sum(xs, (e) => e.cost_usd), cost_display: sum(xs, (e) => e.cost_display), events: xs.length }))
      .sort((a, b) => a.month.localeCompare(b.month) || a.department.localeCompare(b.department));
    expectClose(rows, expected);
    expect(rows.filter((r) => r.month === '2025-02-01').map((r) => [r.department, r.events])).toEqual([['research', 1], ['support', 1]]);
    expectClose(await getDepartmentSpend(store, { fromMonth: '2025-03-01', toMonth: '2025-03-01' }), expected.filter((r) => r.month === '2025-03-01'));
  });

  it('lists unpriced models and the models each registry agent was observed using', async () => {
    const events = dataset();
    await load(events);
    const unpriced = events.filter((e) => !e.priced);
    expect(await listUnpricedModels(store, { days: 30, now: NOW })).toEqual([
      {
        model: 'mystery-llm',
        provider: 'acme',
        events: unpriced.length,
        input_tokens: sum(unpriced, (e) => e.input_tokens),
        output_tokens: sum(unpriced, (e) => e.output_tokens),
        cached_input_tokens: sum(unpriced, (e) => e.cached_input_tokens),
        first_seen: dayOf(unpriced[0]!),
        last_seen: dayOf(unpriced.at(-1)!),
      },
    ]);
    expect(await listUnpricedModels(store, { days: 1, now: new Date('2025-03-16T08:00:00Z') })).toEqual([]);

    const attributed = inDays(events.filter((e) => e.agent_id !== null), '2025-02-19', '2025-03-20');
    const keys = [...new Set(attributed.map((e) => `${e.agent_id}|${e.model}`))];
    const expected = keys
      .map((key) => {
        const xs = attributed.filter((e) => `${e.agent_id}|${e.model}` === key);
        return { agent_id: xs[0]!.agent_id, model: xs[0]!.model, events: xs.length, input_tokens: sum(xs, (e) => e.input_tokens), output_tokens: sum(xs, (e) => e.output_tokens), last_seen: xs.map(dayOf).sort().at(-1) };
      })
      .sort((a, b) => a.agent_id!.localeCompare(b.agent_id!) || b.events - a.events || a.model.localeCompare(b.model));
    expect(await getObservedModels(store, { days: 30, now: NOW })).toEqual(expected);
    expect(await getObservedModels(store, { days: 30, now: NOW, agentId: AGENT_B })).toEqual(expected.filter((r) => r.agent_id === AGENT_B));
  });

  it('counts a redelivered batch, the same events in another batch, and a racing duplicate once', async () => {
    const events = dataset();
    await load(events);
    const baseline = await figures();
    expect(await insertCostEvents(store, events.slice(0, 25), 'batch-0')).toBe(0);
    expect(await insertCostEvents(store, events.slice(5, 60), 'another-batch')).toBe(0);
    expect(await figures()).toEqual(baseline);

    const fresh = dataset().slice(0, 20);
    await Promise.all([insertCostEvents(store, fresh, 'race'), insertCostEvents(store, fresh, 'race')]);
    expect(await insertCostEvents(store, [...fresh, ...fresh], 'again')).toBe(0);
    const after = await getCostSummary(store, { days: 30, now: NOW });
    expect(after.total_cost_usd).toBeCloseTo(baseline.summary.total_cost_usd + sum(fresh, (e) => e.cost_usd), 8);
  });

  it('stores the rest of a batch that partly landed before a retry under the same token', async () => {
    const events = dataset().slice(0, 12);
    expect(await insertCostEvents(store, events.slice(0, 5), 'retry-token')).toBe(5);
    expect(await insertCostEvents(store, events, 'retry-token')).toBe(7);
    const summary = await getCostSummary(store, { days: 30, now: NOW });
    expect(summary.total_cost_usd).toBeCloseTo(sum(events, (e) => e.cost_usd), 8);
  });

  it('keeps spend_per_day equal to the ledger, before and after merges', async () => {
    await load(dataset());
    await insertCostEvents(store, dataset(), 'second-load');
    const fromView = () =>
      store.query(
        `SELECT agent_id, day, department, model, toString(sum(cost_usd)) AS usd, toString(sum(cost_display)) AS display,
                sum(input_tokens) AS input, sum(output_tokens) AS output, sum(cached_input_tokens) AS cached, sum(events) AS events
         FROM spend_per_day GROUP BY agent_id, day, department, model ORDER BY agent_id, day, department, model`,
      );
    const raw = await store.query(
      `SELECT ifNull(agent_id, toUUID('00000000-0000-0000-0000-000000000000')) AS agent_id, toDate(occurred_at, 'UTC') AS day,
              department, model, toString(sum(cost_usd)) AS usd, toString(sum(cost_display)) AS display,
              sum(input_tokens) AS input, sum(output_tokens) AS output, sum(cached_input_tokens) AS cached, count() AS events
       FROM raw_cost_events GROUP BY agent_id, day, department, model ORDER BY agent_id, day, department, model`,
    );
    expect(raw.length).toBeGreaterThan(20);
    expect(await fromView()).toEqual(raw);
    await store.command('OPTIMIZE TABLE spend_per_day FINAL');
    expect(await fromView()).toEqual(raw);
  });
});
