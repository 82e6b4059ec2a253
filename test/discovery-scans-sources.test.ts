// The other scanners through the real service and its workers: ledger (agents that only sent
// cost events, agents removed while their events remain), telemetry (agents only seen in spans),
// endpoints (closed port, self-signed TLS, plain HTTP), the agent limit during a code scan, a
// code change picked up by a rescan, `all`, a scan orphaned by a dead process, and coalescing.
import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { cp, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queueScan } from '../api/discovery/scan-rows.ts';
import { createServiceAccount } from '../lib/auth/service-accounts.ts';
import { createDatabase } from '../lib/postgres/database.ts';
import { migrate } from '../lib/postgres/migrate.ts';
import { createTestDatabase } from './helpers/database.ts';
import { call, startTestService, type TestService } from './helpers/service.ts';
import { tokenFor } from './helpers/tokens.ts';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'code-scan');

let service: TestService;
let member: string;
const servers: net.Server[] = [];

const api = (method: string, pathname: string, body?: unknown) => call(service.baseUrl, method, pathname, { body, token: member });
const agentCount = async () => (await service.db.query('SELECT count(*)::int AS n FROM agents')).rows[0]!.n as number;
const byExternalId = async (externalId: string) => {
  const { rows } = await service.db.query('SELECT id FROM agents WHERE external_id = $1', [externalId]);
  return rows[0] ? (await api('GET', `/api/v1/agents/${rows[0].id}`)).body : undefined;
};

