// Telemetry reads: per-agent figures from agent_telemetry_per_day, traffic of the last hours
// from spans_per_hour, unresolved span agents for discovery, and telemetry cost beside
// cost-event spend. Windows are whole UTC days ending today (time.ts), as for cost reads.
import type { AgentTelemetry, TelemetryCostOverview, TelemetryModel } from '../../schemas/telemetry.ts';
import { UNATTRIBUTED_AGENT_ID } from './costs.ts';
import { NIL_AGENT_ID } from './spans.ts';
import type { AnalyticsStore } from './store.ts';
import { dayWindow, daysOf, fromDateTime64 } from './time.ts';

const round = (x: number, places: number): number => Number(x.toFixed(places));

/** Per-agent telemetry over the last `days` UTC days (the agent telemetry endpoint and agent detail). */
export async function getAgentTelemetry(store: AnalyticsStore, options: { agentId: string; days: number; now: Date }): Promise<AgentTelemetry> {
  const window = dayWindow(options.now, options.days);
  const params = { agent: options.agentId, from: window.from, to: window.to };
  const where = 'agent_id = {agent:UUID} AND day BETWEEN {from:Date} AND {to:Date}';
  const [totals, models, daily] = await Promise.all([
    store.query<{ spans: number; errors: number; input_tokens: number; output_tokens: number; cache_read_tokens: number; cost_usd: number; unpriced_spans: number; last: string; latency: number[] }>(
      `SELECT sum(spans) AS spans, sum(errors) AS errors, sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens,
              sum(cache_read_tokens) AS cache_read_tokens, toFloat64(sum(cost_usd)) AS cost_usd, sum(unpriced_spans) AS unpriced_spans,
              toString(max(last_received_at)) AS last, quantilesTDigestMerge(0.5, 0.95)(duration_ms_digest) AS latency
       FROM agent_telemetry_per_day WHERE ${where}`,
      params,
    ),
    store.query<TelemetryModel>(
      `SELECT model, provider, sum(spans) AS spans, sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens,
              sum(cache_read_tokens) AS cache_read_tokens, sum(cache_creation_tokens) AS cache_creation_tokens,
              toFloat64(sum(cost_usd)) AS telemetry_cost_usd, sum(unpriced_spans) AS unpriced_spans
       FROM agent_telemetry_per_day WHERE ${where} AND model != ''
       GROUP BY model, provider ORDER BY spans DESC, model, provider`,
      params,
    ),
    store.query<{ date: string; spans: number; errors: number }>(
      `SELECT toString(day) AS date, sum(spans) AS spans, sum(errors) AS errors
       FROM agent_telemetry_per_day WHERE ${where} GROUP BY day ORDER BY day`,
      params,
    ),
  ]);
  const t = totals[0];
  const spans = t?.spans ?? 0;
  const byDate = new Map(daily.map((d) => [d.date, d]));
  return {
    agent_id: options.agentId,
    period_days: options.days,
    spans,
    errors: t?.errors ?? 0,
    error_rate: spans > 0 ? round((t?.errors ?? 0) / spans, 6) : null,
    latency_ms: spans > 0 && t ? { p50: round(t.latency[0] ?? 0, 3), p95: round(t.latency[1] ?? 0, 3) } : null,
    input_tokens: t?.input_tokens ?? 0,
    output_tokens: t?.output_tokens ?? 0,
    cache_read_tokens: t?.cache_read_tokens ?? 0,
    telemetry_cost_usd: round(t?.cost_usd ?? 0, 9),
    unpriced_spans: t?.unpriced_spans ?? 0,
    models: models.map((m) => ({ ...m, telemetry_cost_usd: round(m.telemetry_cost_usd, 9) })),
    last_span_at: spans > 0 && t ? fromDateTime64(t.last) : null,
    daily: daysOf(window).map((date) => byDate.get(date) ?? { date, spans: 0, errors: 0 }),
  };
}

export interface SpanTraffic {
  spans: number;
  /** Per service.name, most spans first. */
  services: Array<{ service_name: string; spans: number }>;
}

