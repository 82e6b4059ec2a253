import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccessTokens } from '../api/auth/access-tokens.ts';
import { readJwtSecret } from '../lib/instance-settings.ts';
import { createDatabase } from '../lib/postgres/database.ts';
import { createAgent, createAgentInTransaction } from '../lib/registry/store.ts';
import { call, startTestService, type TestService } from './helpers/service.ts';

let service: TestService;
let admin: string;
let member: string;

async function tokenFor(role: 'admin' | 'member'): Promise<string> {
  const { rows } = await service.db.query("INSERT INTO users (email, password_hash, role) VALUES ($1, 'unused', $2) RETURNING id", [
    `${role}-${randomUUID()}@example.com`,
    role,
  ]);
  return createAccessTokens(await readJwtSecret(service.db)).issue({ userId: rows[0]!.id, role, passwordChangeOnly: false });
}

const post = (body: unknown, token = member) => call(service.baseUrl, 'POST', '/api/v1/agents', { body, token });
const patch = (id: string, body: unknown, token = member) => call(service.baseUrl, 'PATCH', `/api/v1/agents/${id}`, { body, token });
const get = (id: string, token = member) => call(service.baseUrl, 'GET', `/api/v1/agents/${id}`, { token });
const agentCount = async () => (await service.db.query('SELECT count(*)::int AS n FROM agents')).rows[0]!.n as number;
const unique = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  service = await startTestService();
  admin = await tokenFor('admin');
  member = await tokenFor('member');
});
afterAll(async () => {
  await service?.stop();
});

function expectProblem(res: { status: number; headers: Headers; body: any }, status: number, code: string): void {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toBe('application/problem+json');
  expect(res.body).toMatchObject({ status, code, type: `urn:agent-ops-registry:problem:${code}` });
}

describe('Bearer routes of the registry', () => {
  it('answer 401 problem+json without a token, and with a bad one', async () => {
    const id = randomUUID();
    const routes: Array<[string, string, unknown?]> = [
      ['GET', '/api/v1/agents'],
      ['GET', `/api/v1/agents/${id}`],
      ['POST', '/api/v1/agents', { name: 'x', framework: 'y' }],
      ['PATCH', `/api/v1/agents/${id}`, { name: 'x' }],
      ['GET', '/api/v1/registry/stats'],
    ];
    for (const [method, path, body] of routes) {
      expectProblem(await call(service.baseUrl, method, path, { body }), 401, 'missing_token');
      expectProblem(await call(service.baseUrl, method, path, { body, token: 'not-a-jwt' }), 401, 'invalid_token');
    }
  });
});

