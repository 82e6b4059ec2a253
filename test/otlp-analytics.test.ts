// Spans in the analytics store: loading exactly once, the telemetry views and reads, retention,
// and the span → event step of ingest (agent resolution, pricing). Expected figures are computed
// here from the spans the test made, never read back from the store.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../lib/log.ts';
import { createAnalyticsStore, type AnalyticsStore } from '../lib/analytics/store.ts';
import { getTraceSpans, insertSpans } from '../lib/analytics/spans.ts';
import { applySpanRetention, currentSpanRetentionDays } from '../lib/analytics/spans-retention.ts';
import {
  getAgentTelemetry, getObservedSpanModels, getSpanActivity, getSpanTraffic, getTelemetryCostOverview, listUnregisteredSpanAgents,
} from '../lib/analytics/telemetry-reads.ts';
import { insertCostEvents } from '../lib/analytics/costs.ts';
import { createPricer } from '../lib/pricing/pricing.ts';
import { priceSpan, toSpanEvents } from '../ingest/otlp/span-events.ts';
import { ByteBudget } from '../ingest/otlp/byte-budget.ts';
import { AppError } from '../lib/errors.ts';
import type { SpanRecord } from '../schemas/otlp.ts';
import type { SpanEvent } from '../schemas/telemetry.ts';
import type { CostEventRecord } from '../schemas/analytics-rows.ts';

