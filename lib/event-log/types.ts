// The durable hand-off between ingest and the analytics store. `append` resolves only when the
// events are durable: committed to the analytics store (embedded mode) or acknowledged by all
// in-sync Kafka replicas (Kafka mode). It rejects with a retryable AppError (503) otherwise.

export type EventKind = 'signals' | 'costs' | 'spans';
export const EVENT_KINDS: readonly EventKind[] = ['signals', 'costs', 'spans'];

export interface EventLog {
  start(): Promise<void>;
  /** Refuses new events, then waits until everything accepted so far is durable or failed. */
  stop(): Promise<void>;
  append(kind: EventKind, events: readonly object[]): Promise<void>;
  health(): Promise<{ up: boolean; details?: Record<string, unknown> }>;
}

/**
 * Writes one batch of one kind into the analytics store. `dedupToken` names the batch so that
 * loading it again (a retry, a Kafka redelivery) changes nothing.
 */
export type BatchLoader = (kind: EventKind, events: readonly object[], dedupToken: string) => Promise<void>;
