// The Kafka loader: a consumer group reading the event topics into the analytics store.
// Per partition batch: decode and validate every message; send the invalid ones to the
// dead-letter topic with the reason (the stream goes on); park the valid ones in the batcher,
// which loads them by size or interval through the same BatchLoader as the embedded mode; commit
// the partition's offsets only after that insert (and the dead letters) succeeded. A crash
// between insert and commit redelivers the batch, and the loader's deduplication (event ids, and
// the offset-range token) keeps it from counting twice.
import type { Admin, Consumer, EachBatchPayload, Kafka, KafkaMessage, Message } from 'kafkajs';
import type { AnalyticsStore } from '../lib/analytics/store.ts';
import type { Config } from '../lib/config.ts';
import { analyticsLoader } from '../lib/event-log/analytics-loader.ts';
import { decodeEvent } from '../lib/event-log/kafka-codec.ts';
import { createKafka, ensureKafkaTopics, IdempotentProducer, kafkaTopics, kindOfTopic, type KafkaSettings, type KafkaTopics } from '../lib/event-log/kafka-client.ts';
import type { BatchLoader } from '../lib/event-log/types.ts';
import type { Logger } from '../lib/log.ts';
import type { MetricSample } from '../lib/metrics.ts';
import { DEAD_LETTER_HEADERS } from '../schemas/event-envelope.ts';
import { LoadBatcher } from './kafka-batcher.ts';
import { LagMonitor } from './kafka-lag.ts';

/** How long a loader batch stays open for more partitions' messages (size closes it sooner). */
export const LOADER_BATCH_INTERVAL_MS = 250;

/** The workers tier's Kafka loader, when this deployment runs with KAFKA_BROKERS. */
export function kafkaLoaders(deps: { config: Config; logger: Logger; analytics: AnalyticsStore }): KafkaLoader[] {
  const { config } = deps;
  if (!config.kafkaBrokers) return [];
  const settings = { brokers: config.kafkaBrokers, topicPrefix: config.kafkaTopicPrefix, partitions: config.kafkaPartitions, replicationFactor: config.kafkaReplicationFactor };
  return [
    new KafkaLoader({
      kafka: createKafka(settings, `aor-workers-${process.pid}`, deps.logger),
      settings,
      loader: analyticsLoader(deps.analytics),
      logger: deps.logger,
      batchMaxEvents: config.ingestBatchMaxEvents,
      batchIntervalMs: LOADER_BATCH_INTERVAL_MS,
    }),
  ];
}

export interface KafkaLoaderOptions {
  kafka: Kafka;
  settings: KafkaSettings;
  loader: BatchLoader;
  logger: Logger;
  /** Default `<prefix>.loaders`: every worker process of one deployment joins it. */
  groupId?: string;
  batchMaxEvents: number;
  batchIntervalMs: number;
  lagIntervalMs?: number;
}

export class KafkaLoader {
  readonly name = 'kafka_loader';
  readonly groupId: string;
  private readonly topics: KafkaTopics;
  private readonly consumer: Consumer;
  private readonly producer: IdempotentProducer;
  private readonly admin: Admin;
  private readonly batcher: LoadBatcher;
  private readonly lag: LagMonitor;
  private readonly logger: Logger;
  private stopping = false;
  private crashed?: string;
  private assigned: Record<string, number[]> = {};
  private failingSince?: Date;
  private lastLoadError?: string;
  private readonly counters = { loaded_events: 0, loaded_batches: 0, dead_lettered: 0, commit_failures: 0 };

