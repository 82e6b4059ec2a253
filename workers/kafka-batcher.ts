// Group commit on the consumer side: kafkajs hands over one batch per partition (several at once
// with partitionsConsumedConcurrently); each is parked here until the kind's batch closes at
// `maxEvents` or `intervalMs`, then one insert loads all of them. Each caller learns whether its
// part was loaded, and only then commits its partition's offsets. A failed insert is retried
// with backoff until it succeeds or the loader stops: a batch is never skipped.
import type { BatchLoader, EventKind } from '../lib/event-log/types.ts';
import type { Logger } from '../lib/log.ts';

export interface BatchPart {
  topic: string;
  partition: number;
  firstOffset: string;
  lastOffset: string;
  records: object[];
}

interface Pending {
  part: BatchPart;
  resolve(loaded: boolean): void;
}

interface KindState {
  pending: Pending[];
  events: number;
  timer?: NodeJS.Timeout;
  quiet?: NodeJS.Timeout;
  loading?: Promise<void>;
}

export interface LoadBatcherOptions {
  loader: BatchLoader;
  maxEvents: number;
  /** Longest a part waits for company. */
  intervalMs: number;
  /**
   * kafkajs hands the partitions of one fetch over within a few milliseconds of each other;
   * once none has arrived for this long, the fetch is all here and waiting longer gains nothing.
   */
  quietMs?: number;
  logger: Logger;
  onLoaded(kind: EventKind, events: number, parts: number): void;
  onFailure(error: unknown): void;
  onRecovered(): void;
}

const MIN_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 30_000;

/**
 * Names the exact offsets a load holds, e.g. `kafka:aor.costs:0:10-19,3:7-7`. A redelivery of the
 * same ranges carries the same token; a regrouped redelivery is caught by the per-event-id check.
 */
export function dedupToken(parts: readonly BatchPart[]): string {
  const topic = parts[0]!.topic;
  const ranges = [...parts]
    .sort((a, b) => a.partition - b.partition || Number(BigInt(a.firstOffset) - BigInt(b.firstOffset)))
    .map((p) => `${p.partition}:${p.firstOffset}-${p.lastOffset}`);
  return `kafka:${topic}:${ranges.join(',')}`;
}

export class LoadBatcher {
  private readonly kinds = new Map<EventKind, KindState>();
  private stopping = false;
  private readonly wakers = new Set<() => void>();

  constructor(private readonly options: LoadBatcherOptions) {}

  /** Resolves true once the part is in the store, false when the loader stopped first. */
  load(kind: EventKind, part: BatchPart): Promise<boolean> {
    if (this.stopping) return Promise.resolve(false);
    const state = this.state(kind);
    return new Promise<boolean>((resolve) => {
      state.pending.push({ part, resolve });
      state.events += part.records.length;
      if (state.events >= this.options.maxEvents) return this.flush(kind);
      state.timer ??= setTimeout(() => this.flush(kind), this.options.intervalMs);
      clearTimeout(state.quiet);
      state.quiet = setTimeout(() => this.flush(kind), this.options.quietMs ?? 20);
    });
  }

  /** Loads what is parked now (one last try each), then answers false to everything after. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const wake of this.wakers) wake();
    for (const kind of this.kinds.keys()) this.flush(kind);
    await Promise.all([...this.kinds.values()].map((s) => s.loading));
    for (const state of this.kinds.values()) {
      for (const pending of state.pending.splice(0)) pending.resolve(false);
    }
  }

  private state(kind: EventKind): KindState {
    let state = this.kinds.get(kind);
    if (!state) this.kinds.set(kind, (state = { pending: [], events: 0 }));
    return state;
  }

  private flush(kind: EventKind): void {
    const state = this.state(kind);
    clearTimeout(state.timer);
    clearTimeout(state.quiet);
    state.timer = undefined;
    state.quiet = undefined;
    if (state.loading || state.pending.length === 0) return;
    const batch: Pending[] = [];
    let events = 0;
    while (state.pending.length > 0 && (events === 0 || events + state.pending[0]!.part.records.length <= this.options.maxEvents)) {
      const next = state.pending.shift()!;
      batch.push(next);
      events += next.part.records.length;
    }
    state.events -= events;
    state.loading = this.run(kind, batch, events).finally(() => {
      state.loading = undefined;
      // kafkajs fetches again only when every part of this fetch is answered: what queued
      // during the insert is the rest of this fetch, and nothing more is coming for it.
      if (state.pending.length > 0) this.flush(kind);
    });
  }

  private async run(kind: EventKind, batch: Pending[], events: number): Promise<void> {
    const parts = batch.map((p) => p.part);
    const records = parts.length === 1 ? parts[0]!.records : parts.flatMap((p) => p.records);
    const token = dedupToken(parts);
    let backoff = MIN_BACKOFF_MS;
    let failed = false;
    for (;;) {
      try {
        await this.options.loader(kind, records, token);
        if (failed) this.options.onRecovered();
        this.options.onLoaded(kind, events, parts.length);
        for (const pending of batch) pending.resolve(true);
        return;
      } catch (error) {
        failed = true;
        this.options.onFailure(error);
        this.options.logger.warn('loading a Kafka batch failed; retrying', { kind, events, token, retry_in_ms: backoff, error });
        if (this.stopping) break;
        await new Promise<void>((resolve) => {
          const wake = () => {
            clearTimeout(timer);
            this.wakers.delete(wake);
            resolve();
          };
          const timer = setTimeout(wake, backoff);
          this.wakers.add(wake);
        });
        if (this.stopping) break;
        backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
      }
    }
    for (const pending of batch) pending.resolve(false);
  }
}