describe('POST /api/v1/agents', () => {
  it('creates an agent with defaults: 201, PENDING_REVIEW, framework upper-cased, external_id = name', async () => {
    const name = unique('Invoice Bot');
    const res = await post({ name, framework: ' LangChain ', department: 'Finance', contains_pii: true });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(`/api/v1/agents/${res.body.agent_id}`);
    expect(res.body).toMatchObject({
      name,
      external_id: name,
      framework: 'LANGCHAIN',
      status: 'PENDING_REVIEW',
      source: 'api',
      owner_email: null,
      department: 'Finance',
      contains_pii: true,
      external_llm_calls: false,
      writes_to_systems: false,
      hitl_required: false,
      primary_model: null,
      model_provider: null,
      probe_reachable: null,
      probe_tls_valid: null,
      endpoint_url: null,
      version: null,
      last_seen_at: null,
      discrepancies: [],
      // PII 20 + no owner 10 + pending review 5
      risk_score: 35,
      risk_level: 'MEDIUM',
    });
    expect(res.body.risk_factors.map((f: any) => [f.factor, f.points])).toEqual([
      ['contains_pii', 20],
      ['no_owner', 10],
      ['unreviewed', 5],
    ]);
    expect(res.body.agent_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(res.body.updated_at).toBe(res.body.created_at);
    const { telemetry, ...detail } = (await get(res.body.agent_id)).body;
    expect(detail).toEqual(res.body);
    // The detail view adds the agent's telemetry of the last 7 days: none yet.
    expect(telemetry).toMatchObject({ spans: 0 });
  });

  it('stores every optional field it accepts', async () => {
    const body = {
      name: unique('Full'),
      framework: 'crewai',
      external_id: unique('full-ext'),
      owner_email: 'owner@example.com',
      department: 'Ops',
      contains_pii: false,
      external_llm_calls: true,
      writes_to_systems: true,
      hitl_required: true,
      primary_model: 'gpt-4o',
      model_provider: 'openai',
      endpoint_url: 'https://agent.example.com/run',
      description: 'Reconciles invoices.',
    };
    const res = await post(body);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ ...body, framework: 'CREWAI', risk_score: 15, risk_level: 'LOW' });
  });

  it('answers 409 external_id_taken for a duplicate external_id (given or defaulted from the name)', async () => {
    const name = unique('Dup');
    expect((await post({ name, framework: 'x' })).status).toBe(201);
    const before = await agentCount();
    expectProblem(await post({ name, framework: 'x' }), 409, 'external_id_taken');
    expectProblem(await post({ name: 'other', external_id: name, framework: 'x' }), 409, 'external_id_taken');
    expect(await agentCount()).toBe(before);
  });

  it('answers 422 with field errors for bodies that break a rule', async () => {
    const cases: Array<[unknown, string]> = [
      [{ framework: 'x' }, '/name'],
      [{ name: 'x' }, '/framework'],
      [{ name: '   ', framework: 'x' }, '/name'],
      [{ name: 'x'.repeat(201), framework: 'x' }, '/name'],
      [{ name: 'x', framework: 'x', owner_email: 'not-an-email' }, '/owner_email'],
      [{ name: 'x', framework: 'x', endpoint_url: 'ftp://example.com' }, '/endpoint_url'],
      [{ name: 'x', framework: 'x', contains_pii: 'yes' }, '/contains_pii'],
      [{ name: 'x', framework: 'x', risk_score: 3 }, '/risk_score'],
    ];
    for (const [body, path] of cases) {
      const res = await post(body);
      expectProblem(res, 422, 'validation_failed');
      expect(res.body.errors.map((e: any) => e.path), JSON.stringify(body)).toContain(path);
    }
  });

  it('answers 400 malformed_json for a body that does not parse', async () => {
    const res = await call(service.baseUrl, 'POST', '/api/v1/agents', { rawBody: '{"name":', token: member, headers: { 'content-type': 'application/json' } });
    expectProblem(res, 400, 'malformed_json');
  });
});

describe('GET /api/v1/agents/{agent_id}', () => {
  it('answers 404 for a malformed and for an unknown uuid', async () => {
    expectProblem(await get('not-a-uuid'), 404, 'not_found');
    expectProblem(await get(randomUUID()), 404, 'not_found');
  });
});

