// Discovery scans end to end through the real service: the scan API (202, progress, list,
// errors), and the code scanner over test/fixtures/code-scan run by the workers tier: one
// DISCOVERED agent per sample project with its evidence, and a rescan that updates, never adds.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestService, type TestService } from './helpers/service.ts';
import { tokenFor } from './helpers/tokens.ts';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'code-scan');
const PROJECTS: Record<string, string> = {
  'langchain-support': 'LANGCHAIN',
  'langgraph-router': 'LANGGRAPH',
  'crewai-research': 'CREWAI',
  'autogen-team': 'AUTOGEN',
  'llamaindex-clinic': 'LLAMAINDEX',
  'openai-agents-billing': 'OPENAI_AGENTS',
  'semantic-kernel-hr': 'SEMANTIC_KERNEL',
  'haystack-rag': 'HAYSTACK',
  'pydantic-ai-claims': 'PYDANTIC_AI',
  'mastra-weather': 'MASTRA',
  'vercel-ai-delivery': 'VERCEL_AI_SDK',
  'google-adk-travel': 'GOOGLE_ADK',
  'smolagents-research': 'SMOLAGENTS',
};

let service: TestService;
let member: string;
let admin: string;

const api = (method: string, pathname: string, body?: unknown, token = member) => call(service.baseUrl, method, pathname, { body, token });

