// Spans: loading into raw_spans (which feeds span_traces, agent_telemetry_per_day and
// spans_per_hour) exactly once, and reading one trace back.
//
// Dedup follows dedup.ts: a span's identity is (trace_id, span_id). One query per batch asks
// which span_ids the table already holds (bloom filter on span_id) and compares the pair in
// memory; the insert token names the exact rows so a racing duplicate batch is dropped whole,
// materialized views included.
import type { SpanEvent } from '../../schemas/telemetry.ts';
import { batchToken, uniqueById } from './dedup.ts';
import type { AnalyticsStore } from './store.ts';
import { fromDateTime64, toDateTime64 } from './time.ts';

/** agent_id of spans that resolved to no registry agent. */
export const NIL_AGENT_ID = '00000000-0000-0000-0000-000000000000';

const spanKey = (s: { trace_id: string; span_id: string }): string => `${s.trace_id}:${s.span_id}`;

// Columns listed one by one: a record that grew a field upstream must not break the insert.
function spanRow(s: SpanEvent) {
  return {
    trace_id: s.trace_id,
    span_id: s.span_id,
    parent_span_id: s.parent_span_id,
    name: s.name,
    kind: s.kind,
    start_time: s.start_time,
    end_time: s.end_time,
    duration_ms: s.duration_ms,
    status_code: s.status_code,
    status_message: s.status_message,
    service_name: s.service_name,
    scope_name: s.scope_name,
    scope_version: s.scope_version,
    agent_id: s.registry_agent_id ?? NIL_AGENT_ID,
    agent_key: s.agent_key,
    gen_ai_agent_id: s.agent_id,
    gen_ai_agent_name: s.agent_name,
    model: s.model,
    request_model: s.request_model,
    provider: s.provider,
    operation: s.operation,
    input_tokens: s.input_tokens,
    output_tokens: s.output_tokens,
    cache_read_tokens: s.cache_read_tokens,
    cache_creation_tokens: s.cache_creation_tokens,
    cost_usd: s.cost_usd,
    priced: s.priced,
    attributes: s.attributes,
    resource_attributes: s.resource_attributes,
    received_at: toDateTime64(s.received_at),
  };
}

/** Keys (`trace:span`) of the given spans already in raw_spans. */
async function storedSpanKeys(store: AnalyticsStore, spans: readonly SpanEvent[]): Promise<Set<string>> {
  if (spans.length === 0) return new Set();
  const rows = await store.query<{ trace_id: string; span_id: string }>(
    'SELECT DISTINCT trace_id, span_id FROM raw_spans WHERE span_id IN {ids:Array(String)}',
    { ids: spans.map((s) => s.span_id) },
  );
  return new Set(rows.map(spanKey));
}

/**
 * Stores spans not stored before; returns how many were new. `dedupToken` names the delivery
 * and must be the same when the same batch is delivered again.
 */
export async function insertSpans(store: AnalyticsStore, spans: readonly SpanEvent[], dedupToken: string): Promise<number> {
  const unique = uniqueById(spans, spanKey);
  const stored = await storedSpanKeys(store, unique);
  const fresh = stored.size === 0 ? unique : unique.filter((s) => !stored.has(spanKey(s)));
  if (fresh.length === 0) return 0;
  const token = batchToken(dedupToken, fresh.map(spanKey));
  await store.insert('raw_spans', fresh.map(spanRow), { dedupToken: token });
  return fresh.length;
}

export interface TraceSpan {
  trace_id: string;
  span_id: string;
  parent_span_id: string;
  name: string;
  kind: string;
  start_time: string;
  end_time: string;
  duration_ms: number;
  status_code: string;
  status_message: string;
  service_name: string;
  /** null: resolved to no registry agent. */
  agent_id: string | null;
  agent_key: string;
  model: string;
  provider: string;
  operation: string;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  attributes: Record<string, string>;
}

/**
 * Every stored span of one trace, by start time. Two reads: span_traces gives the trace's
 * agents and arrival window, so the raw read uses the primary key and partition pruning.
 */
export async function getTraceSpans(store: AnalyticsStore, traceId: string): Promise<TraceSpan[]> {
  const id = traceId.toLowerCase();
  if (!/^[0-9a-f]{32}$/.test(id)) return [];
  const [where] = await store.query<{ agents: string[]; first: string; last: string }>(
    `SELECT groupUniqArray(toString(agent_id)) AS agents, toString(min(first_received)) AS first, toString(max(last_received)) AS last
     FROM span_traces WHERE trace_id = {id:String} HAVING count() > 0`,
    { id },
  );
  if (!where) return [];
  // Aliases differ from column names: ClickHouse resolves WHERE names to SELECT aliases first.
  const rows = await store.query<Omit<TraceSpan, 'agent_id'> & { agent: string; start: string; end: string }>(
    `SELECT trace_id, span_id, parent_span_id, name, kind, toString(start_time) AS start, toString(end_time) AS end,
            duration_ms, status_code, status_message, service_name,
            toString(agent_id) AS agent, agent_key, model, provider, operation,
            input_tokens, output_tokens, toFloat64(cost_usd) AS cost_usd, attributes
     FROM raw_spans
     WHERE agent_id IN {agents:Array(UUID)}
       AND received_at BETWEEN {first:DateTime64(3, 'UTC')} AND {last:DateTime64(3, 'UTC')}
       AND trace_id = {id:String}
     ORDER BY start_time, span_id
     LIMIT 1 BY span_id`,
    { id, agents: where.agents, first: where.first, last: where.last },
  );
  return rows.map(({ agent, start, end, ...r }) => ({
    ...r,
    start_time: nanosIso(start),
    end_time: nanosIso(end),
    agent_id: agent === NIL_AGENT_ID ? null : agent,
  }));
}

/** DateTime64(9) text → ISO 8601 keeping all nine fraction digits. */
function nanosIso(text: string): string {
  const [date, time] = text.split(' ');
  return date && time ? `${date}T${time}Z` : fromDateTime64(text);
}
