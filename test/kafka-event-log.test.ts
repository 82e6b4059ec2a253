// The Kafka event log (ingest side) and the Kafka loader (workers side) on the run's real broker,
// in this process, with a real chDB store: topics made at start, acks before answers, batching,
// keys; loading with dead letters, redelivery counted once, offsets committed only after the
// insert.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Admin, Kafka, KafkaMessage } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createAnalyticsStore, type AnalyticsStore } from '../lib/analytics/store.ts';
import { AppError } from '../lib/errors.ts';
import { analyticsLoader } from '../lib/event-log/analytics-loader.ts';
import { createKafka, kafkaTopics, type KafkaSettings } from '../lib/event-log/kafka-client.ts';
import { decodeEvent } from '../lib/event-log/kafka-codec.ts';
import { KafkaEventLog } from '../lib/event-log/kafka-log.ts';
import type { BatchLoader } from '../lib/event-log/types.ts';
import { createLogger } from '../lib/log.ts';
import { DEAD_LETTER_HEADERS } from '../schemas/event-envelope.ts';
import type { CostEventRecord, SignalRecord } from '../schemas/analytics-rows.ts';
import { KafkaLoader } from '../workers/kafka-loader.ts';
import { freshTopicPrefix } from './helpers/processes.ts';

const logger = createLogger('error');
const AGENTS = ['aaaaaaaa-0000-4000-8000-000000000001', 'bbbbbbbb-0000-4000-8000-000000000002', 'cccccccc-0000-4000-8000-000000000003'];
const now = () => new Date().toISOString();

function signal(agent: string): SignalRecord {
  return {
    signal_id: randomUUID(),
    agent_id: agent,
    agent_external_id: `ext-${agent.slice(0, 4)}`,
    job_id: `job-${randomUUID().slice(0, 8)}`,
    overall_passed: true,
    latency_ms: 120,
    model: 'gpt-4o',
    token_input: 10,
    token_output: 20,
    received_at: now(),
    checks: [{ check_id: 'accuracy', severity: 'HIGH', passed: true, expected: '1', actual: '1', delta: '0' }],
  };
}

function cost(agent: string | null, usd: number): CostEventRecord {
  return {
    event_id: randomUUID(),
    agent_id: agent,
    agent_external_id: agent ? `ext-${agent.slice(0, 4)}` : 'ghost',
    department: '',
    job_id: 'job-1',
    model: 'gpt-4o',
    provider: 'openai',
    input_tokens: 100,
    output_tokens: 50,
    cached_input_tokens: 0,
    cost_usd: usd,
    usd_rate: 1,
    cost_display: usd,
    display_currency: 'USD',
    priced: true,
    input_usd_per_mtok: 2.5,
    output_usd_per_mtok: 10,
    cached_input_usd_per_mtok: 1.25,
    source: 'cost_event',
    occurred_at: now(),
    received_at: now(),
  };
}

async function waitFor<T>(what: string, probe: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T = await probe();
  while (!done(last)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 200));
    last = await probe();
  }
  return last;
}

async function readAll(kafka: Kafka, topic: string, expected: number): Promise<Array<{ partition: number; message: KafkaMessage }>> {
  const consumer = kafka.consumer({ groupId: `reader-${randomUUID()}`, maxWaitTimeInMs: 200 });
  const got: Array<{ partition: number; message: KafkaMessage }> = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({ eachMessage: async ({ partition, message }) => void got.push({ partition, message }) });
    await waitFor(`${expected} messages on ${topic}`, async () => got.length, (n) => n >= expected);
    return got;
  } finally {
    await consumer.disconnect();
  }
}

