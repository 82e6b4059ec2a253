// The chDB deployment shape on the run's real broker, as separate processes: two `--role ingest`
// processes and one `--role api,workers` process (the only one that opens chDB), sharing one
// PostgreSQL. Their figures must equal those of the embedded mode for the same events, and the
// loading process killed with kill -9 mid-stream must neither lose nor double anything.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createServiceAccount } from '../lib/auth/service-accounts.ts';
import { createDatabase, type Database } from '../lib/postgres/database.ts';
import { createTestDatabase } from './helpers/database.ts';
import { freshTopicPrefix, killAllSpawned, spawnService, type ServiceProcess } from './helpers/processes.ts';
import { call, startTestService, type TestService } from './helpers/service.ts';
import { tokenFor } from './helpers/tokens.ts';

const AGENTS = [
  { external_id: 'kafka-agent-a', department: 'research' },
  { external_id: 'kafka-agent-b', department: 'support' },
  { external_id: 'kafka-agent-c', department: null },
];
const MODELS = ['gpt-4o', 'gpt-4o-mini', 'claude-3-5-sonnet', 'mystery-llm'];

interface Deployment {
  api: string;
  ingest: string[];
  token: string;
  /** Service-account token for OTLP exports. */
  otlpToken: string;
}

/** Same events (same ids) for both deployments: signals of known and new agents, costs of known and unknown ones. */
function dataset() {
  const signals = Array.from({ length: 60 }, (_, i) => ({
    event_id: randomUUID(),
    agent_id: i % 10 === 9 ? 'kafka-agent-new' : AGENTS[i % 3]!.external_id,
    job_id: `job-${i % 7}`,
    overall_passed: i % 4 !== 0,
    latency_ms: 50 + i,
    ...(i % 2 === 0 ? { model: MODELS[i % 3]!, token_input: 100 + i, token_output: 20 + i } : {}),
    checks: Array.from({ length: 1 + (i % 3) }, (_, c) => ({ check_id: `check-${c}`, severity: c === 0 ? 'HIGH' : 'low', passed: (i + c) % 3 !== 0, expected: '1.0', actual: String(1 - (i % 3) / 10) })),
  }));
  const costs = Array.from({ length: 80 }, (_, i) => ({
    event_id: randomUUID(),
    agent_id: i % 8 === 7 ? 'ghost-agent' : AGENTS[i % 2]!.external_id,
    job_id: `job-${i % 5}`,
    model: MODELS[i % 4]!,
    provider: i % 4 === 2 ? 'anthropic' : 'openai',
    input_tokens: 1000 + 17 * i,
    output_tokens: 200 + 3 * i,
    ...(i % 5 === 0 ? { cached_input_tokens: 100 } : {}),
  }));
  return { signals, costs, traces: otlpExports() };
}

/** OTLP/HTTP JSON exports: GenAI spans of known agents, an unknown one, and a plain service. */
function otlpExports(): object[] {
  const nowNs = BigInt(Date.now() - 60_000) * 1_000_000n;
  const attr = (key: string, value: string | number) => ({ key, value: typeof value === 'number' ? { intValue: String(value) } : { stringValue: value } });
  return Array.from({ length: 4 }, (_, e) => {
    const traceId = randomBytes(16).toString('hex');
    const spans = Array.from({ length: 6 }, (_, i) => {
      const start = nowNs + BigInt(e * 1_000 + i * 100) * 1_000_000n;
      const agent = i % 3 === 2 ? 'kafka-telemetry-new' : AGENTS[(e + i) % 3]!.external_id;
      return {
        traceId,
        spanId: randomBytes(8).toString('hex'),
        name: `chat ${i}`,
        kind: 3,
        startTimeUnixNano: String(start),
        endTimeUnixNano: String(start + BigInt(20 + 7 * i) * 1_000_000n),
        attributes: [attr('gen_ai.agent.name', agent), attr('gen_ai.request.model', MODELS[i % 4]!), attr('gen_ai.provider.name', 'openai'), attr('gen_ai.usage.input_tokens', 300 + i), attr('gen_ai.usage.output_tokens', 40 + e)],
        status: { code: i === 4 ? 2 : 1 },
      };
    });
    return {
      resourceSpans: [{ resource: { attributes: [attr('service.name', `svc-${e % 2}`)] }, scopeSpans: [{ scope: { name: 'kafka-test', version: '1' }, spans }] }],
    };
  });
}

