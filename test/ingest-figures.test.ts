// Every figure of the quality and cost endpoints, checked against values this test computes
// itself from the events it sent, with events on both sides of a UTC midnight, and again after
// the whole stream is redelivered.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRICE_TABLE } from '../lib/pricing/price-table.ts';
import { createDatabase } from '../lib/postgres/database.ts';
import { migrate } from '../lib/postgres/migrate.ts';
import { createTestDatabase } from './helpers/database.ts';
import { call, startTestService, type TestService } from './helpers/service.ts';
import { tokenFor } from './helpers/tokens.ts';

const RATE = 0.9;
const DAY = 86_400_000;
const now = new Date();
const todayStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
const dayOf = (iso: string) => iso.slice(0, 10);
const at = (dayOffset: number, msIntoDay: number) => new Date(todayStart + dayOffset * DAY + msIntoDay).toISOString();

interface SentSignal {
  body: Record<string, any>;
  agent: string;
}
interface SentCost {
  body: Record<string, any>;
  department: string | null;
  attributed: boolean;
}

let service: TestService;
let token: string;
let agentIds: Record<string, string>;
const signals: SentSignal[] = [];
const costs: SentCost[] = [];

function price(model: string) {
  const entry = PRICE_TABLE.find((p) => p.model === model);
  if (!entry) throw new Error(`test needs ${model} in the price table`);
  return entry;
}
const usd = (model: string, input: number, output: number) => (input * price(model).input + output * price(model).output) / 1e6;

function buildEvents() {
  // Check "accuracy" (HIGH): 9 of 10 pass on each of the 7 days before today, 5 of 10 today:
  // today is DEGRADING. One run sits 0.5 s before midnight, one 0.5 s after.
  for (let offset = -7; offset <= 0; offset++) {
    for (let run = 0; run < 10; run++) {
      const passed = offset === 0 ? run < 5 : run < 9;
      let when = at(offset, 1_000 + run * 1_000);
      if (offset === -1 && run === 0) when = at(-1, DAY - 500);
      if (offset === 0 && run === 9) when = at(0, 500);
      const withTokens = run % 3 === 0;
      signals.push({
        agent: 'alpha',
        body: {
          event_id: randomUUID(),
          agent_id: 'alpha',
          job_id: `job-${offset}-${run}`,
          overall_passed: passed,
          latency_ms: 100 + run,
          occurred_at: when,
          checks: [
            { check_id: 'accuracy', severity: 'HIGH', passed, expected: '1.0', actual: passed ? '1.0' : '0.4', delta: passed ? '0' : '0.6' },
            { check_id: 'format', severity: 'medium', passed: true },
          ],
          ...(withTokens ? { token_input: 1000 + run, token_output: 200 + run, model: 'gpt-4o' } : {}),
        },
      });
    }
  }
  // Beta: one check on both sides of midnight.
  signals.push({ agent: 'beta', body: { event_id: randomUUID(), agent_id: 'beta', job_id: 'b1', overall_passed: false, latency_ms: 5, occurred_at: at(-1, DAY - 1), checks: [{ check_id: 'safety', severity: 'CRITICAL', passed: false }] } });
  signals.push({ agent: 'beta', body: { event_id: randomUUID(), agent_id: 'beta', job_id: 'b2', overall_passed: true, latency_ms: 5, occurred_at: at(0, 1), checks: [{ check_id: 'safety', severity: 'CRITICAL', passed: true }] } });

  const cost = (agent: string, department: string | null, attributed: boolean, model: string, provider: string, input: number, output: number, when: string) =>
    costs.push({ department, attributed, body: { event_id: randomUUID(), agent_id: agent, job_id: `c-${randomUUID()}`, model, provider, input_tokens: input, output_tokens: output, occurred_at: when } });
  cost('alpha', 'Sales', true, 'gpt-4o-mini', 'openai', 120_000, 30_000, at(-1, DAY - 250));
  cost('alpha', 'Sales', true, 'gpt-4o-mini', 'openai', 80_000, 10_000, at(0, 250));
  cost('beta', 'Ops', true, 'gpt-4o', 'openai', 50_000, 5_000, at(0, 1_000));
  cost('beta', 'Ops', true, 'gpt-4o', 'openai', 10_000, 1_000, at(-3, 1_000));
  cost('ghost-agent', null, false, 'gpt-4o', 'openai', 40_000, 4_000, at(0, 2_000));
  cost('ghost-agent', null, false, 'gpt-4o-mini', 'openai', 1_000, 1_000, at(-1, DAY - 1));
}

