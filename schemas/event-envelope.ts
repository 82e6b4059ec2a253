// The Kafka message that carries one accepted event from ingest to the workers. Producer and
// consumer share this schema; `v` lets a newer producer and an older consumer (or the reverse)
// meet during a rolling deploy: a consumer dead-letters a version it does not know instead of
// guessing. The record inside is validated against the row schema of its kind.
import { Type, type Static } from '@sinclair/typebox';
import { CostEventRecordSchema, SignalRecordSchema } from './analytics-rows.ts';
import { SpanEventSchema } from './telemetry.ts';

export const EVENT_ENVELOPE_VERSION = 1;

export const EventKindSchema = Type.Union([Type.Literal('signals'), Type.Literal('costs'), Type.Literal('spans')]);

export const EventEnvelopeSchema = Type.Object(
  {
    v: Type.Literal(EVENT_ENVELOPE_VERSION),
    kind: EventKindSchema,
    /** When ingest produced the message (ISO 8601); end-to-end latency, never stored. */
    produced_at: Type.String({ minLength: 1 }),
    /** A SignalRecord, CostEventRecord or SpanEvent, per `kind`. */
    record: Type.Unknown(),
  },
  { additionalProperties: false },
);
export type EventEnvelope = Static<typeof EventEnvelopeSchema>;

/** The row schema each kind's record must satisfy before it reaches the analytics store. */
export const RECORD_SCHEMAS = {
  signals: SignalRecordSchema,
  costs: CostEventRecordSchema,
  spans: SpanEventSchema,
} as const;

/** Headers of a dead-lettered message (the value and key are the original ones, unchanged). */
export const DEAD_LETTER_HEADERS = {
  reason: 'aor-dead-letter-reason',
  topic: 'aor-original-topic',
  partition: 'aor-original-partition',
  offset: 'aor-original-offset',
  failedAt: 'aor-failed-at',
} as const;
