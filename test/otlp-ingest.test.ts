// OTLP ingestion end to end: the OpenTelemetry JS SDK exports through its real OTLP/HTTP
// exporters (JSON, and protobuf with gzip) to the running service with a service-account token;
// every span must be stored with its GenAI fields and resolved to the right registry agent.
// Then the refusals (401, 400, 413, 415) in OTLP form, the status endpoint, per-agent
// telemetry, and the observations job.
import zlib from 'node:zlib';
import { SpanKind, SpanStatusCode, type Attributes } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { CompressionAlgorithm } from '@opentelemetry/otlp-exporter-base';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, SimpleSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import protobuf from 'protobufjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceAccount, revokeServiceAccount } from '../lib/auth/service-accounts.ts';
import { createLogger } from '../lib/log.ts';
import { listUnregisteredSpanAgents } from '../lib/analytics/telemetry-reads.ts';
import { createAgent } from '../lib/registry/store.ts';
import { createTelemetryObservations } from '../workers/telemetry-observations.ts';
import { call, startTestService, type TestService } from './helpers/service.ts';
import { tokenFor } from './helpers/tokens.ts';

const MAX_OTLP = 64 * 1024;
const Status = protobuf.Root.fromJSON({
  nested: { google: { nested: { rpc: { nested: { Status: { fields: { code: { type: 'int32', id: 1 }, message: { type: 'string', id: 2 } } } } } } } },
}).lookupType('google.rpc.Status');

/** Passes spans to a real exporter and keeps what it reported back. */
class Recording implements SpanExporter {
  readonly results: ExportResult[] = [];
  constructor(private readonly inner: SpanExporter) {}
  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      this.results.push(result);
      done(result);
    });
  }
  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

interface SpanSpec {
  name: string;
  attributes: Attributes;
  error?: boolean;
}

/** Makes the spans with a provider of the given service and exports them; returns their ids. */
async function send(exporter: SpanExporter, service: string, specs: SpanSpec[]): Promise<{ results: ExportResult[]; ids: Map<string, string> }> {
  const recording = new Recording(exporter);
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': service }),
    spanProcessors: [new SimpleSpanProcessor(recording)],
  });
  const tracer = provider.getTracer('otlp-ingest-test', '1.0.0');
  const ids = new Map<string, string>();
  for (const spec of specs) {
    const span = tracer.startSpan(spec.name, { kind: SpanKind.CLIENT, attributes: spec.attributes });
    if (spec.error) span.setStatus({ code: SpanStatusCode.ERROR, message: 'boom' });
    span.end();
    ids.set(spec.name, `${span.spanContext().traceId}:${span.spanContext().spanId}`);
  }
  // forceFlush rejects when an export failed; the refusal tests read the recorded result instead.
  await provider.forceFlush().catch(() => undefined);
  await provider.shutdown();
  return { results: recording.results, ids };
}

let service: TestService;
let base: string;
let token: string;
let userToken: string;
const agents: Record<string, string> = {};

beforeAll(async () => {
  service = await startTestService({ MAX_OTLP_BODY_BYTES: String(MAX_OTLP) });
  base = `${service.baseUrl}/api/v1/otel`;
  for (const [name, externalId] of [['Support Bot', 'support-bot'], ['Triage', 'triage-agent'], ['Planner', 'planner']] as const) {
    const { agent } = await createAgent(service.db, { name, framework: 'langchain', external_id: externalId }, { source: 'api', status: 'APPROVED' });
    agents[externalId] = agent.agent_id;
  }
  token = (await createServiceAccount(service.db, 'otel-collector')).token;
  userToken = await tokenFor(service.db, 'admin');
  // The ingest directory learns new agents by polling PostgreSQL every second.
  await new Promise((r) => setTimeout(r, 2_500));
});
afterAll(async () => {
  await service?.stop();
});

const auth = () => ({ Authorization: `Bearer ${token}` });

