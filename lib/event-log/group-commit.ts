// The embedded event log: group commit straight into the analytics store. Requests queue their
// events per kind; a batch closes at `batchMaxEvents` or `batchIntervalMs` after its first event,
// one batch per kind is written at a time, and every request is answered when the batch holding
// its events is committed. The queue is bounded: when full, append fails at once with 503 and
// Retry-After rather than holding memory a crash would lose.
import { randomUUID } from 'node:crypto';
import { AppError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { BatchLoader, EventKind, EventLog } from './types.ts';

export interface GroupCommitOptions {
  loader: BatchLoader;
  batchMaxEvents: number;
  batchIntervalMs: number;
  queueMaxEvents: number;
  logger: Logger;
}

interface Waiter {
  events: readonly object[];
  /** performance.now() when it was queued: a batch waits at most batchIntervalMs for its oldest event. */
  queuedAt: number;
  resolve(): void;
  reject(error: unknown): void;
}

interface KindQueue {
  waiters: Waiter[];
  events: number;
  timer?: NodeJS.Timeout;
  flushing?: Promise<void>;
}

export class GroupCommitLog implements EventLog {
  private readonly queues = new Map<EventKind, KindQueue>();
  private queuedEvents = 0;
  private stopping = false;
  private committedBatches = 0;
  private failedBatches = 0;

  constructor(private readonly options: GroupCommitOptions) {}

  async start(): Promise<void> {}

  append(kind: EventKind, events: readonly object[]): Promise<void> {
    if (events.length === 0) return Promise.resolve();
    if (this.stopping) return Promise.reject(new AppError({ code: 'shutting_down', status: 503, detail: 'The server is shutting down.', retryAfterSeconds: 2 }));
    if (this.queuedEvents + events.length > this.options.queueMaxEvents) {
      return Promise.reject(
        new AppError({ code: 'ingest_queue_full', status: 503, detail: 'The ingest queue is full; retry shortly.', retryAfterSeconds: 1 }),
      );
    }
    const queue = this.queue(kind);
    this.queuedEvents += events.length;
    return new Promise<void>((resolve, reject) => {
      queue.waiters.push({ events, queuedAt: performance.now(), resolve, reject });
      queue.events += events.length;
      if (queue.events >= this.options.batchMaxEvents) this.flush(kind);
      else if (!queue.flushing) this.scheduleFlush(kind, queue);
    });
  }

  async stop(): Promise<void> {
    this.stopping = true;
    for (const [kind, queue] of this.queues) {
      while (queue.waiters.length > 0 || queue.flushing) {
        this.flush(kind);
        await queue.flushing;
      }
    }
  }

  async health() {
    return {
      up: true,
      details: { mode: 'embedded', queued_events: this.queuedEvents, committed_batches: this.committedBatches, failed_batches: this.failedBatches },
    };
  }

  private queue(kind: EventKind): KindQueue {
    let queue = this.queues.get(kind);
    if (!queue) this.queues.set(kind, (queue = { waiters: [], events: 0 }));
    return queue;
  }

  /** Starts writing the next batch of a kind unless one is already being written. */
  private flush(kind: EventKind): void {
    const queue = this.queue(kind);
    if (queue.timer) clearTimeout(queue.timer);
    queue.timer = undefined;
    if (queue.flushing || queue.waiters.length === 0) return;
    const batch: Waiter[] = [];
    let count = 0;
    while (queue.waiters.length > 0 && count < this.options.batchMaxEvents) {
      const waiter = queue.waiters.shift()!;
      batch.push(waiter);
      count += waiter.events.length;
    }
    queue.events -= count;
    queue.flushing = this.write(kind, batch, count).finally(() => {
      queue.flushing = undefined;
      this.queuedEvents -= count;
      if (queue.waiters.length === 0) return;
      if (queue.events >= this.options.batchMaxEvents || this.stopping) this.flush(kind);
      else this.scheduleFlush(kind, queue);
    });
  }

  /**
   * The next batch is written when its oldest event has waited batchIntervalMs: under load that
   * is at once after the previous batch (events queued while it was written), so batches grow
   * with the load instead of adding a fixed pause between writes.
   */
  private scheduleFlush(kind: EventKind, queue: KindQueue): void {
    if (queue.timer) return;
    const oldest = queue.waiters[0]!.queuedAt;
    const wait = Math.max(0, oldest + this.options.batchIntervalMs - performance.now());
    queue.timer = setTimeout(() => this.flush(kind), wait);
  }

  private async write(kind: EventKind, batch: Waiter[], count: number): Promise<void> {
    const events = batch.length === 1 ? batch[0]!.events : batch.flatMap((w) => w.events);
    try {
      await this.options.loader(kind, events, `embedded:${kind}:${randomUUID()}`);
      this.committedBatches++;
      for (const waiter of batch) waiter.resolve();
    } catch (error) {
      this.failedBatches++;
      this.options.logger.warn('batch not committed', { kind, events: count, error });
      const answer =
        error instanceof AppError && error.retryable
          ? error
          : new AppError({ code: 'store_unavailable', status: 503, detail: 'The analytics store did not commit the batch; retry.', retryAfterSeconds: 2, cause: error });
      for (const waiter of batch) waiter.reject(answer);
    }
  }
}
