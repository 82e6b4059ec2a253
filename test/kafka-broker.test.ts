// The dev/CI broker from scripts/kafka.sh is a working Kafka: topics with partitions, an
// idempotent acks=all producer, and consumer groups that read everything back.
import { randomUUID } from 'node:crypto';
import { Kafka, Partitioners, logLevel, type Admin, type Consumer, type Producer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureKafkaBroker, type KafkaBroker } from './helpers/kafka-broker.ts';

const PARTITIONS = 3;

describe('Kafka broker for development and CI', () => {
  let broker: KafkaBroker | undefined;
  let kafka: Kafka;
  const clients: Array<Admin | Producer | Consumer> = [];

  beforeAll(async () => {
    broker = await ensureKafkaBroker();
    kafka = new Kafka({ clientId: 'kafka-broker-test', brokers: broker.brokers, logLevel: logLevel.WARN });
  }, 15 * 60_000);

  afterAll(async () => {
    for (const client of clients.reverse()) await client.disconnect().catch(() => {});
    await broker?.stop();
  }, 2 * 60_000);

  it('round-trips messages through a 3-partition topic with an idempotent producer and a consumer group', async () => {
    const topic = `broker-test-${randomUUID()}`;
    const admin = kafka.admin();
    clients.push(admin);
    await admin.connect();
    const created = await admin.createTopics({
      topics: [{ topic, numPartitions: PARTITIONS, replicationFactor: 1 }],
      waitForLeaders: true,
    });
    expect(created).toBe(true);
    const [meta] = (await admin.fetchTopicMetadata({ topics: [topic] })).topics;
    expect(meta?.partitions.map((p) => p.partitionId).sort()).toEqual([0, 1, 2]);

    const sent = Array.from({ length: 30 }, (_, i) => ({
      partition: i % PARTITIONS,
      key: `k${i}`,
      value: `message-${i}`,
    }));
    const producer = kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      createPartitioner: Partitioners.DefaultPartitioner,
    });
    clients.push(producer);
    await producer.connect();
    const acks = await producer.send({ topic, acks: -1, messages: sent });
    expect(acks.map((a) => a.partition).sort()).toEqual([0, 1, 2]);
    expect(acks.every((a) => a.errorCode === 0)).toBe(true);

    const received: Array<{ partition: number; key: string; value: string }> = [];
    const consumer = kafka.consumer({ groupId: `broker-test-${randomUUID()}` });
    clients.push(consumer);
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    const allReceived = new Promise<void>((resolve) => {
      void consumer.run({
        eachMessage: async ({ partition, message }) => {
          received.push({ partition, key: message.key?.toString() ?? '', value: message.value?.toString() ?? '' });
          if (received.length >= sent.length) resolve();
        },
      });
    });
    await withTimeout(allReceived, 60_000, () => `received ${received.length} of ${sent.length} messages`);

    const byKey = (a: { key: string }, b: { key: string }) => a.key.localeCompare(b.key);
    expect([...received].sort(byKey)).toEqual([...sent].sort(byKey));
    // Kafka orders within a partition only; each partition must replay in send order.
    for (let p = 0; p < PARTITIONS; p++) {
      expect(received.filter((m) => m.partition === p).map((m) => m.value)).toEqual(
        sent.filter((m) => m.partition === p).map((m) => m.value),
      );
    }
  }, 3 * 60_000);
});

async function withTimeout<T>(promise: Promise<T>, ms: number, progress: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${progress()}`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