beforeAll(async () => {
  buildEvents();
  const databaseUrl = await createTestDatabase();
  const setupDb = createDatabase(databaseUrl, { max: 1 });
  await migrate(setupDb);
  await setupDb.query(`UPDATE instance_settings SET display_currency = 'EUR', usd_rate = $1`, [RATE]);
  const { rows } = await setupDb.query<{ external_id: string; id: string }>(
    `INSERT INTO agents (external_id, name, framework, status, department)
     VALUES ('alpha', 'Alpha', 'LANGCHAIN', 'APPROVED', 'Sales'), ('beta', 'Beta', 'CREWAI', 'APPROVED', 'Ops')
     RETURNING external_id, id::text AS id`,
  );
  agentIds = Object.fromEntries(rows.map((r) => [r.external_id, r.id]));
  await setupDb.close();
  service = await startTestService({ DATABASE_URL: databaseUrl });
  token = await tokenFor(service.db, 'admin');
  const budget = await call(service.baseUrl, 'POST', '/api/v1/costs/budgets', {
    token,
    body: { department: 'Sales', month: new Date(todayStart).toISOString().slice(0, 8) + '01', budget_amount: 1.5 },
  });
  expect(budget.status).toBe(201);
  await sendEverything();
});

afterAll(async () => {
  await service?.stop();
});

async function sendEverything() {
  for (const signal of signals) {
    const res = await call(service.baseUrl, 'POST', `/api/v1/jobs/${signal.body.job_id}/quality`, { body: signal.body });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
  }
  const batch = await call(service.baseUrl, 'POST', '/api/v1/costs/events/batch', { body: costs.map((c) => c.body) });
  expect(batch.status).toBe(200);
  expect(batch.body.accepted).toBe(costs.length);
}

/** Every figure the dashboard shows, fetched once. */
async function figures() {
  const get = async (path: string) => {
    const res = await call(service.baseUrl, 'GET', path, { token });
    expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
    return res.body;
  };
  return {
    accuracy: await get(`/api/v1/agents/${agentIds.alpha}/accuracy?days=8`),
    betaAccuracy: await get(`/api/v1/agents/${agentIds.beta}/accuracy?days=2`),
    heatmap: await get('/api/v1/optimise/heatmap?window_days=7'),
    heatmapHigh: await get('/api/v1/optimise/heatmap?window_days=7&severity=high'),
    summary: await get('/api/v1/costs/summary?days=2'),
    alphaCost: await get(`/api/v1/costs/agents/${agentIds.alpha}?days=2`),
    departments: await get('/api/v1/costs/departments'),
    signals: await get(`/api/v1/agents/${agentIds.alpha}/signals?limit=500`),
  };
}

/** All cost events as the test sent them, signal-made ones included, with USD computed here. */
function costLedger() {
  const ledger = costs.map((c) => ({ usd: usd(c.body.model, c.body.input_tokens, c.body.output_tokens), day: dayOf(c.body.occurred_at), agent: c.body.agent_id, department: c.department, attributed: c.attributed, model: c.body.model }));
  for (const s of signals) {
    if (s.body.model) ledger.push({ usd: usd(s.body.model, s.body.token_input, s.body.token_output), day: dayOf(s.body.occurred_at), agent: s.agent, department: s.agent === 'alpha' ? 'Sales' : 'Ops', attributed: true, model: s.body.model });
  }
  return ledger;
}

