// The real service on a benchmark data folder (`node --import tsx main.ts`, the pid is the
// service's own), an admin token minted the way login issues it, and a keep-alive HTTP client
// that times one request at a time.
import http from 'node:http';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { createAccessTokens } from '../../api/auth/access-tokens.ts';
import { readJwtSecret } from '../../lib/instance-settings.ts';
import { createDatabase, type Database } from '../../lib/postgres/database.ts';
import { findRunningEmbeddedPostgres } from '../../lib/postgres/embedded.ts';
import { ROOT } from './bench-data.ts';
import { startServer, type Started } from './server.ts';

export interface BenchService extends Started {
  baseUrl: string;
  token: string;
  /** The service's own PostgreSQL (embedded, from the data folder). */
  db: Database;
}

/** `nodeArgs` go to node itself (e.g. --cpu-prof, which NODE_OPTIONS does not accept). */
export async function startBenchService(dataDir: string, env: NodeJS.ProcessEnv = {}, args: string[] = [], nodeArgs: string[] = []): Promise<BenchService> {
  const s = await startServer({
    cmd: process.execPath,
    args: [...nodeArgs, '--import', import.meta.resolve('tsx'), path.join(ROOT, 'main.ts'), ...args],
    // LOG_LEVEL error: on synthetic data the alerts worker warns once per degrading check at
    // start (hundreds of lines), which pushed the "listening" line out of startServer's buffer.
    env: { HOST: '127.0.0.1', PORT: '0', DATA_DIR: dataDir, ACCESS_LOG: 'off', LOG_LEVEL: 'error', ...env },
    readyLine: /listening on http:\/\/[\d.]+:(\d+)/,
    timeoutMs: 180_000,
  });
  try {
    const url = env.DATABASE_URL ?? (await findRunningEmbeddedPostgres(dataDir));
    if (!url) throw new Error('the service runs no embedded PostgreSQL in the data folder');
    const db = createDatabase(url, { max: 2 });
    const token = await adminToken(db);
    return { ...s, baseUrl: `http://127.0.0.1:${s.port}`, token, db, stop: async () => (await db.close(), await s.stop()) };
  } catch (error) {
    await s.stop();
    throw error;
  }
}

/** A fresh admin user and an access token for it (valid one hour, as login issues). */
export async function adminToken(db: Database): Promise<string> {
  const email = `bench-${randomBytes(4).toString('hex')}@example.test`;
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO users (email, name, password_hash, role) VALUES ($1, $1, 'not-a-login', 'admin') RETURNING id::text AS id`,
    [email],
  );
  return createAccessTokens(await readJwtSecret(db)).issue({ userId: rows[0]!.id, role: 'admin', passwordChangeOnly: false });
}

export interface Timed {
  status: number;
  ms: number;
  body: string;
}

/** One connection, keep-alive, one request at a time: what a dashboard's fetches look like. */
export function createClient(baseUrl: string, token?: string) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const request = (method: string, pathAndQuery: string, body?: string): Promise<Timed> =>
    new Promise((resolve, reject) => {
      const t0 = performance.now();
      const headers: Record<string, string> = {};
      if (token) headers.authorization = `Bearer ${token}`;
      if (body !== undefined) headers['content-type'] = 'application/json';
      const req = http.request(`${baseUrl}${pathAndQuery}`, { method, agent, headers, timeout: 30_000 }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - t0, body: Buffer.concat(chunks).toString() }));
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`timeout: ${method} ${pathAndQuery}`)));
      req.on('error', reject);
      req.end(body);
    });
  return {
    get: (p: string) => request('GET', p),
    post: (p: string, body: unknown) => request('POST', p, JSON.stringify(body)),
    close: () => agent.destroy(),
  };
}
export type BenchClient = ReturnType<typeof createClient>;
