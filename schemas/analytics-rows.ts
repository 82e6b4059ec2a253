// Records the analytics store takes: one quality signal (with its checks) and one cost event, in
// the shape ingest hands to the loader (in-process, or through Kafka as JSON). Every figure is
// final when it reaches the store: ingest resolves the agent, prices the tokens and converts the
// currency, so loading is a plain insert and a redelivered record carries the same values.
import { Type, type Static } from '@sinclair/typebox';

const Uuid = Type.String({ pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$' });
/** ISO 8601 with a zone, e.g. `2025-01-31T23:59:59.999Z`; stored as DateTime64(3, 'UTC'). */
const Instant = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?(Z|[+-]\\d{2}:\\d{2})$' });
const Count = Type.Integer({ minimum: 0 });
const Money = Type.Number({ minimum: 0 });
/** Decimal number carried as text (spec: expected/actual/delta); null when the check has none. */
const DecimalText = Type.Union([Type.String({ maxLength: 64 }), Type.Null()]);

export const CheckRecordSchema = Type.Object({
  check_id: Type.String({ minLength: 1, maxLength: 200 }),
  /** Stored upper-cased, so `high` and `HIGH` are one severity for filters. */
  severity: Type.String({ minLength: 1, maxLength: 32 }),
  passed: Type.Boolean(),
  expected: Type.Optional(DecimalText),
  actual: Type.Optional(DecimalText),
  delta: Type.Optional(DecimalText),
});
export type CheckRecord = Static<typeof CheckRecordSchema>;

export const SignalRecordSchema = Type.Object({
  signal_id: Uuid,
  /** Registry agent the signal was resolved to (signals always have one; see decisions §2). */
  agent_id: Uuid,
  agent_external_id: Type.String(),
  job_id: Type.String({ minLength: 1 }),
  overall_passed: Type.Boolean(),
  latency_ms: Count,
  model: Type.Union([Type.String(), Type.Null()]),
  token_input: Type.Union([Count, Type.Null()]),
  token_output: Type.Union([Count, Type.Null()]),
  received_at: Instant,
  /** check_count and passed_count are derived from this list at insert time. */
  checks: Type.Array(CheckRecordSchema),
});
export type SignalRecord = Static<typeof SignalRecordSchema>;

export const CostSourceSchema = Type.Union([Type.Literal('cost_event'), Type.Literal('signal')]);
export type CostSource = Static<typeof CostSourceSchema>;

export const CostEventRecordSchema = Type.Object({
  event_id: Uuid,
  /** null when the agent is not in the registry: the summary's unattributed cost. */
  agent_id: Type.Union([Uuid, Type.Null()]),
  agent_external_id: Type.String(),
  /** The agent's department when the event was ingested; '' when none or unattributed. */
  department: Type.String(),
  job_id: Type.String(),
  model: Type.String(),
  provider: Type.String(),
  input_tokens: Count,
  output_tokens: Count,
  cached_input_tokens: Count,
  cost_usd: Money,
  /** Display-currency units per USD used for cost_display (1 when the display currency is USD). */
  usd_rate: Type.Number({ exclusiveMinimum: 0 }),
  cost_display: Money,
  display_currency: Type.String({ pattern: '^[A-Z]{3}$' }),
  /** false: the model had no price, cost is 0 and the model is listed as unpriced. */
  priced: Type.Boolean(),
  /** Price snapshot used (USD per million tokens); 0 when unpriced. */
  input_usd_per_mtok: Money,
  output_usd_per_mtok: Money,
  cached_input_usd_per_mtok: Money,
  source: CostSourceSchema,
  /** When the spend happened (days of cost reports); equals received_at for HTTP cost events. */
  occurred_at: Instant,
  received_at: Instant,
});
export type CostEventRecord = Static<typeof CostEventRecordSchema>;
