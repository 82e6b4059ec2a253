// Operator prices: the admin API and the setup script override or add model prices; unknown
// models are stored unpriced and listed; a new price never rewrites events already stored.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestService, type TestService } from './helpers/service.ts';
import { tokenFor } from './helpers/tokens.ts';

const run = promisify(execFile);
let service: TestService;
let admin: string;
let member: string;
beforeAll(async () => {
  service = await startTestService();
  admin = await tokenFor(service.db, 'admin');
  member = await tokenFor(service.db, 'member');
});
afterAll(async () => {
  await service?.stop();
});

const costEvent = (model: string, job: string) => ({ agent_id: 'pricing-agent', job_id: job, model, provider: 'acme', input_tokens: 2_000_000, output_tokens: 500_000 });

async function untilPriced(model: string, expectedUsd: number) {
  // Ingest refreshes prices every 2 s; retry a cost event until the new price applies.
  for (let attempt = 0; attempt < 30; attempt++) {
    const res = await call(service.baseUrl, 'POST', '/api/v1/costs/events', { body: costEvent(model, `probe-${attempt}`) });
    if (res.body.priced && Math.abs(res.body.cost_usd - expectedUsd) < 1e-9) return res.body;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${model} never priced at ${expectedUsd}`);
}

describe('model prices', () => {
  it('an unknown model is stored unpriced at 0 and listed', async () => {
    const res = await call(service.baseUrl, 'POST', '/api/v1/costs/events', { body: costEvent('acme-llm-9', 'j1') });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ priced: false, cost_usd: 0, cost_display: 0 });
    const unpriced = await call(service.baseUrl, 'GET', '/api/v1/costs/unpriced-models', { token: member });
    expect(unpriced.body).toEqual([expect.objectContaining({ model: 'acme-llm-9', provider: 'acme', events: 1, input_tokens: 2_000_000, output_tokens: 500_000 })]);
  });

  it('an admin prices it; later events use the price, the stored one keeps its 0', async () => {
    const denied = await call(service.baseUrl, 'PUT', '/api/v1/prices/acme-llm-9', { token: member, body: { input: 1, output: 4 } });
    expect(denied.status).toBe(403);
    const put = await call(service.baseUrl, 'PUT', '/api/v1/prices/acme-llm-9', { token: admin, body: { input: 1, output: 4, cached_input: 0.5 } });
    expect(put.status).toBe(201);
    // 2M input at $1/M + 0.5M output at $4/M = $4.
    const priced = await untilPriced('acme-llm-9', 4);
    expect(priced.cost_display).toBe(4);
    const first = await service.analytics!.query<{ priced: boolean; cost: string; price: string }>(
      `SELECT priced, toString(cost_usd) AS cost, toString(input_usd_per_mtok) AS price FROM raw_cost_events WHERE job_id = 'j1'`,
    );
    expect(first).toEqual([{ priced: false, cost: '0', price: '0' }]);
    const list = await call(service.baseUrl, 'GET', '/api/v1/prices', { token: member });
    expect(list.body.as_of).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(list.body.models).toContainEqual({ model: 'acme-llm-9', provider: 'custom', input: 1, output: 4, cached_input: 0.5, source: 'override' });
    expect(list.body.models.find((m: any) => m.model === 'gpt-4o').source).toBe('table');
  });

  it('an override of a shipped model wins, and removing it restores the table price', async () => {
    const shipped = (await call(service.baseUrl, 'GET', '/api/v1/prices', { token: admin })).body.models.find((m: any) => m.model === 'gpt-4o-mini');
    expect((await call(service.baseUrl, 'PUT', '/api/v1/prices/gpt-4o-mini', { token: admin, body: { input: 10, output: 10 } })).status).toBe(201);
    await untilPriced('gpt-4o-mini-2024-07-18', 25);
    expect((await call(service.baseUrl, 'DELETE', '/api/v1/prices/gpt-4o-mini', { token: admin })).status).toBe(204);
    await untilPriced('gpt-4o-mini', (2 * shipped.input + 0.5 * shipped.output));
    expect((await call(service.baseUrl, 'DELETE', '/api/v1/prices/gpt-4o-mini', { token: admin })).status).toBe(404);
  });

  it('refuses a negative price with 422', async () => {
    const res = await call(service.baseUrl, 'PUT', '/api/v1/prices/x', { token: admin, body: { input: -1, output: 1 } });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].path).toBe('/input');
  });

  it('the setup script sets prices with --price', async () => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'scripts/setup.ts', '--price', 'house-model=0.5,1.5,0.1', '--price', 'other-model=2,3', '--json'], {
      env: { ...process.env, DATABASE_URL: service.databaseUrl, PASSWORD_HASH_COST: '10' },
    });
    expect(JSON.parse(stdout).prices).toHaveLength(2);
    await untilPriced('house-model', 2 * 0.5 + 0.5 * 1.5);
    const bad = await run(process.execPath, ['--import', 'tsx', 'scripts/setup.ts', '--price', 'broken'], { env: { ...process.env, DATABASE_URL: service.databaseUrl } }).catch((e) => e);
    expect(bad.code).toBe(2);
  });
});
