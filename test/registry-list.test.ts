import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccessTokens } from '../api/auth/access-tokens.ts';
import { readJwtSecret } from '../lib/instance-settings.ts';
import { createAgent, recordObservations } from '../lib/registry/store.ts';
import { call, startTestService, type TestService } from './helpers/service.ts';

// One fixed data set, read by every test below; the limit tests at the end add rows last.
let service: TestService;
let token: string;
const ids: Record<string, string> = {};
const creationOrder: string[] = [];

const list = (query = '') => call(service.baseUrl, 'GET', `/api/v1/agents${query}`, { token });
const names = async (query: string) => {
  const res = await list(query);
  expect(res.status, query).toBe(200);
  return res.body.map((a: any) => a.name) as string[];
};
const sorted = (values: string[]) => [...values].sort();

beforeAll(async () => {
  service = await startTestService();
  const { rows } = await service.db.query("INSERT INTO users (email, password_hash, role) VALUES ('admin@example.com', 'unused', 'admin') RETURNING id");
  token = await createAccessTokens(await readJwtSecret(service.db)).issue({ userId: rows[0]!.id, role: 'admin', passwordChangeOnly: false });
  const create = async (body: Record<string, unknown>) => {
    const res = await call(service.baseUrl, 'POST', '/api/v1/agents', { body, token });
    expect(res.status).toBe(201);
    ids[body.name as string] = res.body.agent_id;
    creationOrder.push(body.name as string);
  };
  // Scores (docs/risk.md): pending review 5, no owner 10, PII 20, writes without HITL 20, LLM 10.
  await create({ name: 'Alpha Invoice Bot', framework: 'langchain', department: 'Finance', owner_email: 'a@example.com', contains_pii: true, writes_to_systems: true, external_llm_calls: true }); // 55 HIGH
  await create({ name: 'beta_helper', framework: 'CrewAI', department: 'finance', contains_pii: true }); // 35 MEDIUM
  await create({ name: 'Gamma 100% Agent', framework: 'LANGCHAIN', department: 'Support', owner_email: 'g@example.com' }); // 5, approved below → 0
  await create({ name: 'delta', external_id: 'ext-DELTA-007', framework: 'autogen', contains_pii: true, writes_to_systems: true, external_llm_calls: true }); // 65
  const epsilon = await createAgent(service.db, { name: 'Epsilon', framework: 'langchain' }, { source: 'discovery', status: 'DISCOVERED' }); // 20 LOW
  ids.Epsilon = epsilon.agent.agent_id;
  creationOrder.push('Epsilon');
  await create({ name: 'Zeta', framework: 'x', owner_email: 'z@example.com' }); // 5 LOW
  await create({ name: 'eta', framework: 'x', owner_email: 'e@example.com' }); // 5 LOW
  expect((await call(service.baseUrl, 'PATCH', `/api/v1/agents/${ids['Gamma 100% Agent']}`, { body: { status: 'APPROVED' }, token })).status).toBe(200);
  // Unreachable (+10) with invalid TLS (+10, and a tls_invalid discrepancy): 85 CRITICAL.
  await recordObservations(service.db, ids.delta!, { probe: { reachable: false, tlsValid: false } });
});
afterAll(async () => {
  await service?.stop();
});

describe('GET /api/v1/agents sorting', () => {
  it('sorts by risk_score descending by default, ties broken by id in the same direction', async () => {
    const res = await list();
    expect(res.body.map((a: any) => a.risk_score)).toEqual([85, 55, 35, 20, 5, 5, 0]);
    const tied = res.body.filter((a: any) => a.risk_score === 5).map((a: any) => a.agent_id);
    expect(tied).toEqual([ids.Zeta, ids.eta].sort().reverse());
    expect(res.body[0]).toMatchObject({ name: 'delta', risk_level: 'CRITICAL', probe_reachable: false, probe_tls_valid: false });
  });

  it('returns the exact reverse with sort_dir=asc', async () => {
    const desc = await names('?sort_by=risk_score&sort_dir=desc');
    expect(await names('?sort_dir=asc')).toEqual([...desc].reverse());
  });

  it('sorts by name, case-insensitively, both directions', async () => {
    const expected = ['Alpha Invoice Bot', 'beta_helper', 'delta', 'Epsilon', 'eta', 'Gamma 100% Agent', 'Zeta'];
    expect(await names('?sort_by=name&sort_dir=asc')).toEqual(expected);
    expect(await names('?sort_by=name')).toEqual([...expected].reverse());
  });

  it('sorts by created_at, both directions', async () => {
    expect(await names('?sort_by=created_at&sort_dir=asc')).toEqual(creationOrder);
    expect(await names('?sort_by=created_at&sort_dir=desc')).toEqual([...creationOrder].reverse());
  });
});

