// A store that is down answers 503 with Retry-After, never a 500 and never a lost event; a full
// ingest queue answers 503 at once; /health says which store is down.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../lib/log.ts';
import { startEmbeddedPostgres } from '../lib/postgres/embedded.ts';
import { call, startTestService, type TestService } from './helpers/service.ts';
import { tokenFor } from './helpers/tokens.ts';

const services: TestService[] = [];
afterAll(async () => {
  for (const s of services) await s.stop();
});

describe('PostgreSQL down', () => {
  it('health answers 503 naming it, and requests that need it answer 503 with Retry-After', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'aor-outage-pg-'));
    await fs.chmod(dir, 0o755);
    const postgres = await startEmbeddedPostgres(dir, createLogger('silent'));
    const service = await startTestService({ DATABASE_URL: postgres.url });
    services.push(service);
    const token = await tokenFor(service.db, 'admin');
    expect((await call(service.baseUrl, 'GET', '/health')).status).toBe(200);

    await postgres.stop();
    const health = await call(service.baseUrl, 'GET', '/health');
    expect(health.status).toBe(503);
    expect(health.headers.get('retry-after')).toBeTruthy();
    expect(health.body.stores.postgres.status).toBe('down');
    expect(health.body.stores.analytics.status).toBe('up');

    const list = await call(service.baseUrl, 'GET', '/api/v1/agents', { token });
    expect(list.status).toBe(503);
    expect(list.headers.get('retry-after')).toBeTruthy();
    expect(list.body.code).toBe('store_unavailable');
    expect(JSON.stringify(list.body)).not.toMatch(/ECONNREFUSED|SELECT|\.ts:/);

    // A signal from an agent ingest does not know needs the registry: 503, nothing stored.
    const signal = await call(service.baseUrl, 'POST', '/api/v1/jobs/j/quality', {
      body: { event_id: randomUUID(), agent_id: 'never-seen', job_id: 'j', overall_passed: true, latency_ms: 1, checks: [] },
    });
    expect(signal.status).toBe(503);
    expect(signal.headers.get('retry-after')).toBeTruthy();
    const stored = await service.analytics!.query<{ n: string }>('SELECT toString(count()) AS n FROM raw_signals');
    expect(stored[0]!.n).toBe('0');
    // chDB is one engine per process: release it for the next test.
    await services.pop()!.stop();
    await fs.rm(dir, { recursive: true, force: true });
  });
});

describe('ingest queue full', () => {
  it('answers 503 ingest_queue_full with Retry-After at once, and stores every acknowledged event', async () => {
    const service = await startTestService({ INGEST_QUEUE_MAX_EVENTS: '3', INGEST_BATCH_INTERVAL_MS: '1500', INGEST_BATCH_MAX_EVENTS: '1000' });
    services.push(service);
    const ids = Array.from({ length: 6 }, () => randomUUID());
    const answers = await Promise.all(
      ids.map((event_id) =>
        call(service.baseUrl, 'POST', '/api/v1/costs/events', {
          body: { event_id, agent_id: 'busy', job_id: event_id, model: 'gpt-4o', provider: 'openai', input_tokens: 10, output_tokens: 10 },
        }),
      ),
    );
    const accepted = ids.filter((_, i) => answers[i]!.status === 202);
    const refused = answers.filter((a) => a.status === 503);
    expect(accepted).toHaveLength(3);
    expect(refused).toHaveLength(3);
    for (const answer of refused) {
      expect(answer.body.code).toBe('ingest_queue_full');
      expect(answer.headers.get('retry-after')).toBe('1');
    }
    const stored = await service.analytics!.query<{ id: string }>('SELECT toString(event_id) AS id FROM raw_cost_events ORDER BY id');
    expect(stored.map((r) => r.id)).toEqual([...accepted].sort());
  });
});
