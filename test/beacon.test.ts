import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccessTokens } from '../api/auth/access-tokens.ts';
import { readJwtSecret } from '../lib/instance-settings.ts';
import { recordObservations } from '../lib/registry/store.ts';
import { call, startTestService, type TestService } from './helpers/service.ts';

let service: TestService;
let token: string;

const beacon = (body: unknown) => call(service.baseUrl, 'POST', '/api/v1/agents/beacon', { body });
const getAgent = async (id: string) => (await call(service.baseUrl, 'GET', `/api/v1/agents/${id}`, { token })).body;
const agentCount = async () => (await service.db.query('SELECT count(*)::int AS n FROM agents')).rows[0]!.n as number;
const unique = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  service = await startTestService();
  const { rows } = await service.db.query("INSERT INTO users (email, password_hash, role) VALUES ('m@example.com', 'unused', 'member') RETURNING id");
  token = await createAccessTokens(await readJwtSecret(service.db)).issue({ userId: rows[0]!.id, role: 'member', passwordChangeOnly: false });
});
afterAll(async () => {
  await service?.stop();
});

describe('POST /api/v1/agents/beacon', () => {
  it('registers an unknown agent (201, no token needed), then updates it (200)', async () => {
    const externalId = unique('invoice-agent');
    const first = await beacon({ agent_id: externalId, version: '1.0.0', framework: 'langgraph', endpoint_url: 'https://a.example.com/v1' });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ agent_id: expect.stringMatching(/^[0-9a-f-]{36}$/), external_id: externalId, status: 'PENDING_REVIEW', created: true, received_at: expect.any(String) });
    const created = await getAgent(first.body.agent_id);
    expect(created).toMatchObject({
      name: externalId,
      external_id: externalId,
      framework: 'LANGGRAPH',
      status: 'PENDING_REVIEW',
      source: 'beacon',
      version: '1.0.0',
      endpoint_url: 'https://a.example.com/v1',
      last_seen_at: first.body.received_at,
      discrepancies: [],
    });

    const second = await beacon({ agent_id: externalId, version: '1.1.0', framework: 'LangGraph', endpoint_url: 'https://a.example.com/v2' });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ agent_id: first.body.agent_id, external_id: externalId, status: 'PENDING_REVIEW', created: false });
    const updated = await getAgent(first.body.agent_id);
    expect(updated).toMatchObject({ version: '1.1.0', endpoint_url: 'https://a.example.com/v2', last_seen_at: second.body.received_at, discrepancies: [] });
    expect(Date.parse(updated.last_seen_at)).toBeGreaterThan(Date.parse(created.last_seen_at));
  });

  it('keeps the registry framework and reports a discrepancy when the beacon says another', async () => {
    const registered = await call(service.baseUrl, 'POST', '/api/v1/agents', { body: { name: unique('Declared'), framework: 'crewai', owner_email: 'o@example.com' }, token });
    const res = await beacon({ agent_id: registered.body.external_id, version: '2', framework: 'autogen' });
    expect(res.status).toBe(200);
    expect(res.body.agent_id).toBe(registered.body.agent_id);
    const agent = await getAgent(registered.body.agent_id);
    expect(agent.framework).toBe('CREWAI');
    expect(agent.discrepancies).toEqual([{ kind: 'framework_mismatch', detail: expect.any(String), declared: 'CREWAI', observed: 'AUTOGEN' }]);
    expect(agent.risk_factors).toContainEqual({ factor: 'discrepancies', points: 5, detail: expect.any(String) });
    expect(agent.risk_score).toBe(registered.body.risk_score + 5);
    const stats = await call(service.baseUrl, 'GET', '/api/v1/registry/stats', { token });
    expect(stats.body.has_discrepancies).toBeGreaterThanOrEqual(1);

    // Agreeing again clears it.
    await beacon({ agent_id: registered.body.external_id, framework: 'CrewAI' });
    expect((await getAgent(registered.body.agent_id)).discrepancies).toEqual([]);
  });

  it('resolves a registry uuid first, then an external_id', async () => {
    const a = await beacon({ agent_id: unique('by-uuid'), framework: 'x' });
    const byUuid = await beacon({ agent_id: a.body.agent_id, framework: 'x', version: '9' });
    expect(byUuid.status).toBe(200);
    expect(byUuid.body).toMatchObject({ agent_id: a.body.agent_id, created: false });
    expect((await getAgent(a.body.agent_id)).version).toBe('9');
  });

  it('clears probe results when the endpoint moves (they described the old URL)', async () => {
    const a = await beacon({ agent_id: unique('probed'), framework: 'x', endpoint_url: 'https://old.example.com' });
    await recordObservations(service.db, a.body.agent_id, { probe: { reachable: false, tlsValid: false } });
    expect((await getAgent(a.body.agent_id)).discrepancies.map((d: any) => d.kind)).toEqual(['tls_invalid']);
    await beacon({ agent_id: a.body.external_id, framework: 'x', endpoint_url: 'https://new.example.com' });
    const moved = await getAgent(a.body.agent_id);
    expect(moved).toMatchObject({ endpoint_url: 'https://new.example.com', probe_reachable: null, probe_tls_valid: null, discrepancies: [] });
  });

  it('creates one agent when first beacons of the same agent race', async () => {
    const externalId = unique('racer');
    const before = await agentCount();
    const results = await Promise.all(Array.from({ length: 5 }, () => beacon({ agent_id: externalId, framework: 'x' })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 201]);
    expect(new Set(results.map((r) => r.body.agent_id)).size).toBe(1);
    expect(await agentCount()).toBe(before + 1);
  });

  it('answers 422 with field errors for bodies that break a rule', async () => {
    const cases: Array<[unknown, string]> = [
      [{ framework: 'x' }, '/agent_id'],
      [{ agent_id: 'a' }, '/framework'],
      [{ agent_id: '', framework: 'x' }, '/agent_id'],
      [{ agent_id: 'a'.repeat(201), framework: 'x' }, '/agent_id'],
      [{ agent_id: 'a', framework: 'x', endpoint_url: 'ftp://files.example.com' }, '/endpoint_url'],
      [{ agent_id: 'a', framework: 'x', endpoint_url: 'not a url' }, '/endpoint_url'],
      [{ agent_id: 'a', framework: 'x', version: 'v'.repeat(101) }, '/version'],
      [{ agent_id: 7, framework: 'x' }, '/agent_id'],
    ];
    const before = await agentCount();
    for (const [body, path] of cases) {
      const res = await beacon(body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.errors.map((e: any) => e.path)).toContain(path);
    }
    expect(await agentCount()).toBe(before);
  });

  it('answers 400 for malformed JSON and 415 for another content type', async () => {
    const bad = await call(service.baseUrl, 'POST', '/api/v1/agents/beacon', { rawBody: '{"agent_id": "x"', headers: { 'content-type': 'application/json' } });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('malformed_json');
    const text = await call(service.baseUrl, 'POST', '/api/v1/agents/beacon', { rawBody: 'agent_id=x', headers: { 'content-type': 'text/plain' } });
    expect(text.status).toBe(415);
  });

  it('refuses a new agent at the agent limit with 403 (nothing stored) but still updates known ones', async () => {
    const known = await beacon({ agent_id: unique('known'), framework: 'x', version: '1' });
    const count = await agentCount();
    await service.db.query('UPDATE instance_settings SET agent_limit = $1', [count]);
    try {
      const refused = await beacon({ agent_id: unique('one-too-many'), framework: 'x' });
      expect(refused.status).toBe(403);
      expect(refused.headers.get('content-type')).toBe('application/problem+json');
      expect(refused.body.code).toBe('agent_limit_reached');
      expect(await agentCount()).toBe(count);
      const update = await beacon({ agent_id: known.body.external_id, framework: 'x', version: '2' });
      expect(update.status).toBe(200);
      expect((await getAgent(known.body.agent_id)).version).toBe('2');
    } finally {
      await service.db.query('UPDATE instance_settings SET agent_limit = 1000');
    }
  });
});
