// A real Kafka broker for tests: the one named by KAFKA_BROKERS, or a fresh single-node broker
// started through scripts/kafka.sh (jars from Maven Central, cached under .cache/kafka).
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface KafkaBroker {
  brokers: string[];
  stop(): Promise<void>;
}

const REPO_DIR = fileURLToPath(new URL('../../', import.meta.url));
const SCRIPT = join(REPO_DIR, 'scripts', 'kafka.sh');
// The first start resolves the broker from Maven Central, which can take minutes.
const START_TIMEOUT_MS = 15 * 60_000;
const STOP_TIMEOUT_MS = 2 * 60_000;

export async function ensureKafkaBroker(): Promise<KafkaBroker> {
  const external = process.env.KAFKA_BROKERS?.trim();
  if (external) {
    const brokers = external.split(',').map((b) => b.trim()).filter((b) => b.length > 0);
    return { brokers, stop: async () => {} };
  }

  const cacheDir = process.env.KAFKA_CACHE_DIR ?? join(REPO_DIR, '.cache', 'kafka');
  // Fresh data per run so topics and offsets never leak between runs; kept under the cache
  // folder (not /tmp) so a run that crashed leaves its broker somewhere easy to find.
  await mkdir(join(cacheDir, 'runs'), { recursive: true });
  const dataDir = await mkdtemp(join(cacheDir, 'runs', 'run-'));
  // Several engineers and CI share this machine: a fixed port would let two runs collide.
  const port = process.env.KAFKA_PORT ? Number(process.env.KAFKA_PORT) : await findFreePortPair();
  const env = { ...process.env, KAFKA_DATA_DIR: dataDir, KAFKA_PORT: String(port) };

  try {
    await runScript('start', env, START_TIMEOUT_MS);
  } catch (err) {
    await runScript('stop', env, STOP_TIMEOUT_MS).catch(() => {});
    throw err;
  }

  let stopped = false;
  return {
    brokers: [`127.0.0.1:${port}`],
    async stop() {
      if (stopped) return;
      stopped = true;
      await runScript('stop', env, STOP_TIMEOUT_MS);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

function runScript(command: 'start' | 'stop', env: NodeJS.ProcessEnv, timeout: number): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('bash', [SCRIPT, command], { env, timeout, maxBuffer: 8 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) {
        reject(new Error(`scripts/kafka.sh ${command} failed: ${err.message}\n${stderr}`));
        return;
      }
      resolve(stdout);
    });
  });
}

// The broker needs two adjacent ports (client, controller). Picked below the kernel's
// ephemeral range (32768+) so an outgoing connection cannot grab one between check and bind.
async function findFreePortPair(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = 20000 + Math.floor(Math.random() * 6000) * 2;
    if ((await isFree(port)) && (await isFree(port + 1))) return port;
  }
  throw new Error('no free pair of ports found for the Kafka broker between 20000 and 32000');
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
