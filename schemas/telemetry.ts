// Telemetry (OTLP) shapes: the span event ingest hands to the event log (in-process or through
// Kafka as JSON; producer and consumer share this schema), and the answers of the telemetry
// read endpoints. Every figure of a span event is final at ingest (agent resolved, tokens
// priced), so loading is a plain insert and a redelivered event carries the same values.
import { Type, type Static } from '@sinclair/typebox';
import { SpanRecordSchema } from './otlp.ts';

const Uuid = Type.String({ pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$' });
/** ISO 8601 with a zone (a pattern, not `format`: compiled validators know no formats unless registered). */
const Instant = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?(Z|[+-]\\d{2}:\\d{2})$' });
const Count = Type.Integer({ minimum: 0 });
const Money = Type.Number({ minimum: 0 });
const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

/** Event kind `spans` of the event log: one decoded span plus what ingest decided about it. */
export const SpanEventSchema = Type.Object({
  ...SpanRecordSchema.properties,
  /** Registry agent the span resolved to; null when none did (stored as the nil UUID). */
  registry_agent_id: Type.Union([Uuid, Type.Null()]),
  /**
   * The identity used to resolve the agent: gen_ai.agent.id, else gen_ai.agent.name, else
   * service.name (the first that resolved, or the first present when none did). Discovery
   * registers unresolved keys as external_id, so later spans resolve to that agent.
   */
  agent_key: Type.String(),
  /** Token usage priced with the instance's prices at ingest; 0 when unpriced or no usage. */
  cost_usd: Money,
  /** false: the span carries token usage but its model has no price (or no model). */
  priced: Type.Boolean(),
  received_at: Instant,
});
export type SpanEvent = Static<typeof SpanEventSchema>;

export const LatencySchema = Type.Object({ p50: Type.Number(), p95: Type.Number() });

export const TelemetryModelSchema = Type.Object({
  model: Type.String(),
  provider: Type.String(),
  spans: Count,
  input_tokens: Count,
  output_tokens: Count,
  cache_read_tokens: Count,
  cache_creation_tokens: Count,
  telemetry_cost_usd: Money,
  unpriced_spans: Count,
});
export type TelemetryModel = Static<typeof TelemetryModelSchema>;

/** GET /api/v1/agents/{agent_id}/telemetry, and the `telemetry` field of agent detail. */
export const AgentTelemetrySchema = Type.Object({
  agent_id: Uuid,
  period_days: Count,
  spans: Count,
  errors: Count,
  /** errors / spans; null without spans. */
  error_rate: Type.Union([Type.Number(), Type.Null()]),
  /** Span duration in milliseconds (t-digest estimate); null without spans. */
  latency_ms: Type.Union([LatencySchema, Type.Null()]),
  input_tokens: Count,
  output_tokens: Count,
  cache_read_tokens: Count,
  /** Priced from span token usage; shown beside the cost-event figures, never added into them. */
  telemetry_cost_usd: Money,
  unpriced_spans: Count,
  /** Spans that named a model, most spans first. */
  models: Type.Array(TelemetryModelSchema),
  /** When the service last received a span of this agent; null when never in the window. */
  last_span_at: Nullable(Instant),
  /** Zero-filled, oldest first. */
  daily: Type.Array(Type.Object({ date: Type.String(), spans: Count, errors: Count })),
});
export type AgentTelemetry = Static<typeof AgentTelemetrySchema>;

export const RejectionSchema = Type.Object({
  at: Instant,
  signal: Type.String(),
  /** HTTP status answered (200 for a partial success). */
  status: Type.Integer(),
  code: Type.String(),
  reason: Type.String(),
});
export type Rejection = Static<typeof RejectionSchema>;

/** GET /api/v1/otel/status (decisions §8). */
export const TelemetryStatusSchema = Type.Object({
  /** RECEIVING: a span arrived in the last 15 minutes; STALE: earlier; NO_DATA: never. */
  status: Type.Union([Type.Literal('RECEIVING'), Type.Literal('STALE'), Type.Literal('NO_DATA')]),
  receiving: Type.Boolean(),
  recent_window_minutes: Count,
  last_span_at: Nullable(Instant),
  /** Spans received in the current hour and the 23 before it. */
  spans_last_24h: Count,
  services_last_24h: Count,
  services: Type.Array(Type.Object({ service_name: Type.String(), spans: Count })),
  last_export_at: Type.Object({ traces: Nullable(Instant), metrics: Nullable(Instant), logs: Nullable(Instant) }),
  spans_accepted_total: Count,
  exports_rejected_total: Count,
  last_rejection: Type.Union([RejectionSchema, Type.Null()]),
  span_retention_days: Count,
});
export type TelemetryStatus = Static<typeof TelemetryStatusSchema>;

/** GET /api/v1/otel/costs: telemetry cost per agent beside its cost-event spend. */
export const TelemetryCostOverviewSchema = Type.Object({
  period_days: Count,
  telemetry_cost_usd: Money,
  /** Telemetry cost of agents (and unresolved spans) with no cost-event spend in the window. */
  telemetry_cost_usd_without_cost_events: Money,
  agents: Type.Array(
    Type.Object({
      /** null: spans that resolved to no registry agent. */
      agent_id: Type.Union([Uuid, Type.Null()]),
      telemetry_cost_usd: Money,
      cost_events_usd: Money,
      has_cost_events: Type.Boolean(),
    }),
  ),
});
export type TelemetryCostOverview = Static<typeof TelemetryCostOverviewSchema>;

/** GET /api/v1/otel/traces/{trace_id}: the stored spans of one trace, by start time. */
export const TraceSchema = Type.Object({
  trace_id: Type.String(),
  spans: Type.Array(
    Type.Object({
      trace_id: Type.String(),
      span_id: Type.String(),
      /** '' for a root span. */
      parent_span_id: Type.String(),
      name: Type.String(),
      kind: Type.String(),
      /** ISO 8601 with nanoseconds. */
      start_time: Type.String(),
      end_time: Type.String(),
      duration_ms: Type.Number(),
      status_code: Type.String(),
      status_message: Type.String(),
      service_name: Type.String(),
      agent_id: Type.Union([Uuid, Type.Null()]),
      agent_key: Type.String(),
      model: Type.String(),
      provider: Type.String(),
      operation: Type.String(),
      input_tokens: Count,
      output_tokens: Count,
      cost_usd: Money,
      attributes: Type.Record(Type.String(), Type.String()),
    }),
  ),
});

/** The body of every OTLP export (ExportTraceServiceRequest and its metrics and logs peers). */
export const OtlpExportRequestSchema = Type.Unknown({
  description: 'An OTLP Export<Signal>ServiceRequest, protobuf or proto3 JSON, optionally gzip or deflate (Content-Encoding).',
});
