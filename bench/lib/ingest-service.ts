// The real service as the ingest benchmarks run it: `node --import tsx main.ts` on loopback,
// on a fresh DATA_DIR under .cache/bench-data (gitignored, on disk like a real deployment),
// with the access log off. Also: the operator setup (service-account token), counters read
// from the service's own PostgreSQL, and rows counted in chDB once the service has stopped.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { findRunningEmbeddedPostgres } from '../../lib/postgres/embedded.ts';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DATA_ROOT = path.join(ROOT, '.cache/bench-data');
const TSX = import.meta.resolve('tsx');

export interface ServiceProcess {
  name: string;
  pid: number;
  port: number;
  dataDir: string;
  /** SIGTERM and wait for the graceful stop (so --cpu-prof writes its file); SIGKILL after 30 s. */
  stop(): Promise<void>;
}

export interface ServiceStart {
  name: string;
  dataDir: string;
  /** --role value; all roles when absent. */
  roles?: string;
  env?: Record<string, string>;
  /** Starts node with --cpu-prof, writing the profile here when the process exits. */
  cpuProfDir?: string;
}

/** The environment every benchmark run of the service gets, plus `extra`. */
export function benchEnv(dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return { PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, ACCESS_LOG: 'off', LOG_LEVEL: 'warn', ...extra };
}

export function freshDataDir(label: string): string {
  mkdirSync(DATA_ROOT, { recursive: true });
  const dir = mkdtempSync(path.join(DATA_ROOT, `ingest-${label}-`));
  // mkdtemp makes it 0700; the embedded PostgreSQL runs as user "postgres" when we are root.
  chmodSync(dir, 0o755);
  return dir;
}

export function removeDataDir(dir: string): void {
  if (dir.startsWith(DATA_ROOT + path.sep)) rmSync(dir, { recursive: true, force: true });
}

/** The command line a results file shows for a service start (without the temp folder). */
export function serviceCommand(o: Pick<ServiceStart, 'roles' | 'env' | 'cpuProfDir'>): string {
  const env = Object.entries({ ACCESS_LOG: 'off', LOG_LEVEL: 'warn', ...o.env })
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  const prof = o.cpuProfDir ? `--cpu-prof --cpu-prof-dir=${path.relative(ROOT, o.cpuProfDir)} ` : '';
  return `PORT=0 HOST=127.0.0.1 DATA_DIR=<fresh> ${env} node ${prof}--import tsx main.ts${o.roles ? ` --role ${o.roles}` : ''}`;
}

export async function startService(o: ServiceStart): Promise<ServiceProcess> {
  const args = [...(o.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${o.cpuProfDir}`] : []), '--import', TSX, path.join(ROOT, 'main.ts')];
  if (o.roles) args.push('--role', o.roles);
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...benchEnv(o.dataDir, o.env) }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (d: Buffer) => (output = (output + d.toString()).slice(-6000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const kill = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(kill);
    }
    await stopOrphanPostgres(o.dataDir);
  };
  const until = Date.now() + 60_000;
  while (Date.now() < until) {
    const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
    if (m) return { name: o.name, pid: child.pid!, port: Number(m[1]), dataDir: o.dataDir, stop };
    if (child.exitCode !== null) break;
    await sleep(100);
  }
  await stop();
  throw new Error(`${o.name} did not start:\n${output}`);
}

/** A service killed mid-stop leaves its embedded PostgreSQL running; stop ours by its pid. */
async function stopOrphanPostgres(dataDir: string): Promise<void> {
  const pid = postgresPid(dataDir);
  if (!pid || !alive(pid)) return;
  process.kill(pid, 'SIGTERM');
  for (let i = 0; i < 100 && alive(pid); i++) await sleep(100);
}

export function postgresPid(dataDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(path.join(dataDir, 'postgres/postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** `npm run setup` against the running service's DATA_DIR; returns a service-account token. */
export function setupInstance(dataDir: string): string {
  const r = spawnSync(
    process.execPath,
    ['--import', TSX, path.join(ROOT, 'scripts/setup.ts'), '--company', 'Bench', '--plan', 'enterprise', '--agent-limit', '1000',
      '--currency', 'USD', '--usd-rate', '1', '--admin-email', 'bench@example.com', '--service-token', 'bench', '--json'],
    { cwd: ROOT, env: { ...process.env, DATA_DIR: dataDir }, encoding: 'utf8', timeout: 60_000 },
  );
  const line = r.stdout.split('\n').find((l) => l.startsWith('{'));
  if (r.status !== 0 || !line) throw new Error(`setup failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  const token = (JSON.parse(line) as { service_token?: string }).service_token;
  if (!token) throw new Error('setup printed no service_token');
  return token;
}

/** Registers bench-agent-0..n-1 (one signal each), so no measured request pays a first sighting. */
export async function primeAgents(port: number, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const body = { agent_id: `bench-agent-${i}`, job_id: `prime-${i}`, overall_passed: true, latency_ms: 1, checks: [{ check_id: 'prime', severity: 'LOW', passed: true }] };
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/jobs/prime-${i}/quality`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (res.status !== 202) throw new Error(`priming bench-agent-${i}: ${res.status} ${await res.text()}`);
  }
}

/** OTLP counters the service keeps in PostgreSQL (telemetry_status, flushed once a second). */
export async function telemetryCounters(dataDir: string): Promise<{ spans: number; rejectedExports: number }> {
  const url = await findRunningEmbeddedPostgres(dataDir);
  if (!url) throw new Error(`no embedded PostgreSQL runs for ${dataDir}`);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const r = await client.query<{ spans: string; rejected: string }>('SELECT spans_accepted_total AS spans, exports_rejected_total AS rejected FROM telemetry_status WHERE id = 1');
    return { spans: Number(r.rows[0]?.spans ?? 0), rejectedExports: Number(r.rows[0]?.rejected ?? 0) };
  } finally {
    await client.end();
  }
}

/** Rows in chDB tables of a stopped service (a child process: chDB binds one folder per process). */
export function storedRows(dataDir: string, tables: string[]): Record<string, number> {
  const r = spawnSync(process.execPath, ['--import', TSX, path.join(ROOT, 'bench/lib/count-rows.ts'), path.join(dataDir, 'chdb'), ...tables], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (r.status !== 0) throw new Error(`count-rows failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as Record<string, number>;
}

/** The service code measured: the last commit of its files, plus a note when they differ from it. */
export function serviceRevision(): string {
  const git = (args: string[]) => spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' }).stdout?.trim() ?? '';
  const paths = ['--', 'main.ts', 'service.ts', 'lib', 'ingest', 'api', 'workers', 'schemas', 'clickhouse'];
  // The last commit that touched the service, so commits of docs or results do not count.
  const commit = git(['log', '-1', '--format=%h', ...paths]) || 'unknown';
  const dirty = git(['status', '--porcelain', ...paths]);
  return dirty ? `${commit} + uncommitted changes in ${dirty.split('\n').length} service file(s)` : commit;
}

/** Revision at the start of a run, and a warning when it differs at the end. */
export function revisionDuring(start: string): string {
  const end = serviceRevision();
  return end === start ? start : `${start} at the start, ${end} at the end: the service changed during the run`;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
