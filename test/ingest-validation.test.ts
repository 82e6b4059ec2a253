// Every field rule of the write endpoints answers 400/413/415/422 problem+json and stores
// nothing: no signal, no check result, no cost event, no auto-registered agent.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestService, type TestService } from './helpers/service.ts';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => {
  await service?.stop();
});

const signal = (overrides: Record<string, unknown> = {}) => ({
  agent_id: 'validation-agent',
  job_id: 'job-1',
  overall_passed: true,
  latency_ms: 10,
  checks: [{ check_id: 'c', severity: 'HIGH', passed: true }],
  ...overrides,
});
const cost = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  agent_id: 'validation-agent',
  job_id: 'job-1',
  model: 'gpt-4o',
  provider: 'openai',
  input_tokens: 10,
  output_tokens: 5,
  ...overrides,
});

const badSignals: Array<[string, unknown, number, string?]> = [
  ['missing agent_id', { ...signal(), agent_id: undefined }, 422, '/agent_id'],
  ['job_id differs from the path', signal({ job_id: 'other' }), 422, '/job_id'],
  ['overall_passed not boolean', signal({ overall_passed: 'yes' }), 422, '/overall_passed'],
  ['negative latency', signal({ latency_ms: -1 }), 422, '/latency_ms'],
  ['fractional tokens', signal({ token_input: 1.5 }), 422, '/token_input'],
  ['negative tokens', signal({ token_output: -3 }), 422, '/token_output'],
  ['check without passed', signal({ checks: [{ check_id: 'c', severity: 'HIGH' }] }), 422, '/checks/0/passed'],
  ['expected not a decimal', signal({ checks: [{ check_id: 'c', severity: 'HIGH', passed: true, expected: 'abc' }] }), 422, '/checks/0/expected'],
  ['too many checks', signal({ checks: Array.from({ length: 201 }, (_, i) => ({ check_id: `c${i}`, severity: 'LOW', passed: true })) }), 422, '/checks'],
  ['agent_id too long', signal({ agent_id: 'x'.repeat(201) }), 422, '/agent_id'],
  ['unknown field', signal({ surprise: 1 }), 422, '/surprise'],
  ['event_id not a uuid', signal({ event_id: 'nope' }), 422, '/event_id'],
  ['occurred_at in the far past', signal({ occurred_at: '2001-01-01T00:00:00Z' }), 422, '/occurred_at'],
  ['occurred_at in the future', signal({ occurred_at: new Date(Date.now() + 3_600_000).toISOString() }), 422, '/occurred_at'],
  ['body is an array', [signal()], 422],
];

const badCosts: Array<[string, unknown, number, string?]> = [
  ['missing model', { ...cost(), model: undefined }, 422, '/model'],
  ['tokens as strings', cost({ input_tokens: '10' }), 422, '/input_tokens'],
  ['cached above input', cost({ cached_input_tokens: 11 }), 422, '/cached_input_tokens'],
  ['provider empty', cost({ provider: '' }), 422, '/provider'],
  ['too many tokens', cost({ output_tokens: 1e12 }), 422, '/output_tokens'],
];

async function nothingStored() {
  const counts = await service.analytics!.query<{ n: string }>(
    `SELECT toString((SELECT count() FROM raw_signals) + (SELECT count() FROM raw_check_results) + (SELECT count() FROM raw_cost_events)) AS n`,
  );
  expect(Number(counts[0]!.n)).toBe(0);
  const agents = await service.db.query<{ n: number }>('SELECT count(*)::int AS n FROM agents');
  expect(agents.rows[0]!.n).toBe(0);
}

function expectProblem(res: { status: number; headers: Headers; body: any }, status: number, path?: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toBe('application/problem+json');
  expect(res.body).toMatchObject({ status, type: expect.any(String), title: expect.any(String), detail: expect.any(String), code: expect.any(String) });
  if (path) expect(res.body.errors.map((e: any) => e.path)).toContain(path);
  expect(JSON.stringify(res.body)).not.toMatch(/SELECT|INSERT|at .*\.ts:\d+/);
}

describe('quality signal field rules', () => {
  it.each(badSignals)('%s → %i', async (_name, body, status, path) => {
    const res = await call(service.baseUrl, 'POST', '/api/v1/jobs/job-1/quality', { body });
    expectProblem(res, status, path);
  });
});

describe('cost event field rules', () => {
  it.each(badCosts)('%s → %i', async (_name, body, status, path) => {
    const res = await call(service.baseUrl, 'POST', '/api/v1/costs/events', { body });
    expectProblem(res, status, path);
  });
});

describe('transport rules', () => {
  it('malformed JSON → 400', async () => {
    const res = await call(service.baseUrl, 'POST', '/api/v1/costs/events', { rawBody: '{"agent_id": ', headers: { 'content-type': 'application/json' } });
    expectProblem(res, 400);
    expect(res.body.code).toBe('malformed_json');
  });

  it('wrong content type → 415', async () => {
    const res = await call(service.baseUrl, 'POST', '/api/v1/jobs/job-1/quality', { rawBody: JSON.stringify(signal()), headers: { 'content-type': 'text/plain' } });
    expectProblem(res, 415);
  });

  it('body over the limit → 413', async () => {
    const res = await call(service.baseUrl, 'POST', '/api/v1/costs/events', {
      rawBody: JSON.stringify(cost({ job_id: 'x'.repeat(2 * 1024 * 1024) })),
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(res, 413);
  });

  it('a batch that is not an array → 400; an empty one → 400', async () => {
    expectProblem(await call(service.baseUrl, 'POST', '/api/v1/quality/batch', { body: signal() }), 400);
    expectProblem(await call(service.baseUrl, 'POST', '/api/v1/quality/batch', { body: [] }), 400);
  });

  it('a batch of only invalid items → 207 with each item’s problem', async () => {
    const res = await call(service.baseUrl, 'POST', '/api/v1/costs/events/batch', {
      rawBody: `${JSON.stringify(cost({ model: '' }))}\nnot json\n`,
      headers: { 'content-type': 'application/x-ndjson' },
    });
    expect(res.status).toBe(207);
    expect(res.body).toMatchObject({ accepted: 0, rejected: 2 });
    expect(res.body.items.map((i: any) => [i.status, i.error.code])).toEqual([
      [422, 'validation_failed'],
      [400, 'malformed_json'],
    ]);
  });

  it('after all of the above nothing is stored', async () => {
    await nothingStored();
  });

  it('a valid batch with one bad item stores exactly the good ones', async () => {
    const good = cost({ event_id: randomUUID(), agent_id: 'ledger-only' });
    const res = await call(service.baseUrl, 'POST', '/api/v1/costs/events/batch', { body: [good, cost({ input_tokens: -1 })] });
    expect(res.status).toBe(207);
    expect(res.body.items[0].result.event_id).toBe(good.event_id);
    const stored = await service.analytics!.query<{ id: string }>('SELECT toString(event_id) AS id FROM raw_cost_events');
    expect(stored.map((r) => r.id)).toEqual([good.event_id]);
  });
});
