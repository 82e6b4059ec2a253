// Row types for OpenTelemetry data decoded from OTLP export requests. One row per span, flat, in
// the shape the analytics store takes (JSONEachRow): ids as lowercase hex, times as UTC
// DateTime64(9) text so nanoseconds survive (a uint64 of nanoseconds does not fit a JS number).
import { Type, type Static } from '@sinclair/typebox';

export const SpanKindSchema = Type.Union([
  Type.Literal('UNSPECIFIED'),
  Type.Literal('INTERNAL'),
  Type.Literal('SERVER'),
  Type.Literal('CLIENT'),
  Type.Literal('PRODUCER'),
  Type.Literal('CONSUMER'),
]);
export type SpanKind = Static<typeof SpanKindSchema>;

export const SpanStatusCodeSchema = Type.Union([Type.Literal('UNSET'), Type.Literal('OK'), Type.Literal('ERROR')]);
export type SpanStatusCode = Static<typeof SpanStatusCodeSchema>;

/** `YYYY-MM-DD hh:mm:ss.nnnnnnnnn`, UTC; ClickHouse parses it into DateTime64(9, 'UTC'). */
const DateTime64Text = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}\\.\\d{9}$' });
const StringMap = Type.Record(Type.String(), Type.String());
const Tokens = Type.Integer({ minimum: 0 });

export const SpanRecordSchema = Type.Object({
  trace_id: Type.String({ pattern: '^[0-9a-f]{32}$' }),
  span_id: Type.String({ pattern: '^[0-9a-f]{16}$' }),
  /** '' for a root span. */
  parent_span_id: Type.String({ pattern: '^([0-9a-f]{16})?$' }),
  name: Type.String(),
  kind: SpanKindSchema,
  start_time: DateTime64Text,
  end_time: DateTime64Text,
  /** end - start in milliseconds with sub-millisecond fraction; 0 when end precedes start. */
  duration_ms: Type.Number({ minimum: 0 }),
  status_code: SpanStatusCodeSchema,
  status_message: Type.String(),
  /** Resource attribute `service.name`; '' when absent. */
  service_name: Type.String(),
  scope_name: Type.String(),
  scope_version: Type.String(),
  // GenAI semantic conventions; '' or 0 when the span does not carry them.
  /** gen_ai.response.model, else gen_ai.request.model. */
  model: Type.String(),
  request_model: Type.String(),
  /** gen_ai.provider.name, else the older gen_ai.system. */
  provider: Type.String(),
  operation: Type.String(),
  /** gen_ai.agent.name / gen_ai.agent.id on the span, else on the resource. */
  agent_name: Type.String(),
  agent_id: Type.String(),
  input_tokens: Tokens,
  output_tokens: Tokens,
  cache_read_tokens: Tokens,
  cache_creation_tokens: Tokens,
  /** Span attributes as text, bounded in count and length (see AttributeLimits). */
  attributes: StringMap,
  /** Resource attributes as text, same bounds; shared by every row of one resource. */
  resource_attributes: StringMap,
});
export type SpanRecord = Static<typeof SpanRecordSchema>;