describe('PATCH /api/v1/agents/{agent_id}', () => {
  it('updates only the given fields, recomputes risk, and clears the owner with null', async () => {
    const created = (await post({ name: unique('Patchy'), framework: 'x', owner_email: 'a@example.com', department: 'Legal' })).body;
    expect(created.risk_score).toBe(5);
    const res = await patch(created.agent_id, { writes_to_systems: true, framework: 'autogen' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ framework: 'AUTOGEN', writes_to_systems: true, owner_email: 'a@example.com', department: 'Legal', risk_score: 25, risk_level: 'MEDIUM' });
    expect(Date.parse(res.body.updated_at)).toBeGreaterThan(Date.parse(created.updated_at));
    const cleared = await patch(created.agent_id, { owner_email: null, department: null });
    expect(cleared.body).toMatchObject({ owner_email: null, department: null, risk_score: 35 });
    expect(cleared.body.risk_factors.map((f: any) => f.factor)).toContain('no_owner');
  });

  it('renames the external_id, and answers 409 when the new one is taken', async () => {
    const a = (await post({ name: unique('A'), framework: 'x' })).body;
    const b = (await post({ name: unique('B'), framework: 'x' })).body;
    const renamed = await patch(a.agent_id, { external_id: `${a.external_id}-v2` });
    expect(renamed.body.external_id).toBe(`${a.external_id}-v2`);
    expectProblem(await patch(a.agent_id, { external_id: b.external_id }), 409, 'external_id_taken');
    expect((await get(a.agent_id)).body.external_id).toBe(`${a.external_id}-v2`);
  });

  it('answers 422 for unknown or read-only fields and bad values, 404 for an unknown agent', async () => {
    const a = (await post({ name: unique('Strict'), framework: 'x' })).body;
    for (const body of [{ colour: 'red' }, { risk_score: 1 }, { agent_id: randomUUID() }, { name: null }, { status: 'RETIRED' }, { owner_email: 'nope' }]) {
      expectProblem(await patch(a.agent_id, body), 422, 'validation_failed');
    }
    expectProblem(await patch(randomUUID(), { name: 'x' }), 404, 'not_found');
    expectProblem(await patch('nope', { name: 'x' }), 404, 'not_found');
  });

  it('walks the review workflow: each legal transition, each illegal one, and approval by admins only', async () => {
    const { agent } = await createAgent(service.db, { name: unique('Found'), framework: 'x' }, { source: 'discovery', status: 'DISCOVERED' });
    const id = agent.agent_id;
    const to = (status: string, token = member) => patch(id, { status }, token);

    expectProblem(await to('APPROVED', admin), 422, 'invalid_transition'); // DISCOVERED → APPROVED skips review
    expectProblem(await to('APPROVED', member), 403, 'admin_required');
    expect((await to('PENDING_REVIEW')).body.status).toBe('PENDING_REVIEW');
    expectProblem(await to('DISCOVERED'), 422, 'invalid_transition');
    expectProblem(await to('APPROVED', member), 403, 'admin_required');
    expect((await get(id)).body.status).toBe('PENDING_REVIEW');
    const approved = await to('APPROVED', admin);
    expect(approved.status).toBe(200);
    expect(approved.body.status).toBe('APPROVED');
    expect(approved.body.risk_factors.map((f: any) => f.factor)).not.toContain('unreviewed');
    expectProblem(await to('DISCOVERED', admin), 422, 'invalid_transition');
    expect((await to('PENDING_REVIEW')).body.status).toBe('PENDING_REVIEW'); // re-review, by a member
  });
});

describe('agent limit at API create', () => {
  it('refuses with 403 agent_limit_reached at the limit, storing nothing, and creates again once raised', async () => {
    const count = await agentCount();
    await service.db.query('UPDATE instance_settings SET agent_limit = $1', [count]);
    try {
      const name = unique('Over');
      expectProblem(await post({ name, framework: 'x' }), 403, 'agent_limit_reached');
      expect(await agentCount()).toBe(count);
      await service.db.query('UPDATE instance_settings SET agent_limit = $1', [count + 1]);
      expect((await post({ name, framework: 'x' })).status).toBe(201);
    } finally {
      await service.db.query('UPDATE instance_settings SET agent_limit = 1000');
    }
  });

  it('serialises creations on the settings row: a second creation waits for the first to commit', async () => {
    const db = createDatabase(service.databaseUrl, { max: 2 });
    const client = await db.pool.connect();
    try {
      await service.db.query('UPDATE instance_settings SET agent_limit = $1', [(await agentCount()) + 1]);
      await client.query('BEGIN');
      await createAgentInTransaction(client, { name: unique('First'), framework: 'x' }, { source: 'api', status: 'PENDING_REVIEW' });
      let settled = false;
      const second = createAgent(db, { name: unique('Second'), framework: 'x' }, { source: 'api', status: 'PENDING_REVIEW' }).finally(() => (settled = true));
      second.catch(() => undefined);
      await new Promise((r) => setTimeout(r, 300));
      expect(settled).toBe(false); // blocked on the lock, not counting a stale number
      await client.query('COMMIT');
      await expect(second).rejects.toMatchObject({ code: 'agent_limit_reached', status: 403 });
    } finally {
      client.release();
      await db.close();
      await service.db.query('UPDATE instance_settings SET agent_limit = 1000');
    }
  });

  it('lets exactly the remaining room through when creations race', async () => {
    const count = await agentCount();
    await service.db.query('UPDATE instance_settings SET agent_limit = $1', [count + 2]);
    try {
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => post({ name: unique(`Race${i}`), framework: 'x' })));
      expect(results.map((r) => r.status).sort()).toEqual([201, 201, ...Array(18).fill(403)]);
      expect(await agentCount()).toBe(count + 2);
    } finally {
      await service.db.query('UPDATE instance_settings SET agent_limit = 1000');
    }
  });
});