describe('figures computed from the events sent', () => {
  let first: Awaited<ReturnType<typeof figures>>;
  beforeAll(async () => {
    first = await figures();
  });

  it('accuracy: runs, pass rate and trend per check and UTC day', () => {
    const expected = new Map<string, { total: number; passed: number }>();
    for (const s of signals.filter((x) => x.agent === 'alpha')) {
      for (const c of s.body.checks) {
        const key = `${c.check_id}|${dayOf(s.body.occurred_at)}`;
        const cell = expected.get(key) ?? { total: 0, passed: 0 };
        cell.total++;
        if (c.passed) cell.passed++;
        expected.set(key, cell);
      }
    }
    expect(first.accuracy).toHaveLength(expected.size);
    for (const row of first.accuracy) {
      const cell = expected.get(`${row.check_id}|${row.agg_date}`)!;
      expect(row.total_runs).toBe(cell.total);
      expect(row.passed_runs).toBe(cell.passed);
      expect(row.pass_rate).toBeCloseTo(cell.passed / cell.total, 10);
    }
    const today = dayOf(new Date(todayStart).toISOString());
    const accuracyToday = first.accuracy.find((r: any) => r.check_id === 'accuracy' && r.agg_date === today);
    expect(accuracyToday.severity).toBe('HIGH');
    expect(accuracyToday.trend).toBe('DEGRADING');
    // The midnight runs moved one run between days: yesterday still 9/10, today 5/10.
    expect(accuracyToday.total_runs).toBe(10);
    const formatRows = first.accuracy.filter((r: any) => r.check_id === 'format');
    expect(formatRows.every((r: any) => r.severity === 'MEDIUM' && r.trend === 'STABLE' && r.pass_rate === 1)).toBe(true);
    // Beta: one failed run 1 ms before midnight, one passed run 1 ms after.
    expect(first.betaAccuracy.map((r: any) => [r.agg_date, r.total_runs, r.passed_runs])).toEqual([
      [dayOf(at(-1, 0)), 1, 0],
      [today, 1, 1],
    ]);
  });

  it('heatmap: one cell per agent and check over the window, severity filter', () => {
    const windowStart = todayStart - 6 * DAY;
    const expected = new Map<string, { total: number; passed: number }>();
    for (const s of signals) {
      if (Date.parse(s.body.occurred_at) < windowStart) continue;
      for (const c of s.body.checks) {
        const key = `${agentIds[s.agent]}|${c.check_id}`;
        const cell = expected.get(key) ?? { total: 0, passed: 0 };
        cell.total++;
        if (c.passed) cell.passed++;
        expected.set(key, cell);
      }
    }
    expect(first.heatmap.cells).toHaveLength(expected.size);
    for (const cell of first.heatmap.cells) {
      const want = expected.get(`${cell.agent_id}|${cell.check_id}`)!;
      expect([cell.total_runs, cell.passed_runs]).toEqual([want.total, want.passed]);
      expect(cell.pass_rate).toBeCloseTo(want.passed / want.total, 10);
    }
    expect(first.heatmapHigh.cells.map((c: any) => c.check_id)).toEqual(['accuracy']);
  });

  it('cost summary: totals, unattributed cost, display amounts and the daily trend', () => {
    const days = [dayOf(at(-1, 0)), dayOf(at(0, 0))];
    const inWindow = costLedger().filter((e) => days.includes(e.day));
    const total = inWindow.reduce((sum, e) => sum + e.usd, 0);
    const unattributed = inWindow.filter((e) => !e.attributed).reduce((sum, e) => sum + e.usd, 0);
    expect(first.summary.period_days).toBe(2);
    expect(first.summary.display_currency).toBe('EUR');
    expect(first.summary.total_cost_usd).toBeCloseTo(total, 8);
    expect(first.summary.unattributed_cost_usd).toBeCloseTo(unattributed, 8);
    expect(first.summary.total_cost_display).toBeCloseTo(total * RATE, 6);
    expect(first.summary.daily_trend.map((d: any) => d.date)).toEqual(days);
    for (const point of first.summary.daily_trend) {
      const dayTotal = inWindow.filter((e) => e.day === point.date).reduce((sum, e) => sum + e.usd, 0);
      expect(point.cost_usd).toBeCloseTo(dayTotal, 8);
      expect(point.cost_display).toBeCloseTo(dayTotal * RATE, 6);
    }
  });

  it('agent cost detail: per day and per model', () => {
    const days = [dayOf(at(-1, 0)), dayOf(at(0, 0))];
    const mine = costLedger().filter((e) => e.agent === 'alpha' && days.includes(e.day));
    expect(first.alphaCost.cost_usd).toBeCloseTo(mine.reduce((s, e) => s + e.usd, 0), 8);
    for (const model of ['gpt-4o', 'gpt-4o-mini']) {
      const row = first.alphaCost.by_model.find((m: any) => m.model === model);
      expect(row.cost_usd).toBeCloseTo(mine.filter((e) => e.model === model).reduce((s, e) => s + e.usd, 0), 8);
      expect(row.events).toBe(mine.filter((e) => e.model === model).length);
    }
    for (const day of first.alphaCost.daily) {
      expect(day.cost_usd).toBeCloseTo(mine.filter((e) => e.day === day.date).reduce((s, e) => s + e.usd, 0), 8);
    }
  });

  it('department costs this month against budgets', () => {
    const month = new Date(todayStart).toISOString().slice(0, 7);
    const thisMonth = costLedger().filter((e) => e.day.startsWith(month));
    const spend = (department: string | null) => thisMonth.filter((e) => e.department === department).reduce((s, e) => s + e.usd, 0);
    const sales = first.departments.departments.find((d: any) => d.department === 'Sales');
    expect(sales.cost_usd).toBeCloseTo(spend('Sales'), 8);
    expect(sales.cost_display).toBeCloseTo(spend('Sales') * RATE, 6);
    expect(sales.budget_amount).toBe(1.5);
    expect(sales.utilisation).toBeCloseTo((spend('Sales') * RATE) / 1.5, 6);
    const ops = first.departments.departments.find((d: any) => d.department === 'Ops');
    expect(ops.cost_usd).toBeCloseTo(spend('Ops'), 8);
    expect(ops.utilisation).toBeNull();
  });

  it('signals list: newest first with counts', () => {
    const alphaSignals = signals.filter((s) => s.agent === 'alpha');
    expect(first.signals).toHaveLength(alphaSignals.length);
    const times = first.signals.map((s: any) => Date.parse(s.received_at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    const sample = first.signals.find((s: any) => s.job_id === 'job-0-0');
    expect([sample.check_count, sample.passed_count]).toEqual([2, 2]);
  });

  it('redelivering every event changes no figure', async () => {
    await sendEverything();
    const second = await figures();
    expect(second).toEqual(first);
  });
});

describe('agent resolution of cost events', () => {
  it('attributes a cost event to an agent created a moment before, without waiting for the directory poll', async () => {
    const created = await call(service.baseUrl, 'POST', '/api/v1/agents', { token, body: { name: 'Fresh', external_id: 'fresh-agent', framework: 'crewai', department: 'Ops' } });
    expect(created.status).toBe(201);
    const res = await call(service.baseUrl, 'POST', '/api/v1/costs/events', { body: { agent_id: 'fresh-agent', job_id: 'f1', model: 'gpt-4o', provider: 'openai', input_tokens: 1, output_tokens: 1 } });
    expect(res.status).toBe(202);
    expect(res.body.agent_id).toBe(created.body.agent_id);
    const byUuid = await call(service.baseUrl, 'POST', '/api/v1/costs/events', { body: { agent_id: created.body.agent_id, job_id: 'f2', model: 'gpt-4o', provider: 'openai', input_tokens: 1, output_tokens: 1 } });
    expect(byUuid.body.agent_id).toBe(created.body.agent_id);
  });
});
