// The ClickHouse-server deployment shape: any number of processes per tier. Two `--role workers`
// processes in one consumer group share the partitions, and when one dies (kill -9) the other
// takes its partitions over without losing or doubling an acknowledged event. Needs a ClickHouse
// server (CLICKHOUSE_URL); skipped without one, since chDB belongs to a single process.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDatabase, type Database } from '../lib/postgres/database.ts';
import { createTestDatabase } from './helpers/database.ts';
import { freshTopicPrefix, killAllSpawned, spawnService, type ServiceProcess } from './helpers/processes.ts';
import { call } from './helpers/service.ts';
import { tokenFor } from './helpers/tokens.ts';

const clickhouseUrl = process.env.CLICKHOUSE_URL;
const PARTITIONS = 4;
const AGENT = 'shared-workers-agent';

async function waitUntil(what: string, probe: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

type Assignment = Record<string, number[]>;
const assignmentOf = async (worker: ServiceProcess): Promise<Assignment> =>
  (await call(worker.baseUrl, 'GET', '/health')).body?.stores?.kafka_loader?.assigned_partitions ?? {};

describe.skipIf(!clickhouseUrl)('Kafka with a ClickHouse server: two worker processes in one consumer group', () => {
  const brokers = inject('kafkaBrokers');
  let db: Database;
  let ingest: ServiceProcess;
  let api: ServiceProcess;
  let workers: ServiceProcess[] = [];
  let prefix: string;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'aor-kafka-ch-'));
    const databaseUrl = await createTestDatabase();
    prefix = freshTopicPrefix('chworkers');
    // A database of its own on the server: the URL's path names it.
    const url = new URL(clickhouseUrl!);
    url.pathname = `/t_${randomBytes(6).toString('hex')}`;
    const env = {
      KAFKA_BROKERS: brokers.join(','),
      KAFKA_TOPIC_PREFIX: prefix,
      KAFKA_PARTITIONS: String(PARTITIONS),
      DATABASE_URL: databaseUrl,
      CLICKHOUSE_URL: url.toString(),
      DATA_DIR: dataDir,
    };
    api = await spawnService('api', env);
    [ingest, ...workers] = await Promise.all([spawnService('ingest', env), spawnService('workers', env), spawnService('workers', env)]);
    db = createDatabase(databaseUrl, { max: 2 });
  }, 120_000);

  afterAll(async () => {
    await killAllSpawned();
    await db?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('shares the partitions between the two workers and survives one of them dying', async () => {
    const costs = `${prefix}.costs`;
    await waitUntil('both workers to hold a share of the partitions', async () => {
      const [a, b] = await Promise.all(workers.map(assignmentOf));
      const mine = (x: Assignment) => x[costs] ?? [];
      return mine(a!).length > 0 && mine(b!).length > 0 && [...mine(a!), ...mine(b!)].sort().join() === '0,1,2,3';
    }, 40_000);

    const token = await tokenFor(db, 'admin');
    expect((await call(api.baseUrl, 'POST', '/api/v1/agents', { token, body: { name: AGENT, framework: 'crewai', external_id: AGENT } })).status).toBe(201);
    await new Promise((r) => setTimeout(r, 1_500));

    const total = 240;
    let sent = 0;
    let ackedUsd = 0;
    const client = async () => {
      while (sent < total) {
        const i = sent++;
        const body = { event_id: randomUUID(), agent_id: AGENT, job_id: `job-${i % 9}`, model: 'gpt-4o', provider: 'openai', input_tokens: 100 + i, output_tokens: 10 };
        const r = await call(ingest.baseUrl, 'POST', '/api/v1/costs/events', { body });
        expect(r.status).toBe(202);
        ackedUsd += r.body.cost_usd;
      }
    };
    const stream = Promise.all([client(), client(), client()]);
    await waitUntil('a third of the stream', async () => sent >= total / 3, 30_000);
    const [dying, survivor] = workers;
    await dying!.kill9();
    await stream;

    await waitUntil('the survivor to own every partition', async () => ((await assignmentOf(survivor!))[costs] ?? []).length === PARTITIONS, 40_000);
    const agentId = (await db.query<{ id: string }>('SELECT id::text AS id FROM agents WHERE external_id = $1', [AGENT])).rows[0]!.id;
    let detail: any;
    await waitUntil('every acknowledged event in ClickHouse', async () => {
      detail = (await call(api.baseUrl, 'GET', `/api/v1/costs/agents/${agentId}?days=7`, { token })).body;
      return detail?.events >= total;
    }, 40_000).catch(() => undefined);
    expect(detail.events).toBe(total);
    expect(Math.round(detail.cost_usd * 1e6)).toBe(Math.round(ackedUsd * 1e6));
  }, 180_000);
});