describe('GET /api/v1/agents filters', () => {
  it('filters by status', async () => {
    expect(await names('?status=APPROVED')).toEqual(['Gamma 100% Agent']);
    expect(await names('?status=DISCOVERED')).toEqual(['Epsilon']);
    expect(sorted(await names('?status=PENDING_REVIEW'))).toEqual(sorted(['Alpha Invoice Bot', 'beta_helper', 'delta', 'Zeta', 'eta']));
  });

  it('filters by risk_level', async () => {
    expect(await names('?risk_level=CRITICAL')).toEqual(['delta']);
    expect(await names('?risk_level=HIGH')).toEqual(['Alpha Invoice Bot']);
    expect(await names('?risk_level=MEDIUM')).toEqual(['beta_helper']);
    expect(sorted(await names('?risk_level=LOW'))).toEqual(sorted(['Epsilon', 'Zeta', 'eta', 'Gamma 100% Agent']));
  });

  it('filters by framework, normalised to upper case', async () => {
    const langchain = sorted(['Alpha Invoice Bot', 'Gamma 100% Agent', 'Epsilon']);
    expect(sorted(await names('?framework=langchain'))).toEqual(langchain);
    expect(sorted(await names('?framework=LangChain'))).toEqual(langchain);
    expect(await names('?framework=crewai')).toEqual(['beta_helper']);
  });

  it('filters by department, case-insensitively', async () => {
    expect(sorted(await names('?department=FINANCE'))).toEqual(['Alpha Invoice Bot', 'beta_helper']);
    expect(await names('?department=Support')).toEqual(['Gamma 100% Agent']);
  });

  it('filters agents without an owner with no_owner=true, and not at all with false', async () => {
    expect(sorted(await names('?no_owner=true'))).toEqual(sorted(['beta_helper', 'delta', 'Epsilon']));
    expect(await names('?no_owner=false')).toHaveLength(7);
  });

  it('searches name and external_id case-insensitively', async () => {
    expect(await names('?search=INVOICE')).toEqual(['Alpha Invoice Bot']);
    expect(await names('?search=delta-007')).toEqual(['delta']); // only the external_id has it
    expect(sorted(await names('?search=ETA'))).toEqual(sorted(['beta_helper', 'eta', 'Zeta']));
  });

  it('matches LIKE wildcards literally', async () => {
    expect(await names('?search=_')).toEqual(['beta_helper']);
    expect(await names(`?search=${encodeURIComponent('%')}`)).toEqual(['Gamma 100% Agent']);
    expect(await names(`?search=${encodeURIComponent('\\')}`)).toEqual([]);
  });

  it('combines filters with AND', async () => {
    expect(await names('?framework=LANGCHAIN&no_owner=true')).toEqual(['Epsilon']);
    expect(await names('?department=finance&risk_level=MEDIUM&search=beta')).toEqual(['beta_helper']);
    expect(await names('?status=APPROVED&framework=CREWAI')).toEqual([]);
  });

  it('answers 400 invalid_query_parameter for bad values', async () => {
    for (const query of ['status=RETIRED', 'risk_level=SEVERE', 'sort_by=owner', 'sort_dir=up', 'no_owner=maybe', 'limit=ten', `search=${'x'.repeat(201)}`]) {
      const res = await list(`?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      expect(res.body.code).toBe('invalid_query_parameter');
    }
  });
});

describe('GET /api/v1/registry/stats', () => {
  it('counts the data set in one answer', async () => {
    const res = await call(service.baseUrl, 'GET', '/api/v1/registry/stats', { token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ total: 7, approved: 1, critical: 1, high: 1, medium: 1, low: 4, no_owner: 3, has_discrepancies: 1 });
  });

  it('follows a change: a discrepancy and an owner added', async () => {
    await recordObservations(service.db, ids.Zeta!, { beacon: { framework: 'CREWAI' } });
    await call(service.baseUrl, 'PATCH', `/api/v1/agents/${ids.Epsilon}`, { body: { owner_email: 'eps@example.com' }, token });
    const res = await call(service.baseUrl, 'GET', '/api/v1/registry/stats', { token });
    expect(res.body).toMatchObject({ total: 7, no_owner: 2, has_discrepancies: 2 });
  });
});

describe('GET /api/v1/agents limit', () => {
  beforeAll(async () => {
    await service.db.query(
      `INSERT INTO agents (external_id, name, framework, status) SELECT 'bulk-' || g, 'bulk ' || g, 'X', 'PENDING_REVIEW' FROM generate_series(1, 510) g`,
    );
  });

  it('returns 100 by default, up to 500 when asked, and refuses more with 400', async () => {
    expect((await list()).body).toHaveLength(100);
    expect((await list('?limit=3')).body).toHaveLength(3);
    expect((await list('?limit=500')).body).toHaveLength(500);
    for (const bad of ['501', '0', '-1', '2.5']) {
      const res = await list(`?limit=${bad}`);
      expect(res.status, bad).toBe(400);
      expect(res.body).toMatchObject({ code: 'invalid_query_parameter', errors: [{ path: '/query/limit' }] });
    }
  });

  it('pages stably: two calls with the same query return the same order', async () => {
    const first = (await list('?sort_by=risk_score&limit=200')).body.map((a: any) => a.agent_id);
    const second = (await list('?sort_by=risk_score&limit=200')).body.map((a: any) => a.agent_id);
    expect(second).toEqual(first);
    expect(new Set(first).size).toBe(200);
  });
});