/** Spans received in the hour of `now` and the `hours - 1` before it, per service. */
export async function getSpanTraffic(store: AnalyticsStore, options: { now: Date; hours?: number }): Promise<SpanTraffic> {
  const hours = options.hours ?? 24;
  const from = new Date(Math.floor(options.now.getTime() / 3_600_000) * 3_600_000 - (hours - 1) * 3_600_000);
  const services = await store.query<{ service_name: string; spans: number }>(
    `SELECT service_name, sum(spans) AS spans FROM spans_per_hour
     WHERE hour >= {from:DateTime('UTC')} GROUP BY service_name HAVING spans > 0 ORDER BY spans DESC, service_name`,
    { from: sqlTime(from).slice(0, 19) },
  );
  return { spans: services.reduce((n, s) => n + s.spans, 0), services };
}

export interface UnregisteredSpanAgent {
  /** What discovery should register as external_id: later spans then resolve to it. */
  agent_key: string;
  /** Which attribute the key came from. */
  key_source: 'gen_ai.agent.id' | 'gen_ai.agent.name' | 'service.name';
  /** A gen_ai.agent.name seen with the key ('' when none): a better display name than an id. */
  agent_name: string;
  service_names: string[];
  models: string[];
  spans: number;
  /** Spans carrying a model or a GenAI agent attribute. */
  genai_spans: number;
  first_seen_at: string;
  last_seen_at: string;
}

/**
 * Identities of spans that resolved to no registry agent, most spans first: the input of the
 * telemetry discovery scanner. By default only keys with GenAI evidence (a model or an agent
 * attribute) are listed, so a plain web service sending traces is not taken for an agent.
 */
export async function listUnregisteredSpanAgents(
  store: AnalyticsStore,
  options: { days: number; now?: Date; limit?: number; requireGenAi?: boolean },
): Promise<UnregisteredSpanAgent[]> {
  const now = options.now ?? new Date();
  const from = new Date(now.getTime() - options.days * 86_400_000);
  const rows = await store.query<UnregisteredSpanAgent & { ids: number; names: number }>(
    `SELECT agent_key, anyIf(gen_ai_agent_name, gen_ai_agent_name != '') AS agent_name,
            countIf(gen_ai_agent_id = agent_key) AS ids, countIf(gen_ai_agent_name = agent_key) AS names,
            arraySort(groupUniqArray(20)(service_name)) AS service_names,
            arraySort(groupUniqArrayIf(20)(model, model != '')) AS models,
            count() AS spans, countIf(model != '' OR gen_ai_agent_id != '' OR gen_ai_agent_name != '') AS genai_spans,
            toString(min(received_at)) AS first_seen_at, toString(max(received_at)) AS last_seen_at
     FROM raw_spans
     WHERE agent_id = {nil:UUID} AND agent_key != '' AND received_at >= {from:DateTime64(3, 'UTC')}
     GROUP BY agent_key
     ${options.requireGenAi === false ? '' : 'HAVING genai_spans > 0'}
     ORDER BY spans DESC, agent_key
     LIMIT {limit:UInt32}`,
    { nil: NIL_AGENT_ID, from: sqlTime(from), limit: options.limit ?? 1000 },
  );
  return rows.map(({ ids, names, ...r }) => ({
    ...r,
    key_source: ids > 0 ? 'gen_ai.agent.id' : names > 0 ? 'gen_ai.agent.name' : 'service.name',
    service_names: r.service_names.filter((s) => s !== ''),
    first_seen_at: fromDateTime64(r.first_seen_at),
    last_seen_at: fromDateTime64(r.last_seen_at),
  }));
}

/**
 * Telemetry cost per agent beside its cost-event spend. Telemetry cost is never part of the cost
 * totals; an operator who wants it counted for agents that send no cost events adds
 * `telemetry_cost_usd_without_cost_events` to the cost summary's total (docs/telemetry.md).
 */