/** Half the events one by one, half in batches; spread over the ingest processes of a deployment. */
async function send(d: Deployment, data: ReturnType<typeof dataset>): Promise<void> {
  const target = (i: number) => d.ingest[i % d.ingest.length]!;
  const answers: Array<Promise<{ status: number; body: any }>> = [];
  data.signals.slice(0, 30).forEach((s, i) => answers.push(call(target(i), 'POST', `/api/v1/jobs/${s.job_id}/quality`, { body: s })));
  data.costs.slice(0, 40).forEach((c, i) => answers.push(call(target(i), 'POST', '/api/v1/costs/events', { body: c })));
  answers.push(call(target(0), 'POST', '/api/v1/quality/batch', { body: data.signals.slice(30) }));
  answers.push(call(target(1), 'POST', '/api/v1/costs/events/batch', { body: data.costs.slice(40) }));
  data.traces.forEach((t, i) => answers.push(call(target(i), 'POST', '/api/v1/otel/v1/traces', { body: t, token: d.otlpToken })));
  for (const answer of await Promise.all(answers)) {
    expect(answer.status, JSON.stringify(answer.body)).toBeOneOf([200, 202]);
    if (answer.status === 200 && 'rejected' in (answer.body ?? {})) expect(answer.body.rejected).toBe(0);
  }
}