  constructor(private readonly options: KafkaLoaderOptions) {
    this.logger = options.logger.child({ component: 'kafka_loader' });
    this.topics = kafkaTopics(options.settings.topicPrefix);
    this.groupId = options.groupId ?? `${options.settings.topicPrefix}.loaders`;
    this.consumer = options.kafka.consumer({
      groupId: this.groupId,
      maxWaitTimeInMs: 1_000,
      // A worker killed with kill -9 holds its partitions until its session expires: 10 s, not
      // kafkajs' 30 s. Heartbeats go on during long loads (see handleBatch), so it is enough.
      sessionTimeout: 10_000,
      heartbeatInterval: 2_000,
      retry: { restartOnFailure: async () => !this.stopping },
    });
    this.producer = new IdempotentProducer(options.kafka);
    this.admin = options.kafka.admin();
    this.lag = new LagMonitor(this.admin, this.groupId, this.topics.events, options.lagIntervalMs ?? 5_000, this.logger);
    this.batcher = new LoadBatcher({
      loader: options.loader,
      maxEvents: options.batchMaxEvents,
      intervalMs: options.batchIntervalMs,
      logger: this.logger,
      onLoaded: (_kind, events) => {
        this.counters.loaded_events += events;
        this.counters.loaded_batches++;
      },
      onFailure: (error) => {
        this.failingSince ??= new Date();
        this.lastLoadError = (error as Error).message;
      },
      onRecovered: () => {
        this.failingSince = undefined;
        this.lastLoadError = undefined;
      },
    });
  }