/** Polls GET /scans/{id} until the scan leaves queued/running; returns every state seen. */
async function waitForScan(id: string, timeoutMs = 20_000): Promise<{ scan: any; seen: string[] }> {
  const seen: string[] = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await api('GET', `/api/v1/discovery/scans/${id}`);
    expect(res.status).toBe(200);
    if (seen.at(-1) !== res.body.status) seen.push(res.body.status);
    if (res.body.status === 'succeeded' || res.body.status === 'failed') return { scan: res.body, seen };
    if (Date.now() > deadline) throw new Error(`scan ${id} still ${res.body.status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function scan(scanner: string, token = member): Promise<any> {
  const res = await api('POST', '/api/v1/discovery/scan', { scanner }, token);
  expect(res.status).toBe(202);
  return (await waitForScan(res.body.id)).scan;
}

const discoveredAgents = async () =>
  (await service.db.query(`SELECT id, external_id, framework, status, source FROM agents WHERE source = 'discovery' ORDER BY external_id`)).rows;

beforeAll(async () => {
  service = await startTestService();
  member = await tokenFor(service.db, 'member');
  admin = await tokenFor(service.db, 'admin');
  await service.db.query('UPDATE instance_settings SET code_scan_folders = $1', [[FIXTURES]]);
});
afterAll(async () => {
  await service?.stop();
});

describe('scan API', () => {
  it('answers 401 without a token on every discovery route', async () => {
    for (const [method, p, body] of [
      ['POST', '/api/v1/discovery/scan', { scanner: 'all' }],
      ['GET', `/api/v1/discovery/scans/${randomUUID()}`],
      ['GET', '/api/v1/discovery/scans'],
    ] as const) {
      const res = await call(service.baseUrl, method, p, { body });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('missing_token');
    }
  });

  it('refuses an unknown or missing scanner with 422 and queues nothing', async () => {
    for (const body of [{ scanner: 'network' }, {}, { scanner: 7 }, { scanner: 'code', extra: true }]) {
      const res = await api('POST', '/api/v1/discovery/scan', body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.code).toBe('validation_failed');
    }
    expect((await service.db.query('SELECT count(*)::int AS n FROM discovery_scans')).rows[0]!.n).toBe(0);
  });

  it('answers 404 for an unknown scan id and for a malformed one', async () => {
    for (const id of [randomUUID(), 'not-a-uuid']) {
      const res = await api('GET', `/api/v1/discovery/scans/${id}`);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('not_found');
    }
  });
});

describe('code scan over the fixture projects', () => {
  let first: any;

  it('answers 202 with the scan and a Location, then runs it to succeeded', async () => {
    const started = await api('POST', '/api/v1/discovery/scan', { scanner: 'CODE' });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ scanner: 'code', found: 0, created: 0, updated: 0, error: null });
    expect(['queued', 'running']).toContain(started.body.status);
    expect(started.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Date.parse(started.body.started_at)).toBeGreaterThan(Date.now() - 60_000);
    expect(started.headers.get('location')).toBe(`/api/v1/discovery/scans/${started.body.id}`);
    expect(started.body.progress).toMatchObject({ scanners_total: 1 });

    const { scan: done, seen } = await waitForScan(started.body.id);
    expect(seen.at(-1)).toBe('succeeded');
    expect(done.error).toBeNull();
    expect(Date.parse(done.running_at)).toBeGreaterThanOrEqual(Date.parse(done.started_at));
    expect(Date.parse(done.finished_at)).toBeGreaterThanOrEqual(Date.parse(done.running_at));
    expect(done.progress).toEqual({ scanners_total: 1, scanners_done: 1, current: null });
    const n = Object.keys(PROJECTS).length;
    expect(done).toMatchObject({ found: n, created: n, updated: 0, not_created: 0 });
    expect(done.results.code).toMatchObject({ status: 'succeeded', found: n, created: n, updated: 0 });
    expect(done.results.code.details.files_scanned).toBeGreaterThan(20);
    expect(done.results.code.agents.every((a: any) => a.action === 'created' && a.agent_id)).toBe(true);
    first = done;
  });

  it('created one DISCOVERED agent per fixture project with its framework, none for the plain Flask app', async () => {
    const agents = await discoveredAgents();
    expect(agents.map((a) => a.external_id)).toEqual(Object.keys(PROJECTS).map((p) => `code:code-scan/${p}`).sort());
    for (const agent of agents) {
      expect(agent.status).toBe('DISCOVERED');
      expect(agent.framework).toBe(PROJECTS[agent.external_id.replace('code:code-scan/', '')]);
    }
    expect(agents.some((a) => a.external_id.includes('no-agent'))).toBe(false);
  });

  it('returns the evidence with the agent: framework, model and key lines that exist in the files', async () => {
    const id = first.results.code.agents.find((a: any) => a.external_id === 'code:code-scan/langchain-support').agent_id;
    const agent = (await api('GET', `/api/v1/agents/${id}`)).body;
    expect(agent).toMatchObject({ status: 'DISCOVERED', source: 'discovery', framework: 'LANGCHAIN', primary_model: 'gpt-4o-mini', model_provider: 'OPENAI', contains_pii: true, external_llm_calls: true });
    expect(agent.discovery).toMatchObject({ scanners: ['code'], last_scan_id: first.id });
    expect(agent.discovery.facts.code).toMatchObject({ api_key_env_vars: ['OPENAI_API_KEY'], pii_hints: ['email', 'phone'], models: ['gpt-4o-mini'] });
    const kinds = new Set(agent.discovery.evidence.map((e: any) => e.kind));
    for (const kind of ['framework', 'model', 'api_key', 'pii']) expect(kinds).toContain(kind);
    for (const e of agent.discovery.evidence) {
      expect(e.scanner).toBe('code');
      const lines = (await readFile(path.join(FIXTURES, e.file), 'utf8')).split('\n');
      expect(lines[e.line - 1], `${e.file}:${e.line}`).toContain(e.match);
    }
    const framework = agent.discovery.evidence.find((e: any) => e.kind === 'framework');
    expect(framework.file).toBe('langchain-support/support_agent.py');
  });

  it('a rescan updates every agent and creates none; a field someone edited is kept', async () => {
    const billing = first.results.code.agents.find((a: any) => a.external_id === 'code:code-scan/openai-agents-billing').agent_id;
    const edited = await api('PATCH', `/api/v1/agents/${billing}`, { primary_model: 'gpt-4.1', owner_email: 'billing@example.com' });
    expect(edited.status).toBe(200);
    const before = (await service.db.query('SELECT count(*)::int AS n FROM agents')).rows[0]!.n;

    const again = await scan('code', admin);
    const n = Object.keys(PROJECTS).length;
    expect(again).toMatchObject({ status: 'succeeded', found: n, created: 0, updated: n, not_created: 0 });
    expect((await service.db.query('SELECT count(*)::int AS n FROM agents')).rows[0]!.n).toBe(before);

    const agent = (await api('GET', `/api/v1/agents/${billing}`)).body;
    expect(agent.discovery.last_scan_id).toBe(again.id);
    expect(agent.discovery.evidence.filter((e: any) => e.scanner === 'code').length).toBeLessThanOrEqual(50);
    expect(agent.primary_model).toBe('gpt-4.1');
    expect(agent.owner_email).toBe('billing@example.com');
    expect(agent.framework).toBe('OPENAI_AGENTS');
    expect(agent.model_provider).toBe('OPENAI');
  });

  it('lists recent scans newest first, bounded by limit', async () => {
    const res = await api('GET', '/api/v1/discovery/scans?limit=1');
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(1);
    const all = (await api('GET', '/api/v1/discovery/scans')).body;
    expect(all.map((s: any) => s.scanner)).toEqual(['code', 'code']);
    expect(all[1].id).toBe(first.id);
    expect(res.body[0].id).toBe(all[0].id);
    expect(Date.parse(all[0].started_at)).toBeGreaterThanOrEqual(Date.parse(all[1].started_at));
    expect((await api('GET', '/api/v1/discovery/scans?limit=0')).status).toBe(400);
  });
});