export async function getTelemetryCostOverview(store: AnalyticsStore, options: { days: number; now: Date }): Promise<TelemetryCostOverview> {
  const window = dayWindow(options.now, options.days);
  const params = { from: window.from, to: window.to };
  const [telemetry, spend] = await Promise.all([
    store.query<{ agent_id: string; cost: number }>(
      `SELECT toString(agent_id) AS agent_id, toFloat64(sum(cost_usd)) AS cost FROM agent_telemetry_per_day
       WHERE day BETWEEN {from:Date} AND {to:Date} GROUP BY agent_id HAVING cost > 0 ORDER BY cost DESC, agent_id`,
      params,
    ),
    store.query<{ agent_id: string; cost: number }>(
      `SELECT toString(agent_id) AS agent_id, toFloat64(sum(cost_usd)) AS cost FROM spend_per_day
       WHERE day BETWEEN {from:Date} AND {to:Date} GROUP BY agent_id`,
      params,
    ),
  ]);
  const spendOf = new Map(spend.map((s) => [s.agent_id, s]));
  let total = 0;
  let withoutCostEvents = 0;
  const agents = telemetry.map((t) => {
    const nil = t.agent_id === NIL_AGENT_ID;
    // Unresolved spans are compared with unattributed spend: both are "no registry agent".
    const costEvents = spendOf.get(nil ? UNATTRIBUTED_AGENT_ID : t.agent_id)?.cost ?? 0;
    const hasCostEvents = spendOf.has(nil ? UNATTRIBUTED_AGENT_ID : t.agent_id);
    total += t.cost;
    if (!hasCostEvents) withoutCostEvents += t.cost;
    return { agent_id: nil ? null : t.agent_id, telemetry_cost_usd: round(t.cost, 9), cost_events_usd: round(costEvents, 9), has_cost_events: hasCostEvents };
  });
  return {
    period_days: options.days,
    telemetry_cost_usd: round(total, 9),
    telemetry_cost_usd_without_cost_events: round(withoutCostEvents, 9),
    agents,
  };
}

export interface AgentSpanActivity {
  agent_id: string;
  spans: number;
  /** Model → spans naming it. */
  models: Record<string, number>;
  last_received_at: string;
  service_name: string;
}

/**
 * What resolved spans inserted in (from, to] say about each registry agent: the input of the
 * observations job (observed models, telemetry facts). Bounded by inserted_at so each span is
 * read by one run.
 */
export async function getSpanActivity(store: AnalyticsStore, options: { from: Date; to: Date }): Promise<AgentSpanActivity[]> {
  const rows = await store.query<{ agent_id: string; spans: number; models: Array<[string, number]>; last: string; service_name: string }>(
    `SELECT toString(agent_id) AS agent_id, sum(n) AS spans, arrayFilter(m -> m.1 != '', groupArray((model, n))) AS models,
            toString(max(last)) AS last, argMax(service_name, n) AS service_name
     FROM (
       SELECT agent_id, model, any(service_name) AS service_name, count() AS n, max(received_at) AS last
       FROM raw_spans
       WHERE inserted_at > {from:DateTime64(3, 'UTC')} AND inserted_at <= {to:DateTime64(3, 'UTC')} AND agent_id != {nil:UUID}
       GROUP BY agent_id, model
     )
     GROUP BY agent_id ORDER BY agent_id`,
    { from: sqlTime(options.from), to: sqlTime(options.to), nil: NIL_AGENT_ID },
  );
  return rows.map((r) => ({
    agent_id: r.agent_id,
    spans: r.spans,
    models: Object.fromEntries(r.models),
    last_received_at: fromDateTime64(r.last),
    service_name: r.service_name,
  }));
}

const sqlTime = (at: Date): string => at.toISOString().replace('T', ' ').replace('Z', '');

/**
 * Models each registry agent named in spans over the last `days` UTC days, with the number of
 * spans: the telemetry half of the observed models that feed discrepancies and risk (merged
 * with the cost-event models by the observation sync).
 */
export async function getObservedSpanModels(
  store: AnalyticsStore,
  options: { days: number; now: Date },
): Promise<Array<{ agent_id: string; model: string; spans: number }>> {
  const window = dayWindow(options.now, options.days);
  return store.query(
    `SELECT toString(agent_id) AS agent_id, model, sum(spans) AS spans FROM agent_telemetry_per_day
     WHERE day BETWEEN {from:Date} AND {to:Date} AND agent_id != {nil:String} AND model != ''
     GROUP BY agent_id, model ORDER BY agent_id, spans DESC, model`,
    { from: window.from, to: window.to, nil: NIL_AGENT_ID },
  );
}
