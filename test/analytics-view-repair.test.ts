// After a crash between a raw insert and its view's insert, the repair at start puts back what
// the daily views miss, and changes nothing when they are complete.
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLogger } from '../lib/log.ts';
import { createAnalyticsStore, type AnalyticsStore } from '../lib/analytics/store.ts';
import { insertCostEvents } from '../lib/analytics/costs.ts';
import { insertSignals } from '../lib/analytics/signals.ts';
import { repairDailyViews } from '../lib/analytics/view-repair.ts';

let store: AnalyticsStore;
beforeAll(async () => {
  store = createAnalyticsStore({ dataDir: mkdtempSync(path.join(tmpdir(), 'aor-repair-')), logger: createLogger('silent') });
  await store.start();
});
afterAll(async () => {
  await store?.stop();
});

const now = new Date();
const AGENT = randomUUID();

const spendFigures = () => store.query(`SELECT agent_id, day, model, toString(sum(cost_usd)) AS usd, toString(sum(events)) AS events FROM spend_per_day GROUP BY agent_id, day, model ORDER BY agent_id, day, model`);
const rawSpend = () => store.query(`SELECT ifNull(agent_id, toUUID('00000000-0000-0000-0000-000000000000')) AS agent_id, toDate(occurred_at, 'UTC') AS day, model, toString(sum(cost_usd)) AS usd, toString(count()) AS events FROM raw_cost_events GROUP BY agent_id, day, model ORDER BY agent_id, day, model`);
const checkFigures = () => store.query(`SELECT agent_id, day, check_id, toString(sum(total_runs)) AS runs, toString(sum(passed_runs)) AS passed FROM check_results_per_day GROUP BY agent_id, day, check_id ORDER BY agent_id, day, check_id`);
const rawChecks = () => store.query(`SELECT agent_id, toDate(received_at, 'UTC') AS day, check_id, toString(count()) AS runs, toString(countIf(passed)) AS passed FROM raw_check_results GROUP BY agent_id, day, check_id ORDER BY agent_id, day, check_id`);

it('fills in view rows missing after a crash, and is a no-op when the views are complete', async () => {
  const at = now.toISOString();
  const costs = Array.from({ length: 5 }, (_, i) => ({
    event_id: randomUUID(), agent_id: i === 4 ? null : AGENT, agent_external_id: 'a', department: 'Ops', job_id: `j${i}`, model: i % 2 ? 'gpt-4o' : 'gpt-4o-mini', provider: 'openai',
    input_tokens: 100 * (i + 1), output_tokens: 10, cached_input_tokens: 0, cost_usd: 0.001 * (i + 1), usd_rate: 1, cost_display: 0.001 * (i + 1), display_currency: 'USD',
    priced: true, input_usd_per_mtok: 1, output_usd_per_mtok: 1, cached_input_usd_per_mtok: 1, source: 'cost_event' as const, occurred_at: at, received_at: at,
  }));
  await insertCostEvents(store, costs, 'batch-1');
  await insertSignals(store, [{ signal_id: randomUUID(), agent_id: AGENT, agent_external_id: 'a', job_id: 's', overall_passed: false, latency_ms: 1, model: null, token_input: null, token_output: null, received_at: at, checks: [{ check_id: 'c1', severity: 'HIGH', passed: false }, { check_id: 'c2', severity: 'LOW', passed: true }] }], 'batch-2');
  const completeSpend = await spendFigures();
  const completeChecks = await checkFigures();
  expect(completeSpend).toEqual(await rawSpend());

  await repairDailyViews(store, createLogger('silent'));
  expect(await spendFigures()).toEqual(completeSpend);
  expect(await checkFigures()).toEqual(completeChecks);

  // What a kill between the raw part and the view part leaves: raw rows the views lack.
  await store.command(`ALTER TABLE spend_per_day DELETE WHERE model = 'gpt-4o' SETTINGS mutations_sync = 2`);
  await store.command(`ALTER TABLE check_results_per_day DELETE WHERE check_id = 'c1' SETTINGS mutations_sync = 2`);
  expect(await spendFigures()).not.toEqual(completeSpend);

  await repairDailyViews(store, createLogger('silent'));
  expect(await spendFigures()).toEqual(completeSpend);
  expect(await spendFigures()).toEqual(await rawSpend());
  expect(await checkFigures()).toEqual(completeChecks);
  expect(await checkFigures()).toEqual(await rawChecks());
});
