// What the Kafka producer (ingest) and the consumer (workers) share: the client with our logger,
// the topic names, and the topics themselves, created at start when missing.
import { Kafka, Partitioners, logLevel, type Admin, type LogEntry, type Producer, type ProducerBatch, type RecordMetadata } from 'kafkajs';
import type { Logger } from '../log.ts';
import { EVENT_KINDS, type EventKind } from './types.ts';

export interface KafkaSettings {
  brokers: string[];
  topicPrefix: string;
  partitions: number;
  replicationFactor: number;
}

export interface KafkaTopics {
  byKind: Record<EventKind, string>;
  deadLetter: string;
  /** The event topics, in EVENT_KINDS order. */
  events: string[];
}

export function kafkaTopics(prefix: string): KafkaTopics {
  const byKind = { signals: `${prefix}.signals`, costs: `${prefix}.costs`, spans: `${prefix}.spans` };
  return { byKind, deadLetter: `${prefix}.dead-letter`, events: EVENT_KINDS.map((k) => byKind[k]) };
}

export function kindOfTopic(topics: KafkaTopics, topic: string): EventKind | undefined {
  return EVENT_KINDS.find((k) => topics.byKind[k] === topic);
}

/**
 * kafkajs logs every retry of a lost connection at ERROR. Those are expected during a broker
 * restart and already surface as 503s and health; they go to our log at warn, and its INFO
 * chatter (group joins, rebalances) at debug.
 */
export function createKafka(settings: Pick<KafkaSettings, 'brokers'>, clientId: string, logger: Logger): Kafka {
  const log = logger.child({ component: 'kafkajs' });
  // During an outage every retry repeats the same line; one per message per 10 s says it all.
  const lastWarned = new Map<string, number>();
  const logCreator = () => (entry: LogEntry) => {
    const { message, timestamp: _t, logger: _l, stack: _s, ...extra } = entry.log;
    const fields = { namespace: entry.namespace, ...extra };
    if (entry.level > logLevel.WARN) return log.debug(message, fields);
    const key = `${entry.namespace}:${message}`;
    const now = Date.now();
    if (now - (lastWarned.get(key) ?? 0) < 10_000) return log.debug(message, fields);
    if (lastWarned.size > 1_000) lastWarned.clear();
    lastWarned.set(key, now);
    log.warn(message, fields);
  };
  return new Kafka({
    clientId,
    brokers: settings.brokers,
    logLevel: logLevel.INFO,
    logCreator,
    connectionTimeout: 3_000,
    // A stalled broker must turn into a retry (and a 503 upstream) well before the default 30 s.
    requestTimeout: 10_000,
    // Reconnects back off to 2 s at most (not 30 s), so a broker that is back is used within
    // seconds; eight tries (about 10 s) before a start or a send gives up.
    retry: { initialRetryTime: 100, maxRetryTime: 2_000, retries: 8 },
  });
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Creates the event topics and the dead-letter topic when missing. Several processes may start
 * at once: "already exists" is success. An existing topic is left as it is (changing the
 * partition count of a keyed topic would move agents between partitions); a mismatch is logged.
 */
export async function ensureKafkaTopics(admin: Admin, settings: KafkaSettings, logger: Logger): Promise<void> {
  const topics = kafkaTopics(settings.topicPrefix);
  // With 3+ replicas, acks=all means "on at least 2 brokers"; with fewer there is nothing to ask.
  const minInsync = settings.replicationFactor >= 3 ? 2 : 1;
  const common = [{ name: 'min.insync.replicas', value: String(minInsync) }];
  const wanted = [
    ...topics.events.map((topic) => ({ topic, configEntries: common })),
    // Dead letters wait for a person: kept longer than events, which a loader reads in seconds.
    { topic: topics.deadLetter, configEntries: [...common, { name: 'retention.ms', value: String(30 * DAY_MS) }] },
  ];
  const existing = new Set(await admin.listTopics());
  const missing = wanted.filter((t) => !existing.has(t.topic));
  if (missing.length > 0) {
    await admin.createTopics({
      waitForLeaders: true,
      topics: missing.map((t) => ({ ...t, numPartitions: settings.partitions, replicationFactor: settings.replicationFactor })),
    });
    logger.info('Kafka topics created', { topics: missing.map((t) => t.topic), partitions: settings.partitions, replication_factor: settings.replicationFactor });
  }
  const present = wanted.filter((t) => existing.has(t.topic)).map((t) => t.topic);
  if (present.length === 0) return;
  const metadata = await admin.fetchTopicMetadata({ topics: present });
  for (const topic of metadata.topics) {
    if (topic.partitions.length !== settings.partitions) {
      logger.warn('Kafka topic has another partition count than KAFKA_PARTITIONS; left as it is', {
        topic: topic.name,
        partitions: topic.partitions.length,
        configured: settings.partitions,
      });
    }
  }
}

/**
 * An idempotent producer (acks from all in-sync replicas are the caller's to ask) that is
 * replaced after a failed send. kafkajs rolls its sequence numbers back when a send fails; if the
 * broker had written the batch and only its answer was lost, the next batch carrying the same
 * numbers would be taken for that duplicate and acknowledged without being written. A new
 * producer gets a new producer id, whose numbers start afresh, so that can never happen.
 */
export class IdempotentProducer {
  private producer: Producer;
  private connected = false;

  constructor(private readonly kafka: Kafka) {
    this.producer = this.make();
  }

  async connect(): Promise<void> {
    await this.producer.connect();
    this.connected = true;
  }

  async sendBatch(batch: ProducerBatch): Promise<RecordMetadata[]> {
    const producer = this.producer;
    try {
      if (!this.connected) await this.connect();
      return await producer.sendBatch(batch);
    } catch (error) {
      if (this.producer === producer) {
        this.producer = this.make();
        this.connected = false;
        void producer.disconnect().catch(() => {});
      }
      throw error;
    }
  }

  async disconnect(): Promise<void> {
    await this.producer.disconnect();
  }

  private make(): Producer {
    return this.kafka.producer({
      idempotent: true,
      // kafkajs requires one request in flight per broker for idempotence (ordering of sequences).
      maxInFlightRequests: 1,
      createPartitioner: Partitioners.DefaultPartitioner,
      // Retriable errors are retried with short pauses, so a broker that is back is noticed within
      // a second or two; a broker that stays away fails the send once kafkajs stops reconnecting.
      retry: { retries: Number.MAX_SAFE_INTEGER, initialRetryTime: 100, maxRetryTime: 1_000 },
    });
  }
}
