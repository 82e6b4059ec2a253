// One PostgreSQL server for the whole run: TEST_DATABASE_URL when given (a server you run),
// else an embedded one in a temporary folder, the same code the service uses.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '../../lib/log.ts';
import { startEmbeddedPostgres } from '../../lib/postgres/embedded.ts';

export async function startTestPostgres(): Promise<{ url: string; stop(): Promise<void> }> {
  if (process.env.TEST_DATABASE_URL) return { url: process.env.TEST_DATABASE_URL, stop: async () => undefined };
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'aor-test-pg-'));
  await fs.chmod(dir, 0o755);
  const server = await startEmbeddedPostgres(dir, createLogger('warn'));
  return {
    url: server.url,
    stop: async () => {
      await server.stop();
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}
