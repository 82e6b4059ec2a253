// Kafka mode for the ingest benchmarks: a broker of our own (scripts/kafka.sh with a fresh data
// folder and a free port pair, so no test broker next door is touched), then the deployment's
// split: a workers process (loads chDB, owns the embedded PostgreSQL) and an ingest process
// (KAFKA_BROKERS, the workers' PostgreSQL through DATABASE_URL).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { findRunningEmbeddedPostgres } from '../../lib/postgres/embedded.ts';
import { withBenchLock } from './lock.ts';
import { freshDataDir, ROOT, sleep, startService, type ServiceProcess } from './ingest-service.ts';
import { freePort } from './server.ts';

export interface Broker {
  pid: number;
  brokers: string;
  stop(): Promise<void>;
}

export async function startBroker(): Promise<Broker> {
  const base = path.join(ROOT, '.cache/bench-data');
  mkdirSync(base, { recursive: true });
  const dataDir = mkdtempSync(path.join(base, 'kafka-'));
  // kafka.sh takes PORT and PORT+1 (controller); retry a few picks until both are free.
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort();
    const env = { ...process.env, KAFKA_DATA_DIR: dataDir, KAFKA_PORT: String(port) };
    const r = spawnSync('bash', [path.join(ROOT, 'scripts/kafka.sh'), 'start'], { env, encoding: 'utf8', timeout: 180_000 });
    if (r.status !== 0) {
      if (/port/i.test(r.stderr) && attempt < 4) continue;
      rmSync(dataDir, { recursive: true, force: true });
      throw new Error(`kafka.sh start failed (${r.status}): ${r.stderr.slice(-1500)}`);
    }
    const pid = Number(readFileSync(path.join(dataDir, 'kafka.pid'), 'utf8'));
    return {
      pid,
      brokers: `127.0.0.1:${port}`,
      async stop() {
        spawnSync('bash', [path.join(ROOT, 'scripts/kafka.sh'), 'stop'], { env, encoding: 'utf8', timeout: 120_000 });
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  throw new Error('no free port pair for the broker');
}

export interface KafkaDeployment {
  ingest: ServiceProcess;
  workers: ServiceProcess;
  dataDir: string;
  stop(): Promise<void>;
}

/** Workers first (they start PostgreSQL and chDB), then ingest on their PostgreSQL. */
export async function startKafkaDeployment(broker: Broker, topicPrefix: string, env: Record<string, string>, ingestCpuProfDir?: string): Promise<KafkaDeployment> {
  const dataDir = freshDataDir('kafka');
  const kenv = { ...env, KAFKA_BROKERS: broker.brokers, KAFKA_TOPIC_PREFIX: topicPrefix };
  const workers = await startService({ name: 'workers', dataDir, roles: 'workers', env: kenv });
  let ingest: ServiceProcess;
  try {
    const databaseUrl = await findRunningEmbeddedPostgres(dataDir);
    if (!databaseUrl) throw new Error('the workers process started no PostgreSQL');
    ingest = await startService({ name: 'ingest', dataDir, roles: 'ingest', env: { ...kenv, DATABASE_URL: databaseUrl }, cpuProfDir: ingestCpuProfDir });
  } catch (error) {
    await workers.stop();
    throw error;
  }
  return {
    ingest,
    workers,
    dataDir,
    async stop() {
      await ingest.stop();
      await workers.stop();
    },
  };
}

async function scrape(port: number): Promise<string> {
  return (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
}

/** Sum of a metric family over its label sets, from Prometheus text. */
export function metricSum(text: string, name: string): number {
  let sum = 0;
  for (const m of text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? ([-\\d.e+]+)$`, 'gm'))) sum += Number(m[1]);
  return sum;
}

/** Waits (holding the bench lock: loading is heavy work) until the workers have loaded
 * `expected` events or `maxS` passed; returns the seconds it took and what was loaded.
 * (The consumer-lag gauge is refreshed on a timer, so the loaded counter is what we trust.) */
export async function drain(workers: ServiceProcess, expected: number, maxS: number): Promise<{ seconds: number; loaded: number }> {
  return withBenchLock('kafka drain', async () => {
    const t0 = performance.now();
    let loaded = 0;
    while (performance.now() - t0 < maxS * 1000) {
      loaded = metricSum(await scrape(workers.port), 'aor_kafka_loaded_events_total');
      if (loaded >= expected) break;
      await sleep(500);
    }
    return { seconds: Math.round((performance.now() - t0) / 100) / 10, loaded };
  });
}

export async function ingestCounters(ingest: ServiceProcess): Promise<{ acked: number; timedOut: number; refused: number }> {
  const text = await scrape(ingest.port);
  return {
    acked: metricSum(text, 'aor_event_log_acked_events_total'),
    timedOut: metricSum(text, 'aor_event_log_timed_out_requests_total'),
    refused: metricSum(text, 'aor_event_log_refused_requests_total'),
  };
}
