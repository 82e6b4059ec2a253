// Turns one accepted event into a Kafka message and back. The producer encodes on the request's
// own turn (a bad record fails that request only); the consumer decodes and validates every
// message, so a message that would break the store's insert never reaches it: it is named
// invalid with a reason and goes to the dead-letter topic.
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { EVENT_ENVELOPE_VERSION, EventEnvelopeSchema, RECORD_SCHEMAS, type EventEnvelope } from '../../schemas/event-envelope.ts';
import type { EventKind } from './types.ts';

export interface EncodedEvent {
  key: string;
  value: Buffer;
}

export type DecodedEvent = { ok: true; record: object } | { ok: false; reason: string };

const envelopeCheck = TypeCompiler.Compile(EventEnvelopeSchema);
const recordChecks = {
  signals: TypeCompiler.Compile(RECORD_SCHEMAS.signals),
  costs: TypeCompiler.Compile(RECORD_SCHEMAS.costs),
  spans: TypeCompiler.Compile(RECORD_SCHEMAS.spans),
};

/**
 * The partition key: one agent's events stay in one partition, in order. Unattributed cost
 * events have no agent id; their external id still groups them.
 */
export function partitionKey(kind: EventKind, record: Record<string, unknown>): string {
  const pick = (...names: string[]) => {
    for (const name of names) {
      const value = record[name];
      if (typeof value === 'string' && value !== '') return value;
    }
    return '';
  };
  switch (kind) {
    case 'signals':
      return pick('agent_id', 'agent_external_id');
    case 'costs':
      return pick('agent_id', 'agent_external_id');
    case 'spans':
      // The registry agent when the span resolved to one, else the identity discovery will
      // register, else the trace (a trace's spans stay together).
      return pick('registry_agent_id', 'agent_key', 'trace_id');
  }
}

export function encodeEvent(kind: EventKind, record: object, producedAt: string): EncodedEvent {
  const envelope: EventEnvelope = { v: EVENT_ENVELOPE_VERSION, kind, produced_at: producedAt, record };
  return { key: partitionKey(kind, record as Record<string, unknown>), value: Buffer.from(JSON.stringify(envelope)) };
}

/** `expected` is the kind of the topic the message was read from; a mismatch is invalid. */
export function decodeEvent(expected: EventKind, value: Buffer | null): DecodedEvent {
  if (!value || value.length === 0) return { ok: false, reason: 'empty message' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(value.toString('utf8'));
  } catch (error) {
    return { ok: false, reason: `not JSON: ${(error as Error).message}` };
  }
  const version = (parsed as { v?: unknown } | null)?.v;
  if (version !== EVENT_ENVELOPE_VERSION) {
    return { ok: false, reason: `unsupported envelope version ${JSON.stringify(version ?? null)} (this consumer reads ${EVENT_ENVELOPE_VERSION})` };
  }
  if (!envelopeCheck.Check(parsed)) return { ok: false, reason: `invalid envelope: ${firstError(envelopeCheck, parsed)}` };
  if (parsed.kind !== expected) return { ok: false, reason: `envelope kind "${parsed.kind}" on the ${expected} topic` };
  const check = recordChecks[expected];
  if (!check.Check(parsed.record)) return { ok: false, reason: `invalid ${expected} record: ${firstError(check, parsed.record)}` };
  return { ok: true, record: parsed.record as object };
}

function firstError(check: { Errors(value: unknown): Iterable<{ path: string; message: string }> }, value: unknown): string {
  for (const error of check.Errors(value)) return `${error.path || '/'} ${error.message}`;
  return 'does not match the schema';
}
