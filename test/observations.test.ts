// Registry tie-ins: failing checks and observed model use, loaded through the ingest endpoints,
// reach an agent's risk score and discrepancies through the observation job.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLogger } from '../lib/log.ts';
import { createObservationSync } from '../workers/observation-sync.ts';
import { call, startTestService, type TestService } from './helpers/service.ts';
import { tokenFor } from './helpers/tokens.ts';

let service: TestService;
let token: string;
beforeAll(async () => {
  service = await startTestService();
  token = await tokenFor(service.db, 'admin');
});
afterAll(async () => {
  await service?.stop();
});

it('failing checks and model use change risk and discrepancies, and clear again', async () => {
  const created = await call(service.baseUrl, 'POST', '/api/v1/agents', {
    token,
    body: { name: 'Claims bot', external_id: 'claims-bot', framework: 'langgraph', owner_email: 'owner@example.test', external_llm_calls: false, primary_model: 'claude-3-5-sonnet' },
  });
  expect(created.status).toBe(201);
  const agentId = created.body.agent_id;
  const before = created.body;
  expect(before.discrepancies).toEqual([]);
  expect(before.risk_factors.map((f: any) => f.factor)).not.toContain('failing_checks');

  // Wait until the ingest directory knows the agent (it polls every second).
  for (let i = 0; i < 10; i++) {
    const res = await call(service.baseUrl, 'POST', '/api/v1/jobs/j-0/quality', {
      body: { event_id: randomUUID(), agent_id: 'claims-bot', job_id: 'j-0', overall_passed: false, latency_ms: 3, model: 'gpt-4o-2024-08-06', token_input: 100, token_output: 20, checks: [{ check_id: 'grounded', severity: 'HIGH', passed: i < 3 }] },
    });
    expect(res.status).toBe(202);
    expect(res.body.agent_id).toBe(agentId);
  }
  const sync = createObservationSync(service.db, service.analytics!, createLogger('silent'));
  expect(await sync.runOnce()).toBeGreaterThanOrEqual(1);

  const after = (await call(service.baseUrl, 'GET', `/api/v1/agents/${agentId}`, { token })).body;
  const factors = Object.fromEntries(after.risk_factors.map((f: any) => [f.factor, f.points]));
  expect(factors.failing_checks).toBe(15); // a HIGH check passing 3 of 10
  expect(factors.external_llm_calls).toBe(10);
  expect(after.discrepancies.map((d: any) => d.kind).sort()).toEqual(['primary_model_mismatch', 'undeclared_llm_calls']);
  expect(after.risk_score).toBeGreaterThan(before.risk_score);
  // Nothing changed since: a second pass writes nothing.
  expect(await sync.runOnce()).toBe(0);
  // Seen 40 days later the checks (7-day window) and models (30-day window) are out: the facts clear.
  expect(await sync.runOnce(new Date(Date.now() + 40 * 86_400_000))).toBe(1);
  const later = (await call(service.baseUrl, 'GET', `/api/v1/agents/${agentId}`, { token })).body;
  expect(later.risk_factors.map((f: any) => f.factor)).not.toContain('failing_checks');
  expect(later.discrepancies).toEqual([]);
  expect(later.risk_score).toBe(before.risk_score);
});