async function waitForScan(id: string, timeoutMs = 30_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await api('GET', `/api/v1/discovery/scans/${id}`);
    if (res.body.status === 'succeeded' || res.body.status === 'failed') return res.body;
    if (Date.now() > deadline) throw new Error(`scan ${id} still ${res.body.status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function scan(scanner: string): Promise<any> {
  const res = await api('POST', '/api/v1/discovery/scan', { scanner });
  expect(res.status).toBe(202);
  return waitForScan(res.body.id);
}

async function listen(server: net.Server): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as net.AddressInfo).port;
}

beforeAll(async () => {
  service = await startTestService();
  member = await tokenFor(service.db, 'member');
});
afterAll(async () => {
  for (const s of servers) s.close();
  await service?.stop();
});

describe('ledger scanner', () => {
  it('registers an agent that only sent cost events, and one removed while its signals remain', async () => {
    const cost = (agent: string, model: string, provider: string) => ({
      event_id: randomUUID(), agent_id: agent, job_id: `j-${randomUUID()}`, model, provider, input_tokens: 1000, output_tokens: 100, occurred_at: new Date().toISOString(),
    });
    for (const body of [cost('billing-bot', 'gpt-4o', 'openai'), cost('billing-bot', 'gpt-4o', 'openai'), cost('billing-bot', 'gpt-4o-mini', 'openai')]) {
      expect((await call(service.baseUrl, 'POST', '/api/v1/costs/events', { body })).status).toBe(202);
    }
    const gone = await api('POST', '/api/v1/agents', { name: 'retired-agent', framework: 'langchain' });
    expect(gone.status).toBe(201);
    const signal = { event_id: randomUUID(), agent_id: 'retired-agent', job_id: 'r1', overall_passed: true, latency_ms: 5, checks: [{ check_id: 'format', severity: 'LOW', passed: true }] };
    expect((await call(service.baseUrl, 'POST', '/api/v1/jobs/r1/quality', { body: signal })).status).toBeLessThan(300);
    await service.db.query('DELETE FROM agents WHERE id = $1', [gone.body.agent_id]);

    const done = await scan('ledger');
    expect(done).toMatchObject({ status: 'succeeded', found: 2, created: 2, updated: 0 });
    const bot = await byExternalId('billing-bot');
    expect(bot).toMatchObject({ status: 'DISCOVERED', source: 'discovery', framework: 'UNKNOWN', primary_model: 'gpt-4o', model_provider: 'OPENAI', external_llm_calls: true });
    expect(bot.last_seen_at).not.toBeNull();
    expect(bot.discovery.evidence).toEqual([expect.objectContaining({ scanner: 'ledger', kind: 'cost_events', value: 'billing-bot', count: 3, models: ['gpt-4o', 'gpt-4o-mini'] })]);
    const retired = await byExternalId('retired-agent');
    expect(retired.agent_id).not.toBe(gone.body.agent_id);
    expect(retired.discovery.evidence).toEqual([expect.objectContaining({ kind: 'signals', value: gone.body.agent_id, count: 1 })]);
    expect(retired.discovery.facts.ledger.removed_agent_ids).toEqual([gone.body.agent_id]);

    const again = await scan('ledger');
    expect(again).toMatchObject({ status: 'succeeded', found: 2, created: 0, updated: 2 });
    expect((await service.db.query("SELECT count(*)::int AS n FROM agents WHERE external_id = 'billing-bot'")).rows[0]!.n).toBe(1);
  });
});

describe('telemetry scanner', () => {
  it('registers an agent only seen in spans under its gen_ai.agent.name', async () => {
    const token = (await createServiceAccount(service.db, 'collector')).token;
    const now = BigInt(Date.now()) * 1_000_000n;
    const attr = (key: string, value: string) => ({ key, value: { stringValue: value } });
    const body = {
      resourceSpans: [{
        resource: { attributes: [attr('service.name', 'travel-svc')] },
        scopeSpans: [{
          scope: { name: 'test' },
          spans: [{
            traceId: randomBytes(16).toString('hex'), spanId: randomBytes(8).toString('hex'), name: 'invoke_agent', kind: 1,
            startTimeUnixNano: String(now), endTimeUnixNano: String(now + 5_000_000n),
            attributes: [attr('gen_ai.agent.name', 'travel-planner'), attr('gen_ai.request.model', 'gpt-4o')],
          }],
        }],
      }],
    };
    const res = await call(service.baseUrl, 'POST', '/api/v1/otel/v1/traces', { body, token });
    expect(res.status).toBe(200);

    const done = await scan('telemetry');
    expect(done).toMatchObject({ status: 'succeeded', created: 1 });
    const agent = await byExternalId('travel-planner');
    expect(agent).toMatchObject({ name: 'travel-planner', status: 'DISCOVERED', external_llm_calls: true });
    expect(agent.discovery.evidence).toContainEqual(expect.objectContaining({ scanner: 'telemetry', kind: 'span_agent_name', value: 'travel-planner', count: 1, models: ['gpt-4o'] }));
    expect(agent.discovery.evidence).toContainEqual(expect.objectContaining({ kind: 'service_name', value: 'travel-svc' }));
  });
});

describe('endpoints scanner', () => {
  it('stores reachability and TLS validity of every endpoint_url', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'scan-pki-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'k.pem', '-out', 'c.pem', '-days', '2', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'], { cwd: dir, stdio: 'pipe' });
    const tls = { key: await readFile(path.join(dir, 'k.pem')), cert: await readFile(path.join(dir, 'c.pem')) };
    const answer = (_q: http.IncomingMessage, r: http.ServerResponse) => r.writeHead(204).end();
    const selfSigned = await listen(https.createServer(tls, answer));
    const plain = await listen(http.createServer(answer));
    const closer = net.createServer();
    const closed = await listen(closer);
    await new Promise((r) => closer.close(r));
    servers.pop();

    const endpoints = { 'ep-closed': `http://127.0.0.1:${closed}/`, 'ep-self-signed': `https://127.0.0.1:${selfSigned}/health`, 'ep-plain': `http://127.0.0.1:${plain}/` };
    for (const [name, endpoint_url] of Object.entries(endpoints)) {
      expect((await api('POST', '/api/v1/agents', { name, framework: 'custom', endpoint_url })).status).toBe(201);
    }
    const done = await scan('endpoints');
    expect(done).toMatchObject({ status: 'succeeded', found: 3, updated: 3, created: 0 });
    expect(done.results.endpoints.details).toMatchObject({ endpoints: 3, reachable: 2, unreachable: 1, tls_invalid: 1 });

    expect(await byExternalId('ep-closed')).toMatchObject({ probe_reachable: false, probe_tls_valid: null });
    const bad = await byExternalId('ep-self-signed');
    expect(bad).toMatchObject({ probe_reachable: true, probe_tls_valid: false });
    expect(bad.discrepancies.map((d: any) => d.kind)).toContain('tls_invalid');
    expect(await byExternalId('ep-plain')).toMatchObject({ probe_reachable: true, probe_tls_valid: null });
  });
});