describe('Kafka event log and loader on a real broker', () => {
  const brokers = inject('kafkaBrokers');
  let kafka: Kafka;
  let admin: Admin;
  let store: AnalyticsStore;
  let dataDir: string;

  beforeAll(async () => {
    kafka = createKafka({ brokers }, 'kafka-event-log-test', logger);
    admin = kafka.admin();
    await admin.connect();
    dataDir = mkdtempSync(path.join(tmpdir(), 'aor-kafka-log-'));
    store = createAnalyticsStore({ dataDir, logger });
    await store.start();
  });

  afterAll(async () => {
    await admin?.disconnect();
    await store?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const settingsFor = (prefix: string): KafkaSettings => ({ brokers, topicPrefix: prefix, partitions: 3, replicationFactor: 1 });
  const newLog = (settings: KafkaSettings) =>
    new KafkaEventLog({ kafka, settings, logger, batchMaxEvents: 10_000, batchIntervalMs: 5, queueMaxEvents: 100_000 });

  it('creates its topics at start, answers after the broker acknowledged, batches concurrent requests and keys by agent', async () => {
    const settings = settingsFor(freshTopicPrefix('log'));
    const topics = kafkaTopics(settings.topicPrefix);
    const log = newLog(settings);
    await log.start();
    try {
      const metadata = await admin.fetchTopicMetadata({ topics: [...topics.events, topics.deadLetter] });
      expect(metadata.topics.map((t) => [t.name, t.partitions.length]).sort()).toEqual([...topics.events, topics.deadLetter].map((t) => [t, 3]).sort());

      const signals = Array.from({ length: 120 }, (_, i) => signal(AGENTS[i % 3]!));
      const costs = Array.from({ length: 30 }, (_, i) => cost(i % 5 === 0 ? null : AGENTS[i % 3]!, 0.01));
      // One request per event, all at once: the log must not turn them into 150 Kafka requests.
      await Promise.all([...signals.map((s) => log.append('signals', [s])), ...costs.map((c) => log.append('costs', [c]))]);
      const health = await log.health();
      expect(health.up).toBe(true);
      expect(health.details.acked_events).toBe(150);
      expect(health.details.sends).toBeGreaterThan(0);
      expect(health.details.sends).toBeLessThanOrEqual(15);

      // Acknowledged means readable: every event is in its kind's topic, once, decodable.
      const readSignals = await readAll(kafka, topics.byKind.signals, 120);
      const readCosts = await readAll(kafka, topics.byKind.costs, 30);
      expect(readSignals.map((m) => (decodeEvent('signals', m.message.value) as { record: SignalRecord }).record.signal_id).sort()).toEqual(
        signals.map((s) => s.signal_id).sort(),
      );
      expect(readCosts.map((m) => (decodeEvent('costs', m.message.value) as { record: CostEventRecord }).record.event_id).sort()).toEqual(
        costs.map((c) => c.event_id).sort(),
      );
      // Keyed by agent: one agent's events share one partition (order per agent is kept).
      for (const agent of AGENTS) {
        const mine = readSignals.filter((m) => m.message.key?.toString() === agent);
        expect(mine).toHaveLength(40);
        expect(new Set(mine.map((m) => m.partition)).size).toBe(1);
      }
      expect(readCosts.filter((m) => m.message.key?.toString() === 'ghost')).toHaveLength(6);

      // A second process starting against existing topics is fine.
      const again = newLog(settings);
      await again.start();
      await again.append('costs', [cost(null, 0.02)]);
      await again.stop();
    } finally {
      await log.stop();
    }
  }, 60_000);

  it('loads valid messages, dead-letters invalid ones with the reason and goes on, and counts a redelivery once', async () => {
    const settings = settingsFor(freshTopicPrefix('load'));
    const topics = kafkaTopics(settings.topicPrefix);
    const log = newLog(settings);
    await log.start();
    const producer = kafka.producer();
    await producer.connect();
    const signals = Array.from({ length: 50 }, (_, i) => signal(AGENTS[i % 3]!));
    const costs = Array.from({ length: 70 }, (_, i) => cost(AGENTS[i % 3]!, 0.001 * (i + 1)));
    const expectedUsd = costs.reduce((sum, c) => sum + c.cost_usd, 0);
    try {
      await log.append('signals', signals);
      await log.append('costs', costs.slice(0, 50));
      const badRecord = { v: 1, kind: 'costs', produced_at: now(), record: { ...cost(AGENTS[0]!, 1), input_tokens: -5 } };
      await producer.send({
        topic: topics.byKind.costs,
        acks: -1,
        messages: [
          { key: AGENTS[0]!, value: 'this is not json' },
          { key: AGENTS[0]!, value: JSON.stringify({ v: 99, kind: 'costs', produced_at: now(), record: {} }) },
          { key: AGENTS[0]!, value: JSON.stringify(badRecord) },
        ],
      });
      await log.append('costs', costs.slice(50));
    } finally {
      await log.stop();
      await producer.disconnect();
    }

    const counts = async () => {
      const [row] = await store.query<{ signals: number; costs: number; usd: number }>(
        `SELECT (SELECT count() FROM raw_signals WHERE signal_id IN {s:Array(UUID)}) AS signals,
                (SELECT count() FROM raw_cost_events WHERE event_id IN {c:Array(UUID)}) AS costs,
                (SELECT toFloat64(sum(cost_usd)) FROM spend_per_day WHERE agent_id IN {a:Array(UUID)} AND model = 'gpt-4o' AND day = today()) AS usd`,
        { s: signals.map((s) => s.signal_id), c: costs.map((c) => c.event_id), a: AGENTS },
      );
      return { signals: Number(row!.signals), costs: Number(row!.costs), usd: Math.round(row!.usd * 1e6) / 1e6 };
    };
    const expected = { signals: 50, costs: 70, usd: Math.round(expectedUsd * 1e6) / 1e6 };
    const settled = async (loader: KafkaLoader) => {
      await waitFor('all events loaded', counts, (c) => c.signals === 50 && c.costs === 70);
      await waitFor('lag 0', async () => (await loader.refreshLag(), (await loader.health()).details.lag), (lag) => lag === 0);
    };

    const first = new KafkaLoader({ kafka, settings, loader: analyticsLoader(store), logger, batchMaxEvents: 10_000, batchIntervalMs: 50, lagIntervalMs: 500 });
    await first.start();
    try {
      await settled(first);
      expect(await counts()).toEqual(expected);
      expect((await first.health()).details.dead_lettered).toBe(3);
    } finally {
      await first.stop();
    }

    const dead = await readAll(kafka, topics.deadLetter, 3);
    const header = (m: KafkaMessage, name: string) => m.headers?.[name]?.toString();
    expect(dead.map((d) => header(d.message, DEAD_LETTER_HEADERS.reason))).toEqual([
      expect.stringMatching(/^not JSON/),
      expect.stringMatching(/^unsupported envelope version 99/),
      expect.stringMatching(/^invalid costs record: \/input_tokens/),
    ]);
    // The three were produced back to back to one partition: consecutive original offsets.
    const offsets = dead.map((d) => Number(header(d.message, DEAD_LETTER_HEADERS.offset)));
    expect(offsets).toEqual([offsets[0], offsets[0]! + 1, offsets[0]! + 2]);
    expect(new Set(dead.map((d) => header(d.message, DEAD_LETTER_HEADERS.partition))).size).toBe(1);
    expect(dead.every((d) => header(d.message, DEAD_LETTER_HEADERS.topic) === topics.byKind.costs)).toBe(true);
    expect(dead[0]!.message.value?.toString()).toBe('this is not json');

    // Redelivery: a group with no offsets reads everything again from the start, the same
    // offset ranges a crashed loader's successor would get; nothing may count twice.
    const second = new KafkaLoader({ kafka, settings, loader: analyticsLoader(store), logger, groupId: `${first.groupId}-replay`, batchMaxEvents: 10_000, batchIntervalMs: 50, lagIntervalMs: 500 });
    await second.start();
    try {
      await waitFor('redelivery consumed', async () => (await second.health()).details.dead_lettered, (n) => n === 3);
      await settled(second);
      expect(await counts()).toEqual(expected);
    } finally {
      await second.stop();
    }
  }, 90_000);

  it('commits no offset while the store refuses the batch, retries it, and loads it once', async () => {
    const settings = settingsFor(freshTopicPrefix('retry'));
    const topics = kafkaTopics(settings.topicPrefix);
    const log = newLog(settings);
    await log.start();
    const costs = Array.from({ length: 10 }, () => cost(AGENTS[1]!, 0.5));
    await log.append('costs', costs);
    await log.stop();

    let refusals = 0;
    let storeUp = false;
    const real = analyticsLoader(store);
    // The store is real; only its availability is scripted, as an outage would be.
    const flaky: BatchLoader = async (kind, events, token) => {
      if (!storeUp) {
        refusals++;
        throw new AppError({ code: 'store_unavailable', status: 503, detail: 'down for the test' });
      }
      return real(kind, events, token);
    };
    const loader = new KafkaLoader({ kafka, settings, loader: flaky, logger, batchMaxEvents: 10_000, batchIntervalMs: 20, lagIntervalMs: 300 });
    await loader.start();
    try {
      await waitFor('two refused loads', async () => refusals, (n) => n >= 2);
      const committed = await admin.fetchOffsets({ groupId: loader.groupId, topics: [topics.byKind.costs] });
      expect(committed[0]!.partitions.every((p) => p.offset === '-1')).toBe(true);
      const failing = await loader.health();
      expect(failing.details.load_failing_since).toEqual(expect.any(String));
      await loader.refreshLag();
      expect((await loader.health()).details.lag).toBe(10);

      storeUp = true;
      await waitFor('lag 0 after the store is back', async () => (await loader.refreshLag(), (await loader.health()).details.lag), (lag) => lag === 0, 40_000);
      const [row] = await store.query<{ n: number }>('SELECT count() AS n FROM raw_cost_events WHERE event_id IN {ids:Array(UUID)}', { ids: costs.map((c) => c.event_id) });
      expect(Number(row!.n)).toBe(10);
      expect((await loader.health()).details.load_failing_since).toBeUndefined();
    } finally {
      await loader.stop();
    }
  }, 60_000);
});
