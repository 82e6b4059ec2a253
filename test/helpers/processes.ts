// Real service processes for deployment tests: `node --import tsx main.ts --role ...` with its
// own environment, ready when it logs "service started", stoppable gracefully or with kill -9.
// Also the Kafka pieces those tests share: the run's broker, a fresh topic prefix per test, and a
// private broker a test may stop and start again.
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';

const REPO_DIR = fileURLToPath(new URL('../../', import.meta.url));

export interface ServiceProcess {
  pid: number;
  roles: string;
  baseUrl: string;
  /** The last lines the process wrote (stdout and stderr), for failure messages. */
  output(): string;
  /** Resolves with the exit code (or the signal's name) once the process is gone. */
  exited: Promise<number | string>;
  /** SIGKILL: no shutdown code runs, as in a crash or an OOM kill. */
  kill9(): Promise<void>;
  /** SIGTERM, then waits for the graceful stop. */
  stop(): Promise<void>;
}

const running = new Set<ServiceProcess>();

export async function spawnService(roles: string, env: Record<string, string>, options: { readyTimeoutMs?: number } = {}): Promise<ServiceProcess> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'main.ts', '--role', roles], {
    cwd: REPO_DIR,
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', ACCESS_LOG: 'off', PASSWORD_HASH_COST: '10', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let onLine: (line: string) => void = () => {};
  const collect = (stream: NodeJS.ReadableStream) => {
    let rest = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      const parts = (rest + chunk).split('\n');
      rest = parts.pop()!;
      for (const line of parts) {
        lines.push(line);
        if (lines.length > 300) lines.shift();
        onLine(line);
      }
    });
  };
  collect(child.stdout!);
  collect(child.stderr!);
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  const output = () => `--- last output of pid ${child.pid} (${roles}) ---\n${lines.slice(-60).join('\n')}`;

  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${roles} did not start within ${options.readyTimeoutMs ?? 60_000} ms\n${output()}`)), options.readyTimeoutMs ?? 60_000);
    onLine = (line) => {
      if (!line.includes('"service started"')) return;
      const listening = /"listening":"(http:\/\/[^"]+)"/.exec(line)?.[1];
      clearTimeout(timer);
      resolve(listening ?? '');
    };
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${roles} exited during start (${code})\n${output()}`));
    });
  }).catch(async (error) => {
    child.kill('SIGKILL');
    await exited;
    throw error;
  });
  onLine = () => {};

  const service: ServiceProcess = {
    pid: child.pid!,
    roles,
    baseUrl,
    output,
    exited,
    async kill9() {
      child.kill('SIGKILL');
      await exited;
      running.delete(service);
    },
    async stop() {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
      running.delete(service);
    },
  };
  running.add(service);
  void exited.then(() => running.delete(service));
  return service;
}

/** For afterAll: whatever a failed test left running. */
export async function killAllSpawned(): Promise<void> {
  await Promise.all([...running].map((s) => s.kill9()));
}

/** The run's broker (test/global-setup.ts starts it for files that inject it). */
export function sharedKafkaBrokers(): string[] {
  const brokers = inject('kafkaBrokers');
  if (brokers.length === 0) throw new Error('no Kafka broker in this run: test/global-setup.ts starts one only for files that inject kafkaBrokers');
  return brokers;
}

/** Topics of one test: no other test's events, offsets or dead letters in sight. */
export function freshTopicPrefix(label: string): string {
  return `t-${label}-${randomBytes(4).toString('hex')}`;
}

export interface PrivateBroker {
  brokers: string[];
  /** Stops the broker cleanly (SIGTERM); its data stays for the next start. */
  pause(): Promise<void>;
  /** Starts it again on the same port and data. */
  resume(): Promise<void>;
  /** Stops it and deletes its data. */
  destroy(): Promise<void>;
}

/**
 * A broker only this test file talks to, so stopping it mid-stream disturbs no other test. Always
 * started here through scripts/kafka.sh (an external KAFKA_BROKERS cannot be stopped by a test).
 */
export async function startPrivateBroker(): Promise<PrivateBroker> {
  const cacheDir = process.env.KAFKA_CACHE_DIR ?? join(REPO_DIR, '.cache', 'kafka');
  await mkdir(join(cacheDir, 'runs'), { recursive: true });
  const dataDir = await mkdtemp(join(cacheDir, 'runs', 'private-'));
  const port = await freePortPair();
  const env = { ...process.env, KAFKA_DATA_DIR: dataDir, KAFKA_PORT: String(port), KAFKA_CACHE_DIR: cacheDir };
  const script = (command: 'start' | 'stop') =>
    new Promise<void>((resolve, reject) => {
      execFile('bash', [join(REPO_DIR, 'scripts', 'kafka.sh'), command], { env, timeout: 15 * 60_000 }, (error, _stdout, stderr) =>
        error ? reject(new Error(`scripts/kafka.sh ${command} failed: ${error.message}\n${stderr}`)) : resolve(),
      );
    });
  await script('start');
  return {
    brokers: [`127.0.0.1:${port}`],
    pause: () => script('stop'),
    resume: () => script('start'),
    async destroy() {
      await script('stop').catch(() => {});
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

// Two adjacent ports (client, controller) below the ephemeral range, as test/helpers/kafka-broker.ts.
async function freePortPair(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = 20000 + Math.floor(Math.random() * 6000) * 2;
    if ((await isFree(port)) && (await isFree(port + 1))) return port;
  }
  throw new Error('no free pair of ports for a private Kafka broker');
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