describe('code scanner and the agent limit', () => {
  it('creates up to the limit, reports the rest as not created, and creates them once there is room', async () => {
    const folder = await mkdtemp(path.join(tmpdir(), 'scan-src-'));
    await cp(FIXTURES, folder, { recursive: true });
    await service.db.query('UPDATE instance_settings SET code_scan_folders = $1, agent_limit = $2', [[folder], (await agentCount()) + 5]);
    const before = await agentCount();

    const limited = await scan('code');
    expect(limited).toMatchObject({ status: 'succeeded', found: 13, created: 5, not_created: 8 });
    expect(await agentCount()).toBe(before + 5);
    const refused = limited.results.code.agents.filter((a: any) => a.action === 'not_created');
    expect(refused).toHaveLength(8);
    for (const a of refused) expect(a).toMatchObject({ agent_id: null, reason: 'agent_limit_reached' });
    const langchain = limited.results.code.agents.find((a: any) => a.external_id.endsWith('/langchain-support'));
    expect(langchain.action).toBe('created');

    // The code changes model; nobody edited the agent, so the rescan follows the code.
    const file = path.join(folder, 'langchain-support', 'support_agent.py');
    await writeFile(file, (await readFile(file, 'utf8')).replace('gpt-4o-mini', 'gpt-4.1'));
    await service.db.query('UPDATE instance_settings SET agent_limit = 1000');
    const roomy = await scan('code');
    expect(roomy).toMatchObject({ status: 'succeeded', found: 13, created: 8, updated: 5, not_created: 0 });
    expect(await agentCount()).toBe(before + 13);
    expect((await api('GET', `/api/v1/agents/${langchain.agent_id}`)).body.primary_model).toBe('gpt-4.1');
  });
});

describe('scan lifecycle', () => {
  it('`all` runs the four scanners in order and reports each', async () => {
    const done = await scan('all');
    expect(done.status).toBe('succeeded');
    expect(Object.keys(done.results)).toEqual(['telemetry', 'ledger', 'code', 'endpoints']);
    for (const r of Object.values<any>(done.results)) expect(r.status).toBe('succeeded');
    expect(done.created).toBe(0);
    expect(done.progress).toEqual({ scanners_total: 4, scanners_done: 4, current: null });
  });

  it('re-queues and completes a scan left running by a dead process; gives up after three attempts', async () => {
    const { rows } = await service.db.query(
      `INSERT INTO discovery_scans (scanner, status, running_at, heartbeat_at, claimed_by, attempts)
       VALUES ('endpoints', 'running', now() - interval '1 hour', now() - interval '1 hour', 'dead-host:1:x', 1),
              ('ledger', 'running', now() - interval '1 hour', now() - interval '1 hour', 'dead-host:1:x', 3)
       RETURNING id, scanner`,
    );
    const orphan = rows.find((r) => r.scanner === 'endpoints')!.id;
    const hopeless = rows.find((r) => r.scanner === 'ledger')!.id;
    expect(await waitForScan(orphan)).toMatchObject({ status: 'succeeded', found: 3 });
    const failed = await waitForScan(hopeless);
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(/stopped responding 3 times/);
  });

  it('coalesces a request into the scan of the same scanner still queued', async () => {
    // A database with no workers: nothing claims the queued scan.
    const db = createDatabase(await createTestDatabase(), { max: 2 });
    try {
      await migrate(db);
      const first = await queueScan(db, 'code', null);
      const second = await queueScan(db, 'code', null);
      const other = await queueScan(db, 'ledger', null);
      expect(first.queued).toBe(true);
      expect(second).toMatchObject({ queued: false, scan: { id: first.scan.id } });
      expect(other.scan.id).not.toBe(first.scan.id);
      await db.query(`UPDATE discovery_scans SET status = 'running' WHERE id = $1`, [first.scan.id]);
      expect((await queueScan(db, 'code', null)).scan.id).not.toBe(first.scan.id);
    } finally {
      await db.close();
    }
  });
});