  async start(): Promise<void> {
    await this.admin.connect();
    await ensureKafkaTopics(this.admin, this.options.settings, this.logger);
    await this.producer.connect();
    const { GROUP_JOIN, CRASH } = this.consumer.events;
    this.consumer.on(GROUP_JOIN, (event) => {
      this.crashed = undefined;
      this.assigned = event.payload.memberAssignment;
      this.logger.info('joined the loader group', { group: this.groupId, assignment: event.payload.memberAssignment });
    });
    this.consumer.on(CRASH, (event) => {
      if (!event.payload.restart) this.crashed = event.payload.error.message;
      this.logger.warn('Kafka consumer crashed', { restart: event.payload.restart, error: event.payload.error });
    });
    await this.consumer.connect();
    await this.consumer.subscribe({ topics: this.topics.events, fromBeginning: true });
    await this.consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      // Every partition's batch of one fetch is in the batcher at once, so they share one insert.
      partitionsConsumedConcurrently: Math.min(this.topics.events.length * this.options.settings.partitions, 64),
      eachBatch: (payload) => this.handleBatch(payload),
    });
    this.lag.start();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.batcher.stop();
    await this.consumer.disconnect().catch((error) => this.logger.warn('Kafka consumer disconnect failed', { error }));
    await this.lag.stop();
    await this.producer.disconnect().catch(() => {});
    await this.admin.disconnect().catch(() => {});
  }

  /** A property, not a method: the workers tier hands it around unbound. */
  readonly health = async () => {
    const lag = this.lag.snapshot();
    return {
      up: this.crashed === undefined,
      details: {
        group: this.groupId,
        lag: lag?.total ?? null,
        lag_by_topic: lag?.byTopic ?? null,
        lag_checked_at: lag?.checkedAt.toISOString() ?? null,
        assigned_partitions: this.assigned,
        ...this.counters,
        ...(this.failingSince ? { load_failing_since: this.failingSince.toISOString(), last_load_error: this.lastLoadError } : {}),
        ...(this.crashed ? { crashed: this.crashed } : {}),
      },
    };
  };

  metrics(): MetricSample[] {
    const samples: MetricSample[] = [];
    const lag = this.lag.snapshot();
    for (const p of lag?.partitions ?? []) {
      samples.push({
        name: 'aor_kafka_consumer_lag',
        help: 'Messages in a partition not yet committed by the loader group.',
        type: 'gauge',
        labels: { group: this.groupId, topic: p.topic, partition: p.partition },
        value: p.lag,
      });
    }
    const counter = (name: string, help: string, value: number): MetricSample => ({ name, help, type: 'counter', labels: { group: this.groupId }, value });
    samples.push(
      counter('aor_kafka_loaded_events_total', 'Events this process loaded into the analytics store.', this.counters.loaded_events),
      counter('aor_kafka_loaded_batches_total', 'Inserts this process made into the analytics store.', this.counters.loaded_batches),
      counter('aor_kafka_dead_lettered_total', 'Messages this process sent to the dead-letter topic.', this.counters.dead_lettered),
      counter('aor_kafka_commit_failures_total', 'Offset commits that failed (the batch is redelivered and deduplicated).', this.counters.commit_failures),
    );
    samples.push({ name: 'aor_kafka_load_failing', help: 'Whether loading into the analytics store is failing and being retried.', type: 'gauge', labels: { group: this.groupId }, value: this.failingSince ? 1 : 0 });
    return samples;
  }

  /** Re-reads the lag now (tests and operators want a fresh figure after a drain). */
  refreshLag(): Promise<void> {
    return this.lag.refresh();
  }

  private async handleBatch({ batch, resolveOffset, heartbeat, commitOffsetsIfNecessary, isRunning, isStale }: EachBatchPayload): Promise<void> {
    const kind = kindOfTopic(this.topics, batch.topic);
    if (!kind || batch.messages.length === 0) return;
    const records: object[] = [];
    const invalid: Array<{ message: KafkaMessage; reason: string }> = [];
    for (const message of batch.messages) {
      const decoded = decodeEvent(kind, message.value);
      if (decoded.ok) records.push(decoded.record);
      else invalid.push({ message, reason: decoded.reason });
    }
    const keepAlive = setInterval(() => void heartbeat().catch(() => {}), 2_000);
    try {
      if (invalid.length > 0 && !(await this.deadLetter(batch.topic, batch.partition, invalid))) return;
      const part = { topic: batch.topic, partition: batch.partition, firstOffset: batch.messages[0]!.offset, lastOffset: batch.lastOffset(), records };
      if (records.length > 0 && !(await this.batcher.load(kind, part))) return;
    } finally {
      clearInterval(keepAlive);
    }
    if (!isRunning() || isStale()) return;
    const next = (BigInt(batch.lastOffset()) + 1n).toString();
    try {
      await commitOffsetsIfNecessary({ topics: [{ topic: batch.topic, partitions: [{ partition: batch.partition, offset: next }] }] });
    } catch (error) {
      // Loaded but not committed: the next owner of the partition redelivers, deduplication holds.
      this.counters.commit_failures++;
      this.logger.warn('committing offsets failed after the load', { topic: batch.topic, partition: batch.partition, offset: next, error });
      throw error;
    }
    resolveOffset(batch.lastOffset());
  }

  /** True once every invalid message is in the dead-letter topic; false when stopping first. */
  private async deadLetter(topic: string, partition: number, invalid: Array<{ message: KafkaMessage; reason: string }>): Promise<boolean> {
    const failedAt = new Date().toISOString();
    const messages: Message[] = invalid.map(({ message, reason }) => ({
      key: message.key,
      value: message.value,
      headers: {
        ...message.headers,
        [DEAD_LETTER_HEADERS.reason]: reason,
        [DEAD_LETTER_HEADERS.topic]: topic,
        [DEAD_LETTER_HEADERS.partition]: String(partition),
        [DEAD_LETTER_HEADERS.offset]: message.offset,
        [DEAD_LETTER_HEADERS.failedAt]: failedAt,
      },
    }));
    // Retried until the broker takes it; only a stop ends the wait. A send that fails outright
    // throws, and kafkajs redelivers the batch to try again.
    const sent = this.producer.sendBatch({ acks: -1, topicMessages: [{ topic: this.topics.deadLetter, messages }] }).then(() => true);
    const stopped = new Promise<boolean>((resolve) => {
      const timer = setInterval(() => {
        if (this.stopping) {
          clearInterval(timer);
          resolve(false);
        }
      }, 200);
      void sent.finally(() => clearInterval(timer)).catch(() => {});
    });
    const ok = await Promise.race([sent, stopped]);
    if (ok) {
      this.counters.dead_lettered += messages.length;
      for (const { message, reason } of invalid) {
        this.logger.warn('message sent to the dead-letter topic', { topic, partition, offset: message.offset, reason });
      }
    }
    return ok;
  }
}