describe('real OTLP exporters', () => {
  let stored: Array<Record<string, any>>;
  const sent = new Map<string, string>();

  beforeAll(async () => {
    const json = await send(new JsonExporter({ url: `${base}/v1/traces`, headers: auth() }), 'support-bot', [
      { name: 'chat gpt-4o', attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'openai', 'gen_ai.request.model': 'gpt-4o', 'gen_ai.response.model': 'gpt-4o-2024-08-06', 'gen_ai.usage.input_tokens': 1000, 'gen_ai.usage.output_tokens': 200 } },
      { name: 'invoke_agent triage', attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'triage-agent', 'gen_ai.request.model': 'gpt-4o-mini', 'gen_ai.usage.input_tokens': 50, 'gen_ai.usage.output_tokens': 5 }, error: true },
    ]);
    const proto = await send(new ProtoExporter({ url: `${base}/v1/traces`, headers: auth(), compression: CompressionAlgorithm.GZIP }), 'unregistered-svc', [
      { name: 'plan', attributes: { 'gen_ai.agent.id': agents.planner!, 'gen_ai.system': 'anthropic', 'gen_ai.request.model': 'claude-3-5-sonnet', 'gen_ai.usage.prompt_tokens': 300, 'gen_ai.usage.completion_tokens': 30 } },
      { name: 'mystery call', attributes: { 'gen_ai.agent.name': 'mystery-agent', 'gen_ai.request.model': 'gpt-4o-mini', 'gen_ai.usage.input_tokens': 10 } },
    ]);
    for (const r of [...json.results, ...proto.results]) expect(r, String(r.error)).toEqual({ code: ExportResultCode.SUCCESS });
    for (const [name, id] of [...json.ids, ...proto.ids]) sent.set(name, id);
    stored = await service.analytics!.query(
      `SELECT name, trace_id, span_id, service_name, toString(agent_id) AS agent, agent_key, model, request_model, provider, operation,
              input_tokens, output_tokens, toFloat64(cost_usd) AS cost, priced, status_code
       FROM raw_spans WHERE concat(trace_id, ':', span_id) IN {ids:Array(String)} ORDER BY name`,
      { ids: [...sent.values()] },
    );
  });

  it('stores every span once, with ids, service and GenAI fields', () => {
    expect(stored.map((s) => `${s.trace_id}:${s.span_id}`).sort()).toEqual([...sent.values()].sort());
    const by = (name: string) => stored.find((s) => s.name === name)!;
    expect(by('chat gpt-4o')).toMatchObject({ service_name: 'support-bot', model: 'gpt-4o-2024-08-06', request_model: 'gpt-4o', provider: 'openai', operation: 'chat', input_tokens: 1000, output_tokens: 200, priced: true });
    expect(by('chat gpt-4o').cost).toBeGreaterThan(0);
    expect(by('invoke_agent triage')).toMatchObject({ status_code: 'ERROR', model: 'gpt-4o-mini', input_tokens: 50 });
    expect(by('plan')).toMatchObject({ service_name: 'unregistered-svc', model: 'claude-3-5-sonnet', provider: 'anthropic', input_tokens: 300, output_tokens: 30 });
  });

  it('resolves each span to its registry agent by agent id, agent name or service name', () => {
    const agentOf = Object.fromEntries(stored.map((s) => [s.name, [s.agent, s.agent_key]]));
    expect(agentOf).toEqual({
      'chat gpt-4o': [agents['support-bot'], 'support-bot'],
      'invoke_agent triage': [agents['triage-agent'], 'triage-agent'],
      plan: [agents.planner, agents.planner],
      'mystery call': ['00000000-0000-0000-0000-000000000000', 'mystery-agent'],
    });
  });

  it('lists the unresolved agent for discovery', async () => {
    const found = await listUnregisteredSpanAgents(service.analytics!, { days: 1 });
    expect(found.map((f) => [f.agent_key, f.key_source, f.service_names, f.models])).toEqual([['mystery-agent', 'gen_ai.agent.name', ['unregistered-svc'], ['gpt-4o-mini']]]);
  });

  it('shows per-agent telemetry', async () => {
    const res = await call(service.baseUrl, 'GET', `/api/v1/agents/${agents['triage-agent']}/telemetry?days=3`, { token: userToken });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ agent_id: agents['triage-agent'], period_days: 3, spans: 1, errors: 1, error_rate: 1, input_tokens: 50, output_tokens: 5 });
    expect(res.body.models).toMatchObject([{ model: 'gpt-4o-mini', spans: 1, input_tokens: 50 }]);
    expect(res.body.telemetry_cost_usd).toBeGreaterThan(0);
    expect(res.body.latency_ms.p50).toBeGreaterThanOrEqual(0);
    expect(Date.now() - Date.parse(res.body.last_span_at)).toBeLessThan(60_000);
    expect((await call(service.baseUrl, 'GET', `/api/v1/agents/${agents.planner}/telemetry`)).status).toBe(401);
    expect((await call(service.baseUrl, 'GET', '/api/v1/agents/11111111-2222-4333-8444-555555555555/telemetry', { token: userToken })).status).toBe(404);
  });

  it('feeds spans seen into the agent through the observations job', async () => {
    const job = createTelemetryObservations(service.db, service.analytics!, createLogger('silent'));
    let run = await job.runOnce(new Date(Date.now() + 1_000), 0);
    while (run.skipped) run = await job.runOnce(new Date(Date.now() + 1_000), 0);
    const { rows } = await service.db.query<{ observed: any; last_seen_at: Date | null }>('SELECT observed, last_seen_at FROM agents WHERE id = $1', [agents['support-bot']]);
    expect(rows[0]!.observed.telemetry).toMatchObject({ spans: 1, service_name: 'support-bot' });
    expect(rows[0]!.last_seen_at).not.toBeNull();
    // A second run sees nothing new: nothing is counted twice.
    expect((await job.runOnce(new Date(Date.now() + 2_000), 0)).spans).toBe(0);
  });
});