const AGENT_A = 'aaaaaaaa-0000-4000-8000-00000000000a';
const AGENT_B = 'bbbbbbbb-0000-4000-8000-00000000000b';
const NOW = new Date();
const TODAY = NOW.toISOString().slice(0, 10);
const TABLES = ['raw_spans', 'span_traces', 'agent_telemetry_per_day', 'spans_per_hour', 'raw_cost_events', 'spend_per_day'];
let seq = 0;

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');
/** `YYYY-MM-DD hh:mm:ss.nnnnnnnnn` of a millisecond instant. */
const ns = (ms: number) => {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 23)}000000`;
};

function span(over: Partial<SpanEvent> & { durationMs?: number; trace?: number }): SpanEvent {
  seq += 1;
  const startMs = NOW.getTime() - 60_000;
  const duration = over.durationMs ?? 10;
  const { durationMs: _d, trace, ...rest } = over;
  return {
    trace_id: hex(trace ?? seq, 32), span_id: hex(seq, 16), parent_span_id: '', name: `op-${seq}`, kind: 'CLIENT',
    start_time: ns(startMs), end_time: ns(startMs + duration), duration_ms: duration, status_code: 'UNSET', status_message: '',
    service_name: 'svc', scope_name: 'test', scope_version: '1', model: '', request_model: '', provider: '', operation: '',
    agent_name: '', agent_id: '', input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_creation_tokens: 0,
    attributes: { 'k': 'v' }, resource_attributes: { 'service.name': 'svc' },
    registry_agent_id: null, agent_key: 'svc', cost_usd: 0, priced: true, received_at: NOW.toISOString(),
    ...rest,
  };
}

let store: AnalyticsStore;
let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'aor-spans-'));
  store = createAnalyticsStore({ dataDir, logger: createLogger('silent') });
  await store.start();
});
afterAll(async () => {
  await store?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});
beforeEach(async () => {
  for (const table of TABLES) await store.command(`TRUNCATE TABLE ${table}`);
});

describe('insertSpans', () => {
  it('stores each (trace_id, span_id) once across redelivery and duplicates in a batch', async () => {
    const spans = [span({ registry_agent_id: AGENT_A }), span({ registry_agent_id: AGENT_A }), span({})];
    expect(await insertSpans(store, [...spans, spans[0]!], 'batch-1')).toBe(3);
    expect(await insertSpans(store, spans, 'batch-1')).toBe(0);
    expect(await insertSpans(store, [...spans, span({ registry_agent_id: AGENT_B })], 'batch-2')).toBe(1);
    // Same span id in another trace is another span.
    expect(await insertSpans(store, [{ ...spans[0]!, trace_id: hex(999_999, 32) }], 'batch-3')).toBe(1);
    const [raw] = await store.query<{ n: number }>('SELECT count() AS n FROM raw_spans');
    expect(raw!.n).toBe(5);
    const [mv] = await store.query<{ n: number }>('SELECT sum(spans) AS n FROM agent_telemetry_per_day');
    expect(mv!.n).toBe(5);
  });
});

describe('telemetry reads', () => {
  it('aggregates per agent: spans, errors, latency, models with tokens, cost, last span, daily', async () => {
    const a = [
      ...Array.from({ length: 18 }, (_, i) => span({ registry_agent_id: AGENT_A, durationMs: 10 + i, model: 'gpt-4o', provider: 'openai', input_tokens: 100, output_tokens: 10, cost_usd: 0.00035 })),
      span({ registry_agent_id: AGENT_A, durationMs: 1000, status_code: 'ERROR', model: 'claude-x', provider: 'anthropic', input_tokens: 5, output_tokens: 5, priced: false }),
      span({ registry_agent_id: AGENT_A, durationMs: 2000, status_code: 'ERROR' }),
    ];
    await insertSpans(store, a, 'a');
    await insertSpans(store, [span({ registry_agent_id: AGENT_B, model: 'gpt-4o', input_tokens: 1 })], 'b');
    const t = await getAgentTelemetry(store, { agentId: AGENT_A, days: 7, now: NOW });
    expect(t).toMatchObject({ agent_id: AGENT_A, period_days: 7, spans: 20, errors: 2, error_rate: 0.1, input_tokens: 1805, output_tokens: 185, unpriced_spans: 1 });
    expect(t.telemetry_cost_usd).toBeCloseTo(18 * 0.00035, 9);
    expect(t.latency_ms!.p50).toBeGreaterThanOrEqual(15);
    expect(t.latency_ms!.p50).toBeLessThanOrEqual(30);
    expect(t.latency_ms!.p95).toBeGreaterThan(27);
    expect(t.models.map((m) => [m.model, m.provider, m.spans, m.input_tokens])).toEqual([['gpt-4o', 'openai', 18, 1800], ['claude-x', 'anthropic', 1, 5]]);
    expect(Date.parse(t.last_span_at!)).toBe(Date.parse(NOW.toISOString()));
    expect(t.daily).toHaveLength(7);
    expect(t.daily.at(-1)).toEqual({ date: TODAY, spans: 20, errors: 2 });
    const none = await getAgentTelemetry(store, { agentId: 'cccccccc-0000-4000-8000-00000000000c', days: 3, now: NOW });
    expect(none).toMatchObject({ spans: 0, errors: 0, error_rate: null, latency_ms: null, last_span_at: null, models: [] });
    expect(await getObservedSpanModels(store, { days: 30, now: NOW })).toEqual([
      { agent_id: AGENT_A, model: 'gpt-4o', spans: 18 }, { agent_id: AGENT_A, model: 'claude-x', spans: 1 }, { agent_id: AGENT_B, model: 'gpt-4o', spans: 1 },
    ]);
  });

  it('lists unresolved span agents with GenAI evidence for discovery', async () => {
    await insertSpans(store, [
      span({ agent_key: 'asst_42', agent_id: 'asst_42', agent_name: 'Triage', service_name: 'bot', model: 'gpt-4o' }),
      span({ agent_key: 'asst_42', agent_id: 'asst_42', service_name: 'bot' }),
      span({ agent_key: 'planner', agent_name: 'planner', service_name: 'bot' }),
      span({ agent_key: 'plain-web', service_name: 'plain-web' }),
      span({ agent_key: 'llm-svc', service_name: 'llm-svc', model: 'o3' }),
      span({ agent_key: 'known', registry_agent_id: AGENT_A, model: 'gpt-4o' }),
    ], 'u');
    const found = await listUnregisteredSpanAgents(store, { days: 1, now: NOW });
    expect(found.map((f) => [f.agent_key, f.key_source, f.agent_name, f.spans, f.genai_spans, f.models, f.service_names])).toEqual([
      ['asst_42', 'gen_ai.agent.id', 'Triage', 2, 2, ['gpt-4o'], ['bot']],
      ['llm-svc', 'service.name', '', 1, 1, ['o3'], ['llm-svc']],
      ['planner', 'gen_ai.agent.name', 'planner', 1, 1, [], ['bot']],
    ]);
    const all = await listUnregisteredSpanAgents(store, { days: 1, now: NOW, requireGenAi: false });
    expect(all.map((f) => f.agent_key).sort()).toEqual(['asst_42', 'llm-svc', 'plain-web', 'planner']);
  });

  it('reads one trace across agents, traffic per service, span activity and telemetry cost beside cost events', async () => {
    const trace = [span({ trace: 7, registry_agent_id: AGENT_A, service_name: 'front' }), span({ trace: 7, registry_agent_id: AGENT_B, service_name: 'back', cost_usd: 0.5, model: 'gpt-4o' }), span({ trace: 7, service_name: 'back', cost_usd: 0.25, model: 'x' })];
    await insertSpans(store, [...trace, span({ trace: 8, registry_agent_id: AGENT_A, service_name: 'front', cost_usd: 1, model: 'gpt-4o' })], 't');
    const spans = await getTraceSpans(store, hex(7, 32));
    expect(spans.map((s) => s.span_id).sort()).toEqual(trace.map((s) => s.span_id).sort());
    expect(spans.find((s) => s.agent_id === null)?.agent_key).toBe('svc');
    expect(spans[0]!.start_time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{9}Z$/);
    expect(await getTraceSpans(store, hex(9, 32))).toEqual([]);
    expect(await getSpanTraffic(store, { now: NOW })).toEqual({ spans: 4, services: [{ service_name: 'back', spans: 2 }, { service_name: 'front', spans: 2 }] });
    const activity = await getSpanActivity(store, { from: new Date(0), to: new Date(Date.now() + 60_000) });
    expect(activity.map((a) => [a.agent_id, a.spans, a.models, a.service_name])).toEqual([[AGENT_A, 2, { 'gpt-4o': 1 }, 'front'], [AGENT_B, 1, { 'gpt-4o': 1 }, 'back']]);
    await insertCostEvents(store, [costEvent(AGENT_B, 2)], 'c');
    const overview = await getTelemetryCostOverview(store, { days: 1, now: NOW });
    expect(overview.telemetry_cost_usd).toBeCloseTo(1.75, 9);
    expect(overview.telemetry_cost_usd_without_cost_events).toBeCloseTo(1.25, 9);
    expect(overview.agents).toEqual([
      { agent_id: AGENT_A, telemetry_cost_usd: 1, cost_events_usd: 0, has_cost_events: false },
      { agent_id: AGENT_B, telemetry_cost_usd: 0.5, cost_events_usd: 2, has_cost_events: true },
      { agent_id: null, telemetry_cost_usd: 0.25, cost_events_usd: 0, has_cost_events: false },
    ]);
  });
});

describe('span retention', () => {
  it('sets the TTL of the span tables to the configured days, and only when it differs', async () => {
    expect(await currentSpanRetentionDays(store)).toBe(30);
    expect(await applySpanRetention(store, 30)).toEqual([]);
    expect(await applySpanRetention(store, 7)).toEqual(['raw_spans', 'span_traces']);
    expect(await currentSpanRetentionDays(store, 'raw_spans')).toBe(7);
    expect(await currentSpanRetentionDays(store, 'span_traces')).toBe(7);
    expect(await applySpanRetention(store, 7)).toEqual([]);
    // Expired rows go: a span received 10 days ago is past a 7-day TTL.
    const old = new Date(Date.now() - 10 * 86_400_000).toISOString();
    await insertSpans(store, [span({ received_at: old }), span({})], 'ttl');
    await store.command('OPTIMIZE TABLE raw_spans FINAL');
    const [n] = await store.query<{ n: number }>('SELECT count() AS n FROM raw_spans');
    expect(n!.n).toBe(1);
    await applySpanRetention(store, 30);
  });
});

describe('span events at ingest', () => {
  const pricer = createPricer();
  const directory = new Map([
    ['support-bot', { id: AGENT_A, external_id: 'support-bot', department: null, status: 'APPROVED' }],
    ['triage', { id: AGENT_B, external_id: 'triage', department: null, status: 'APPROVED' }],
  ]);
  const resolver = { resolve: (key: string) => directory.get(key) };
  const record = (over: Partial<SpanRecord>): SpanRecord => {
    const { registry_agent_id: _a, agent_key: _k, cost_usd: _c, priced: _p, received_at: _r, ...rec } = span({});
    return { ...rec, ...over };
  };

  it('resolves gen_ai.agent.id, then gen_ai.agent.name, then service.name; keeps the first key when none resolves', () => {
    const events = toSpanEvents([
      record({ agent_id: 'triage', agent_name: 'support-bot', service_name: 'x' }),
      record({ agent_id: 'unknown-id', agent_name: 'triage', service_name: 'support-bot' }),
      record({ agent_id: '', agent_name: 'nobody', service_name: 'support-bot' }),
      record({ agent_id: 'ghost', agent_name: 'phantom', service_name: 'nowhere' }),
      record({ service_name: '' }),
    ], resolver, pricer, NOW);
    expect(events.map((e) => [e.registry_agent_id, e.agent_key])).toEqual([
      [AGENT_B, 'triage'], [AGENT_B, 'triage'], [AGENT_A, 'support-bot'], [null, 'ghost'], [null, ''],
    ]);
    expect(events[0]!.received_at).toBe(NOW.toISOString());
  });

  it('prices usage with cache reads inside input, or apart when they exceed it; flags unknown models', () => {
    const price = pricer.price('gpt-4o')!;
    const inside = priceSpan(record({ model: 'gpt-4o', input_tokens: 1000, output_tokens: 100, cache_read_tokens: 400 }), pricer);
    const cached = price.cached_input ?? price.input;
    expect(inside.priced).toBe(true);
    expect(inside.cost_usd).toBeCloseTo((600 * price.input + 400 * cached + 100 * price.output) / 1e6, 9);
    const apart = priceSpan(record({ model: 'gpt-4o', input_tokens: 10, output_tokens: 0, cache_read_tokens: 400, cache_creation_tokens: 50 }), pricer);
    expect(apart.cost_usd).toBeCloseTo((60 * price.input + 400 * cached) / 1e6, 9);
    expect(priceSpan(record({ model: 'no-such-model-zz', input_tokens: 5 }), pricer)).toEqual({ cost_usd: 0, priced: false });
    expect(priceSpan(record({ model: '', input_tokens: 5 }), pricer)).toEqual({ cost_usd: 0, priced: false });
    expect(priceSpan(record({ model: 'gpt-4o' }), pricer)).toEqual({ cost_usd: 0, priced: true });
  });
});

describe('OTLP byte budget', () => {
  it('refuses with 429 and Retry-After past the budget, frees on give, lets one oversized export through alone', () => {
    const budget = new ByteBudget(100);
    const a = budget.take(60);
    const refused = (() => { try { budget.take(50); } catch (e) { return e; } })() as AppError;
    expect(refused).toBeInstanceOf(AppError);
    expect([refused.status, refused.code, refused.retryAfterSeconds]).toEqual([429, 'otlp_overloaded', 1]);
    budget.give(a);
    expect(budget.take(500)).toBe(500);
    expect(() => budget.take(1)).toThrow(AppError);
    budget.give(500);
    expect(budget.inUse).toBe(0);
  });
});

function costEvent(agent: string, cost: number): CostEventRecord {
  return {
    event_id: crypto.randomUUID(), agent_id: agent, agent_external_id: 'b', department: '', job_id: 'j', model: 'gpt-4o', provider: 'openai',
    input_tokens: 1, output_tokens: 1, cached_input_tokens: 0, cost_usd: cost, usd_rate: 1, cost_display: cost, display_currency: 'USD', priced: true,
    input_usd_per_mtok: 1, output_usd_per_mtok: 1, cached_input_usd_per_mtok: 1, source: 'cost_event', occurred_at: NOW.toISOString(), received_at: NOW.toISOString(),
  };
}
