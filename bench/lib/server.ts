// Starts a server process for a benchmark and stops it again. The pid returned is the server
// itself (never an npx/tsx wrapper), because its CPU is read from /proc/<pid>/stat.
import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';

export interface Started {
  pid: number;
  port: number;
  /** SIGTERM, then SIGKILL after 3 s; resolves when the process is gone. */
  stop(): Promise<void>;
}

export interface StartOptions {
  cmd: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  /** Ready when stdout prints a line matching this, whose first group is the port... */
  readyLine?: RegExp;
  /** ...or, for servers that print nothing, when this port accepts a connection. */
  port?: number;
  timeoutMs?: number;
}

/** A TypeScript server run with `node --import tsx`, so that its pid is the server's own. */
export function tsServer(file: string, port = 0): StartOptions {
  return {
    cmd: process.execPath,
    args: ['--import', import.meta.resolve('tsx'), file, String(port)],
    readyLine: /^READY .*port=(\d+)/m,
  };
}

export async function startServer(o: StartOptions): Promise<Started> {
  const child = spawn(o.cmd, o.args, { env: { ...process.env, ...o.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const onOut = (d: Buffer) => {
    output = (output + d.toString()).slice(-4000);
  };
  child.stdout!.on('data', onOut);
  child.stderr!.on('data', onOut);
  const stop = () => stopProcess(child);
  try {
    const port = await waitReady(child, o, () => output);
    return { pid: child.pid!, port, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

async function waitReady(child: ChildProcess, o: StartOptions, output: () => string): Promise<number> {
  const until = Date.now() + (o.timeoutMs ?? 15_000);
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`${o.cmd} exited with ${child.exitCode}:\n${output()}`);
    if (o.readyLine) {
      const m = o.readyLine.exec(output());
      if (m) return Number(m[1]);
    } else if (o.port && (await accepts(o.port))) {
      return o.port;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${o.cmd} not ready in time:\n${output()}`);
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port });
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}

function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 3000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Runs a command to completion (bounded) and returns its stdout and its CPU-seconds. */
export function runMeasured(cmd: string, args: string[], timeoutMs: number): Promise<{ stdout: string; cpuS: number; code: number | null }> {
  // bash's `times` prints the CPU of the shell's finished children: the only way to get a
  // short-lived tool's CPU after it exits, since /proc/<pid> is gone by then.
  const script = '"$@" 2>&1; rc=$?; echo "__TIMES__"; times; exit $rc';
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', script, 'bash', cmd, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    const kill = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(kill);
      const [stdout, times = ''] = out.split('__TIMES__');
      // Second line of `times`: children's user and system time, e.g. "0m1.234s 0m0.567s".
      const secs = [...(times.trim().split('\n')[1] ?? '').matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60 + Number(m[2]));
      resolve({ stdout: stdout ?? '', cpuS: secs.reduce((a, b) => a + b, 0), code });
    });
  });
}

/** A port that was free a moment ago (for servers that cannot report the port they got). */
export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as import('node:net').AddressInfo;
      s.close(() => resolve(port));
    });
  });
}