/** Every figure the API shows for the data set, with this deployment's agent uuids replaced by external ids. */
async function figures(d: Deployment, traceIds: string[]): Promise<unknown> {
  const get = async (p: string) => {
    const r = await call(d.api, 'GET', p, { token: d.token });
    if (r.status !== 200) throw new Error(`${p}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const agents: Array<{ agent_id: string; external_id: string }> = await get('/api/v1/agents');
  const names = new Map(agents.map((a) => [a.agent_id, a.external_id]));
  const perAgent: Record<string, unknown> = {};
  for (const agent of agents) {
    perAgent[agent.external_id] = {
      costs: await get(`/api/v1/costs/agents/${agent.agent_id}?days=7`),
      accuracy: await get(`/api/v1/agents/${agent.agent_id}/accuracy?days=7`),
      signals: await get(`/api/v1/agents/${agent.agent_id}/signals?limit=500`),
      telemetry: await get(`/api/v1/agents/${agent.agent_id}/telemetry?days=7`),
    };
  }
  const raw = {
    summary: await get('/api/v1/costs/summary?days=7'),
    departments: await get('/api/v1/costs/departments'),
    heatmap: await get('/api/v1/optimise/heatmap?window_days=7'),
    telemetryCosts: await get('/api/v1/otel/costs?days=7'),
    telemetryStatus: await get('/api/v1/otel/status'),
    traces: await Promise.all(traceIds.map((id) => get(`/api/v1/otel/traces/${id}`))),
    perAgent,
  };
  return normalize(raw, names);
}

// Times differ between the two runs; uuids of agents differ per database; float sums may differ
// in the last bits with insertion order. Everything else must be equal.
const TIME_KEYS = new Set(['received_at', 'created_at', 'updated_at', 'last_seen_at', 'generated_at', 'last_received_at', 'last_span_at', 'last_export_at']);
function normalize(value: unknown, names: Map<string, string>): unknown {
  if (typeof value === 'string') return names.has(value) ? `agent:${names.get(value)}` : value;
  if (typeof value === 'number') return Math.round(value * 1e6) / 1e6 || 0;
  if (Array.isArray(value)) {
    const items = value.map((v) => normalize(v, names));
    return items.every((v) => typeof v === 'object' && v !== null) ? items.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))) : items;
  }
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).filter(([k]) => !TIME_KEYS.has(k)).map(([k, v]) => [k, normalize(v, names)]));
  }
  return value;
}

async function createAgents(api: string, token: string): Promise<void> {
  for (const agent of AGENTS) {
    const r = await call(api, 'POST', '/api/v1/agents', { token, body: { name: agent.external_id, framework: 'langgraph', ...agent } });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
  }
  // Ingest directories poll PostgreSQL every second; a cost event must not race its agent.
  await new Promise((r) => setTimeout(r, 1_500));
}

async function waitUntil(what: string, probe: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

describe('Kafka deployment: two ingest processes and one api,workers process with chDB', () => {
  const brokers = inject('kafkaBrokers');
  let env: Record<string, string>;
  let db: Database;
  let loaderProcess: ServiceProcess;
  let ingest: ServiceProcess[] = [];
  let embedded: TestService;
  let kafkaSide: Deployment;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'aor-kafka-deploy-'));
    const databaseUrl = await createTestDatabase();
    env = { KAFKA_BROKERS: brokers.join(','), KAFKA_TOPIC_PREFIX: freshTopicPrefix('deploy'), KAFKA_PARTITIONS: '3', DATABASE_URL: databaseUrl, DATA_DIR: dataDir };
    // The loading process first: it migrates PostgreSQL and creates the topics.
    loaderProcess = await spawnService('api,workers', env);
    [ingest, embedded] = await Promise.all([Promise.all([spawnService('ingest', env), spawnService('ingest', env)]), startTestService()]);
    db = createDatabase(databaseUrl, { max: 2 });
    kafkaSide = { api: loaderProcess.baseUrl, ingest: ingest.map((p) => p.baseUrl), token: await tokenFor(db, 'admin'), otlpToken: (await createServiceAccount(db, 'collector')).token };
  }, 120_000);

  afterAll(async () => {
    await killAllSpawned();
    await db?.close();
    await embedded?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('carries events through two ingest processes and Kafka into the store with every figure as in the embedded mode', async () => {
    const embeddedSide: Deployment = {
      api: embedded.baseUrl,
      ingest: [embedded.baseUrl],
      token: await tokenFor(embedded.db, 'admin'),
      otlpToken: (await createServiceAccount(embedded.db, 'collector')).token,
    };
    await Promise.all([createAgents(kafkaSide.api, kafkaSide.token), createAgents(embeddedSide.api, embeddedSide.token)]);
    const data = dataset();
    await Promise.all([send(kafkaSide, data), send(embeddedSide, data)]);

    const traceIds = data.traces.map((t: any) => t.resourceSpans[0].scopeSpans[0].spans[0].traceId as string);
    // Both sides are re-read: the export counters of /otel/status reach PostgreSQL on a timer.
    let expected: any;
    let actual: unknown;
    await waitUntil('the Kafka deployment to show the embedded figures', async () => {
      [expected, actual] = await Promise.all([figures(embeddedSide, traceIds), figures(kafkaSide, traceIds)]);
      return expected.telemetryStatus.status === 'RECEIVING' && isDeepStrictEqual(actual, expected);
    }, 30_000).catch(() => undefined);
    // The figures hold what they should: auto-registered agents, spans, priced telemetry.
    expect(JSON.stringify(expected)).toContain('kafka-agent-new');
    expect(JSON.stringify(expected)).toContain('kafka-telemetry-new');
    expect(JSON.stringify(expected)).toContain('"chat 5"');
    expect(actual).toEqual(expected);
  }, 90_000);

  it('loses and doubles nothing when the loading process is killed with kill -9 mid-stream and restarted', async () => {
    const acked: Array<{ event_id: string; cost_usd: number }> = [];
    const agent = 'kafka-agent-crash';
    const created = await call(kafkaSide.api, 'POST', '/api/v1/agents', { token: kafkaSide.token, body: { name: agent, framework: 'crewai', external_id: agent } });
    expect(created.status).toBe(201);
    await new Promise((r) => setTimeout(r, 1_500));
    let sent = 0;
    const total = 300;
    const client = async (n: number) => {
      while (sent < total) {
        const i = sent++;
        const body = { event_id: randomUUID(), agent_id: agent, job_id: `crash-${n}`, model: 'gpt-4o', provider: 'openai', input_tokens: 10 + i, output_tokens: 5 };
        const r = await call(kafkaSide.ingest[i % 2]!, 'POST', '/api/v1/costs/events', { body });
        expect(r.status, JSON.stringify(r.body)).toBe(202);
        acked.push({ event_id: body.event_id, cost_usd: r.body.cost_usd });
      }
    };
    const stream = Promise.all([client(1), client(2), client(3)]);
    await waitUntil('a third of the stream', async () => acked.length >= total / 3, 30_000);
    await loaderProcess.kill9();
    await new Promise((r) => setTimeout(r, 500));
    loaderProcess = await spawnService('api,workers', env);
    kafkaSide.api = loaderProcess.baseUrl;
    await stream;
    expect(acked).toHaveLength(total);

    const agentId = (await db.query<{ id: string }>('SELECT id::text AS id FROM agents WHERE external_id = $1', [agent])).rows[0]!.id;
    const expectedUsd = Math.round(acked.reduce((sum, a) => sum + a.cost_usd, 0) * 1e6) / 1e6;
    let detail: any;
    await waitUntil('every acknowledged event in the store', async () => {
      detail = (await call(kafkaSide.api, 'GET', `/api/v1/costs/agents/${agentId}?days=7`, { token: kafkaSide.token })).body;
      return detail?.events >= total;
    }, 40_000).catch(() => undefined);
    // Counted once: exactly the acknowledged events, and exactly their cost.
    expect(detail.events).toBe(total);
    expect(Math.round(detail.cost_usd * 1e6) / 1e6).toBe(expectedUsd);

    // The restarted process reports the group's lag, in /health and in /metrics.
    await waitUntil('lag 0 in /health', async () => (await call(kafkaSide.api, 'GET', '/health')).body?.stores?.kafka_loader?.lag === 0, 20_000);
    const metrics = await call(kafkaSide.api, 'GET', '/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-type')).toContain('text/plain');
    expect(metrics.body).toMatch(new RegExp(`^aor_kafka_consumer_lag\\{group="${env.KAFKA_TOPIC_PREFIX}\\.loaders",topic="${env.KAFKA_TOPIC_PREFIX}\\.costs",partition="0"\\} 0$`, 'm'));
    expect(metrics.body).toMatch(/^aor_up\{check="kafka_loader"\} 1$/m);
    const ingestMetrics = await call(kafkaSide.ingest[0]!, 'GET', '/metrics');
    expect(ingestMetrics.body).toMatch(/^aor_event_log_queued_events 0$/m);
    expect(Number(/^aor_event_log_acked_events_total (\d+)$/m.exec(ingestMetrics.body)?.[1])).toBeGreaterThanOrEqual(total / 2);
  }, 120_000);
});
