// Bodies and answers of the public write endpoints: quality signals and cost events, single and
// batched. Every string and array is bounded; extra fields are refused so typos surface as 422.
import { Type, type Static } from '@sinclair/typebox';

export const LIMITS = {
  checksPerSignal: 200,
  itemsPerBatch: 10_000,
  idLength: 200,
  textLength: 2_000,
} as const;

const Id = Type.String({ minLength: 1, maxLength: LIMITS.idLength });
const Uuid = Type.String({ pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$' });
const TokenCount = Type.Integer({ minimum: 0, maximum: 100_000_000 });
/** Decimal numbers carried as strings (spec: expected, actual, delta). */
const DecimalText = Type.String({ maxLength: 64, pattern: '^-?(\\d+(\\.\\d*)?|\\.\\d+)([eE][-+]?\\d+)?$' });
const Instant = Type.String({
  maxLength: 40,
  pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?(Z|[+-]\\d{2}:\\d{2})$',
  description: 'ISO 8601 timestamp with a zone.',
});

const idempotency = {
  event_id: Type.Optional(
    Type.Union([Uuid], {
      description: 'Client-chosen id (uuid). Sending the same event_id again never counts twice: retries are safe.',
    }),
  ),
  occurred_at: Type.Optional(
    Type.Union([Instant], {
      description: 'When it happened, for backfills; default: when received. At most 400 days in the past and 5 minutes ahead.',
    }),
  ),
};

export const CheckSchema = Type.Object(
  {
    check_id: Id,
    severity: Type.String({ minLength: 1, maxLength: 32, description: 'For example CRITICAL, HIGH, MEDIUM, LOW; stored upper-case.' }),
    passed: Type.Boolean(),
    expected: Type.Optional(DecimalText),
    actual: Type.Optional(DecimalText),
    delta: Type.Optional(DecimalText),
  },
  { additionalProperties: false },
);

export const QualitySignalSchema = Type.Object(
  {
    agent_id: Id,
    job_id: Id,
    overall_passed: Type.Boolean(),
    token_input: Type.Optional(TokenCount),
    token_output: Type.Optional(TokenCount),
    model: Type.Optional(Type.String({ minLength: 1, maxLength: LIMITS.idLength })),
    latency_ms: Type.Integer({ minimum: 0, maximum: 86_400_000 }),
    checks: Type.Array(CheckSchema, { maxItems: LIMITS.checksPerSignal }),
    ...idempotency,
  },
  { additionalProperties: false, $id: 'QualitySignal' },
);
export type QualitySignal = Static<typeof QualitySignalSchema>;

export const QualitySignalAnswerSchema = Type.Object(
  {
    signal_id: Uuid,
    agent_id: Uuid,
    job_id: Type.String(),
    overall_passed: Type.Boolean(),
    check_count: Type.Integer(),
    passed_count: Type.Integer(),
    received_at: Type.String({ format: 'date-time' }),
    cost_event_id: Type.Optional(Uuid),
  },
  { $id: 'QualitySignalAnswer' },
);
export type QualitySignalAnswer = Static<typeof QualitySignalAnswerSchema>;

export const CostEventSchema = Type.Object(
  {
    agent_id: Id,
    job_id: Id,
    model: Type.String({ minLength: 1, maxLength: LIMITS.idLength }),
    provider: Type.String({ minLength: 1, maxLength: 64 }),
    input_tokens: TokenCount,
    output_tokens: TokenCount,
    cached_input_tokens: Type.Optional(Type.Union([TokenCount], { description: 'Part of input_tokens served from the prompt cache.' })),
    ...idempotency,
  },
  { additionalProperties: false, $id: 'CostEvent' },
);
export type CostEvent = Static<typeof CostEventSchema>;

export const CostEventAnswerSchema = Type.Object(
  {
    event_id: Uuid,
    cost_usd: Type.Number(),
    cost_display: Type.Number(),
    display_currency: Type.String(),
    priced: Type.Boolean({ description: 'false when the model has no price: cost is 0 and the model is listed as unpriced.' }),
    agent_id: Type.Union([Uuid, Type.Null()], { description: 'Registry agent; null when unattributed.' }),
  },
  { $id: 'CostEventAnswer' },
);
export type CostEventAnswer = Static<typeof CostEventAnswerSchema>;

/** Batch signals carry their job_id in the body, as the path has none. */
export const BatchItemResultSchema = Type.Object({
  index: Type.Integer(),
  status: Type.Integer({ description: 'The status this item would have had on its own: 201, 4xx or 503.' }),
  result: Type.Optional(Type.Unknown()),
  error: Type.Optional(Type.Unknown({ description: 'problem+json of this item' })),
});

export const BatchAnswerSchema = Type.Object(
  {
    accepted: Type.Integer(),
    rejected: Type.Integer(),
    items: Type.Array(BatchItemResultSchema),
  },
  { $id: 'BatchAnswer' },
);
