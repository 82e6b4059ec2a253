// The Kafka event log of the ingest tier: group commit toward Kafka. Requests queue their
// encoded events; one `sendBatch` (acks from all in-sync replicas, idempotent producer) carries
// everything queued when it starts, so under load many requests share one Kafka request. A
// request is answered when the send holding its events is acknowledged, or with 503 and
// Retry-After when that takes longer than `sendTimeoutMs`.
//
// A send cannot be called back: one that outlives the timeout is left running (its events may
// still land; clients retry with the same event_id and are counted once) and, while it hangs,
// new requests are refused at once instead of queueing behind it. A send that fails replaces the
// producer (see IdempotentProducer), so nothing written by it can make a later send look done.
import type { Kafka, Message } from 'kafkajs';
import { AppError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { MetricSample } from '../metrics.ts';
import { encodeEvent } from './kafka-codec.ts';
import { ensureKafkaTopics, IdempotentProducer, kafkaTopics, type KafkaSettings, type KafkaTopics } from './kafka-client.ts';
import type { EventKind, EventLog } from './types.ts';

export interface KafkaEventLogOptions {
  kafka: Kafka;
  settings: KafkaSettings;
  logger: Logger;
  batchMaxEvents: number;
  /** How long the first queued event waits for company before a send starts. */
  batchIntervalMs: number;
  queueMaxEvents: number;
  /** Longest wait for the broker's acknowledgement before answering 503. */
  sendTimeoutMs?: number;
  now?: () => Date;
}

interface Waiter {
  kind: EventKind;
  messages: Message[];
  /** Messages handed to a send so far; a large request is split over several sends. */
  taken: number;
  acked: number;
  settled: boolean;
  timer: NodeJS.Timeout;
  resolve(): void;
  reject(error: unknown): void;
}

interface Slice {
  waiter: Waiter;
  messages: Message[];
}

// Brokers refuse a record batch over message.max.bytes (1 MiB by default) per partition; keeping
// a whole send under it keeps every partition's share under it whatever the keys.
const MAX_SEND_BYTES = 900 * 1024;
const RETRY_AFTER_SECONDS = 2;
const FAILURE_HOLD_MS = 10_000;
const unavailable = (detail: string, cause?: unknown) =>
  new AppError({ code: 'event_log_unavailable', status: 503, detail, retryAfterSeconds: RETRY_AFTER_SECONDS, cause });

export class KafkaEventLog implements EventLog {
  private readonly topics: KafkaTopics;
  private readonly producer: IdempotentProducer;
  private readonly sendTimeoutMs: number;
  private queue: Waiter[] = [];
  private queuedEvents = 0;
  private inFlight?: { startedAt: number; events: number; done: Promise<void> };
  private timer?: NodeJS.Timeout;
  private stopping = false;
  private readonly counters = { acked_events: 0, sends: 0, failed_sends: 0, timed_out_requests: 0, refused_requests: 0 };
  private lastError?: { message: string; at: number };

  constructor(private readonly options: KafkaEventLogOptions) {
    this.topics = kafkaTopics(options.settings.topicPrefix);
    this.sendTimeoutMs = options.sendTimeoutMs ?? 5_000;
    this.producer = new IdempotentProducer(options.kafka);
  }

  async start(): Promise<void> {
    const admin = this.options.kafka.admin();
    await admin.connect();
    try {
      await ensureKafkaTopics(admin, this.options.settings, this.options.logger);
    } finally {
      await admin.disconnect();
    }
    await this.producer.connect();
  }

  append(kind: EventKind, events: readonly object[]): Promise<void> {
    if (events.length === 0) return Promise.resolve();
    if (this.stopping) {
      return Promise.reject(new AppError({ code: 'shutting_down', status: 503, detail: 'The server is shutting down.', retryAfterSeconds: 2 }));
    }
    if (this.stalled()) {
      this.counters.refused_requests++;
      return Promise.reject(unavailable('The event log (Kafka) is not acknowledging writes; retry shortly.'));
    }
    if (this.queuedEvents + (this.inFlight?.events ?? 0) + events.length > this.options.queueMaxEvents) {
      this.counters.refused_requests++;
      return Promise.reject(new AppError({ code: 'ingest_queue_full', status: 503, detail: 'The ingest queue is full; retry shortly.', retryAfterSeconds: 1 }));
    }
    const producedAt = (this.options.now?.() ?? new Date()).toISOString();
    const messages = events.map((event) => encodeEvent(kind, event, producedAt));
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { kind, messages, taken: 0, acked: 0, settled: false, resolve, reject, timer: undefined as unknown as NodeJS.Timeout };
      waiter.timer = setTimeout(() => this.timeOut(waiter), this.sendTimeoutMs);
      this.queue.push(waiter);
      this.queuedEvents += messages.length;
      if (this.queuedEvents >= this.options.batchMaxEvents) this.flush();
      else this.timer ??= setTimeout(() => this.flush(), this.options.batchIntervalMs);
    });
  }

  async stop(): Promise<void> {
    this.stopping = true;
    // Whatever is queued gets its send; a broker that does not answer cannot hold the shutdown
    // longer than the requests' own timeout (their clients have had their 503 by then).
    const deadline = Date.now() + this.sendTimeoutMs;
    while ((this.queue.length > 0 || this.inFlight) && Date.now() < deadline) {
      this.flush();
      await Promise.race([this.inFlight?.done, sleep(50)]);
    }
    clearTimeout(this.timer);
    await this.producer.disconnect().catch((error) => this.options.logger.warn('Kafka producer disconnect failed', { error }));
  }

  async health() {
    // A failed send marks the log down for a while, not until the next success: a load balancer
    // that stops sending traffic to a down process must not keep it down for good.
    const recentFailure = this.lastError !== undefined && Date.now() - this.lastError.at < FAILURE_HOLD_MS;
    const up = !this.stalled() && !recentFailure;
    return {
      up,
      details: {
        mode: 'kafka',
        topics: this.topics.byKind,
        queued_events: this.queuedEvents,
        in_flight_events: this.inFlight?.events ?? 0,
        ...this.counters,
        ...(this.lastError ? { last_error: this.lastError.message, last_error_at: new Date(this.lastError.at).toISOString() } : {}),
      },
    };
  }

  metrics(): MetricSample[] {
    const gauge = (name: string, help: string, value: number): MetricSample => ({ name, help, type: 'gauge', value });
    const counter = (name: string, help: string, value: number): MetricSample => ({ name, help, type: 'counter', value });
    return [
      gauge('aor_event_log_queued_events', 'Events accepted by ingest and waiting for their Kafka send.', this.queuedEvents),
      gauge('aor_event_log_in_flight_events', 'Events in the Kafka send under way.', this.inFlight?.events ?? 0),
      counter('aor_event_log_acked_events_total', 'Events acknowledged by Kafka (acks=all).', this.counters.acked_events),
      counter('aor_event_log_sends_total', 'Kafka sendBatch requests completed.', this.counters.sends),
      counter('aor_event_log_failed_sends_total', 'Kafka sendBatch requests that failed.', this.counters.failed_sends),
      counter('aor_event_log_timed_out_requests_total', 'Requests answered 503 because Kafka did not acknowledge in time.', this.counters.timed_out_requests),
      counter('aor_event_log_refused_requests_total', 'Requests refused at once (queue full or Kafka stalled).', this.counters.refused_requests),
    ];
  }

  /** A send has been waiting for its acknowledgement longer than a request may wait. */
  private stalled(): boolean {
    return this.inFlight !== undefined && Date.now() - this.inFlight.startedAt > this.sendTimeoutMs;
  }

  private timeOut(waiter: Waiter): void {
    if (waiter.settled) return;
    this.counters.timed_out_requests++;
    this.fail(waiter, unavailable('Kafka did not acknowledge the events in time; retry with the same event ids.'));
  }

  /**
   * Answers a request with an error and drops its messages not yet handed to Kafka, so nothing
   * is written after its client heard 503 except what a send under way still carries.
   */
  private fail(waiter: Waiter, error: unknown): void {
    if (waiter.settled) return;
    waiter.settled = true;
    clearTimeout(waiter.timer);
    const index = this.queue.indexOf(waiter);
    if (index !== -1) {
      this.queue.splice(index, 1);
      this.queuedEvents -= waiter.messages.length - waiter.taken;
    }
    waiter.reject(error);
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.inFlight || this.queue.length === 0) return;
    const slices: Slice[] = [];
    let events = 0;
    let bytes = 0;
    fill: while (this.queue.length > 0) {
      const waiter = this.queue[0]!;
      const from = waiter.taken;
      while (waiter.taken < waiter.messages.length) {
        const message = waiter.messages[waiter.taken]!;
        const size = (message.value as Buffer).length + String(message.key).length;
        if (events > 0 && (events >= this.options.batchMaxEvents || bytes + size > MAX_SEND_BYTES)) {
          if (waiter.taken > from) slices.push({ waiter, messages: waiter.messages.slice(from, waiter.taken) });
          break fill;
        }
        waiter.taken++;
        events++;
        bytes += size;
      }
      slices.push({ waiter, messages: from === 0 ? waiter.messages : waiter.messages.slice(from) });
      this.queue.shift();
    }
    this.queuedEvents -= events;
    const startedAt = Date.now();
    const done = this.send(slices, events).finally(() => {
      this.inFlight = undefined;
      // What queued during this send has waited a send's time already: it goes now, so under
      // load the broker's round trip, not the interval, sets the pace.
      if (this.queue.length > 0) this.flush();
    });
    this.inFlight = { startedAt, events, done };
  }

  private async send(slices: Slice[], events: number): Promise<void> {
    const byTopic = new Map<string, Message[]>();
    for (const slice of slices) {
      const topic = this.topics.byKind[slice.waiter.kind];
      const list = byTopic.get(topic);
      if (list) list.push(...slice.messages);
      else byTopic.set(topic, [...slice.messages]);
    }
    try {
      await this.producer.sendBatch({ acks: -1, topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })) });
      this.counters.sends++;
      this.counters.acked_events += events;
      this.lastError = undefined;
      for (const { waiter, messages } of slices) {
        waiter.acked += messages.length;
        if (waiter.settled || waiter.acked < waiter.messages.length) continue;
        waiter.settled = true;
        clearTimeout(waiter.timer);
        waiter.resolve();
      }
    } catch (error) {
      this.counters.failed_sends++;
      this.lastError = { message: (error as Error).message, at: Date.now() };
      this.options.logger.warn('Kafka send failed', { events, error });
      const tooLarge = (error as { type?: string }).type === 'MESSAGE_TOO_LARGE' && slices.length === 1;
      const answer = tooLarge
        ? new AppError({ code: 'event_too_large', status: 413, detail: 'An event is larger than the event log takes in one message.' })
        : unavailable('The event log (Kafka) did not take the events; retry with the same event ids.', error);
      for (const { waiter } of slices) this.fail(waiter, answer);
    }
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
