// Starts the real service in this test process on a free port, with its own database and
// data folder, and gives back a small client for it.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseConfig } from '../../lib/config.ts';
import { createLogger } from '../../lib/log.ts';
import { createDatabase, type Database } from '../../lib/postgres/database.ts';
import type { AnalyticsStore } from '../../lib/analytics/store.ts';
import { startService } from '../../service.ts';
import { createTestDatabase } from './database.ts';

export interface TestService {
  baseUrl: string;
  db: Database;
  dataDir: string;
  databaseUrl: string;
  /** The service's own analytics store (same process), for checking what was stored. */
  analytics?: AnalyticsStore;
  routes: Array<{ method: string; pattern: string }>;
  stop(): Promise<void>;
}

export async function startTestService(env: Record<string, string> = {}): Promise<TestService> {
  const databaseUrl = env.DATABASE_URL ?? (await createTestDatabase());
  const dataDir = env.DATA_DIR ?? (await fs.mkdtemp(path.join(os.tmpdir(), 'aor-test-data-')));
  const config = parseConfig(
    {
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'warn',
      ACCESS_LOG: 'off',
      PASSWORD_HASH_COST: '10',
      ...env,
      DATABASE_URL: databaseUrl,
      DATA_DIR: dataDir,
    },
    [],
  );
  const service = await startService(config, createLogger(config.logLevel));
  const db = createDatabase(databaseUrl, { max: 4 });
  return {
    baseUrl: `http://127.0.0.1:${service.port}`,
    db,
    dataDir,
    databaseUrl,
    analytics: service.analytics,
    routes: service.routes,
    async stop() {
      await db.close();
      await service.stop();
    },
  };
}

/** fetch with JSON in and out; `token` becomes a Bearer header. */
export async function call(
  baseUrl: string,
  method: string,
  pathname: string,
  options: { body?: unknown; token?: string; headers?: Record<string, string>; rawBody?: string | Buffer } = {},
): Promise<{ status: number; headers: Headers; body: any }> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | Buffer | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(baseUrl + pathname, { method, headers, body: body as BodyInit | undefined });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, headers: response.headers, body: parsed };
}