describe('refusals in OTLP form', () => {
  const post = (signal: string, body: Buffer | string, headers: Record<string, string>) =>
    fetch(`${base}/v1/${signal}`, { method: 'POST', headers, body: body as BodyInit });

  it('refuses exports without a token, with a revoked token and with a user access token (401)', async () => {
    const revoked = await createServiceAccount(service.db, 'old');
    await revokeServiceAccount(service.db, revoked.id);
    for (const headers of [{}, { Authorization: `Bearer ${revoked.token}` }, { Authorization: `Bearer ${userToken}` }] as Array<Record<string, string>>) {
      const { results } = await send(new JsonExporter({ url: `${base}/v1/traces`, headers }), 'x', [{ name: 'refused', attributes: {} }]);
      expect(results[0]!.code).toBe(ExportResultCode.FAILED);
      expect((results[0]!.error as { code?: number }).code).toBe(401);
    }
    const res = await post('traces', '{}', { 'content-type': 'application/json', Authorization: `Bearer ${revoked.token}` });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect(await res.json()).toEqual({ code: 16, message: 'The service-account token was revoked.' });
  });

  it('answers 400 for undecodable JSON and protobuf, in the request encoding', async () => {
    const bad = await post('traces', '{"resourceSpans": [', { 'content-type': 'application/json', ...auth() });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toBe('application/json');
    expect((await bad.json()).code).toBe(3);
    const badProto = await post('traces', Buffer.from([0x0a, 0xff, 0xff, 0xff, 0x0f, 0x01]), { 'content-type': 'application/x-protobuf', ...auth() });
    expect(badProto.status).toBe(400);
    expect(badProto.headers.get('content-type')).toBe('application/x-protobuf');
    expect((Status.decode(Buffer.from(await badProto.arrayBuffer())) as unknown as { code: number }).code).toBe(3);
  });

  it('answers 415 for other content types, 413 over the size limit (wire or inflated)', async () => {
    expect((await post('traces', 'hello', { 'content-type': 'text/plain', ...auth() })).status).toBe(415);
    const big = await post('traces', Buffer.alloc(MAX_OTLP + 1, 0x20), { 'content-type': 'application/json', ...auth() });
    expect(big.status).toBe(413);
    const bomb = zlib.gzipSync(Buffer.alloc(MAX_OTLP * 4, 0x20));
    const inflated = await post('traces', bomb, { 'content-type': 'application/x-protobuf', 'content-encoding': 'gzip', ...auth() });
    expect(inflated.status).toBe(413);
    expect((Status.decode(Buffer.from(await inflated.arrayBuffer())) as unknown as { message: string }).message).toMatch(/exceeds/);
  });

  it('takes deflate bodies, and answers metrics and logs with partial success (validated, not kept)', async () => {
    const empty = await post('traces', zlib.deflateSync('{}'), { 'content-type': 'application/json', 'content-encoding': 'deflate', ...auth() });
    expect(empty.status).toBe(200);
    expect(await empty.json()).toEqual({});
    const metrics = { resourceMetrics: [{ scopeMetrics: [{ metrics: [{ name: 'm', gauge: { dataPoints: [{ asInt: '1' }, { asInt: '2' }] } }] }] }] };
    const m = await post('metrics', JSON.stringify(metrics), { 'content-type': 'application/json', ...auth() });
    expect(m.status).toBe(200);
    expect((await m.json()).partialSuccess).toMatchObject({ rejectedDataPoints: '2', errorMessage: expect.stringMatching(/not stored/) });
    const logs = await post('logs', JSON.stringify({ resourceLogs: [{ scopeLogs: [{ logRecords: [{ body: { stringValue: 'x' } }] }] }] }), { 'content-type': 'application/json', ...auth() });
    expect((await logs.json()).partialSuccess).toMatchObject({ rejectedLogRecords: '1' });
  });
});

describe('GET /api/v1/otel/status', () => {
  it('reports what arrived and the last rejection', async () => {
    // The last refusal of this file: the recorder writes it within a second.
    const res = await fetch(`${base}/v1/traces`, { method: 'POST', headers: { 'content-type': 'text/csv', ...auth() }, body: 'a,b' });
    expect(res.status).toBe(415);
    let status: any;
    for (let i = 0; i < 40; i++) {
      status = (await call(service.baseUrl, 'GET', '/api/v1/otel/status', { token: userToken })).body;
      if (status.last_rejection?.code === 'unsupported_media_type' && status.spans_accepted_total >= 4) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toMatchObject({
      status: 'RECEIVING', receiving: true, recent_window_minutes: 15, spans_last_24h: 4, services_last_24h: 2,
      spans_accepted_total: 4, span_retention_days: 30,
      last_rejection: { signal: 'traces', status: 415, code: 'unsupported_media_type', reason: expect.stringContaining('text/csv') },
    });
    expect(status.services).toEqual([{ service_name: 'support-bot', spans: 2 }, { service_name: 'unregistered-svc', spans: 2 }]);
    expect(status.exports_rejected_total).toBeGreaterThanOrEqual(8);
    expect(Date.now() - Date.parse(status.last_span_at)).toBeLessThan(120_000);
    expect(status.last_export_at.metrics).not.toBeNull();
    expect((await call(service.baseUrl, 'GET', '/api/v1/otel/status', { headers: auth() })).status).toBe(401);
  });
});
