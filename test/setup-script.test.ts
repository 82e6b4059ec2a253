// scripts/setup.ts as the operator runs it: a child process, against a DATABASE_URL and against
// the embedded PostgreSQL of a data folder, with and without a service running on that folder.
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyServiceAccountToken } from '../lib/auth/service-accounts.ts';
import { parseConfig } from '../lib/config.ts';
import { readInstanceSettings } from '../lib/instance-settings.ts';
import { createLogger } from '../lib/log.ts';
import { startService } from '../service.ts';
import { createTestDatabase } from './helpers/database.ts';
import { call, startTestService, type TestService } from './helpers/service.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TSX = path.join(ROOT, 'node_modules', '.bin', 'tsx');
const FIRST_SETUP = ['--company', 'Acme Corp', '--plan', 'professional', '--agent-limit', '25', '--currency', 'EUR', '--usd-rate', '0.92', '--admin-email', 'ops@acme.example'];

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runSetup(args: string[], env: Record<string, string>): Promise<Run> {
  const base = { ...process.env };
  delete base.DATABASE_URL;
  delete base.DATA_DIR;
  return new Promise((resolve, reject) => {
    const child = spawn(TSX, ['scripts/setup.ts', ...args], { cwd: ROOT, env: { ...base, PASSWORD_HASH_COST: '10', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function parseJson(run: Run): Record<string, any> {
  expect(run.stderr).not.toMatch(/failed/i);
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout);
}

const login = (baseUrl: string, username: string, password: string) => call(baseUrl, 'POST', '/auth/login', { body: { username, password } });

async function tempDataDir(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'aor-setup-'));
  // When the tests run as root, PostgreSQL runs as another user that must reach the folder.
  await fs.chmod(dir, 0o755);
  return dir;
}

describe('setup script with DATABASE_URL', () => {
  let databaseUrl: string;
  let service: TestService | undefined;
  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
  });
  afterAll(async () => {
    await service?.stop();
  });

  it('refuses bad flags with exit code 2 and a message naming each', async () => {
    const run = await runSetup(['--currency', 'XYZ', '--usd-rate', '0', '--agent-limit', '-1', '--admin-email', 'nope', '--plan', 'gold'], { DATABASE_URL: databaseUrl });
    expect(run.code).toBe(2);
    for (const flag of ['--currency', '--usd-rate', '--agent-limit', '--admin-email', '--plan']) expect(run.stderr).toContain(flag);
    expect(run.stdout).toBe('');
    expect((await runSetup(['--bogus', 'x'], { DATABASE_URL: databaseUrl })).code).toBe(2);
    const usd = await runSetup([...FIRST_SETUP, '--currency', 'USD', '--usd-rate', '2'], { DATABASE_URL: databaseUrl });
    expect(usd.code).toBe(2);
    expect(usd.stderr).toContain('must be 1');
  });

  it('refuses a first setup that lacks required settings', async () => {
    const run = await runSetup(['--company', 'Acme Corp'], { DATABASE_URL: databaseUrl });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--admin-email');
  });

  it('creates the admin with a temporary password that signs in, and a service token that verifies', async () => {
    const result = parseJson(await runSetup([...FIRST_SETUP, '--signup', 'off', '--service-token', 'otel-collector', '--json'], { DATABASE_URL: databaseUrl }));
    expect(result).toMatchObject({
      admin_email: 'ops@acme.example',
      admin_created: true,
      temporary_password: expect.stringMatching(/^[\w-]{24}$/),
      service_token: expect.stringMatching(/^aor_sa_/),
      company: 'Acme Corp',
      plan: 'professional',
      agent_limit: 25,
      display_currency: 'EUR',
      usd_rate: 0.92,
      signup_enabled: false,
    });
    service = await startTestService({ DATABASE_URL: databaseUrl });
    const signIn = await login(service.baseUrl, 'ops@acme.example', result.temporary_password);
    expect(signIn.status).toBe(200);
    expect(signIn.body.password_change_required).toBe(true);
    const { rows } = await service.db.query("SELECT role FROM users WHERE email = 'ops@acme.example'");
    expect(rows[0]!.role).toBe('admin');
    expect(await verifyServiceAccountToken(service.db, result.service_token)).toMatchObject({ name: 'otel-collector' });
  });

  it('a rerun changes only the given settings and keeps users, passwords and tokens', async () => {
    const before = await service!.db.query('SELECT id, password_hash FROM users');
    const accounts = await service!.db.query('SELECT id FROM service_accounts WHERE revoked_at IS NULL');
    const run = await runSetup(['--company', 'Acme Group', '--signup', 'on', '--currency', 'GBP', '--usd-rate', '0.79', '--admin-email', 'ops@acme.example'], { DATABASE_URL: databaseUrl });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('already exists');
    expect(run.stdout).not.toMatch(/Temporary password/);
    const settings = await readInstanceSettings(service!.db);
    expect(settings).toMatchObject({ company_name: 'Acme Group', signup_enabled: true, display_currency: 'GBP', usd_rate: 0.79, plan: 'professional', agent_limit: 25 });
    const after = await service!.db.query('SELECT id, password_hash FROM users');
    expect(after.rows).toEqual(before.rows);
    const accountsAfter = await service!.db.query('SELECT id FROM service_accounts WHERE revoked_at IS NULL');
    expect(accountsAfter.rows).toEqual(accounts.rows);
    // The change is live: signup now works on the running service.
    const signup = await call(service!.baseUrl, 'POST', '/auth/signup', { body: { email: 'trial@acme.example', password: 'long enough password', name: 'T' } });
    expect(signup.status).toBe(201);
  });
});

describe('setup script with the embedded PostgreSQL of DATA_DIR', () => {
  let dataDir: string;
  let stopService: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    dataDir = await tempDataDir();
  });
  afterAll(async () => {
    await stopService?.();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('starts the server itself when no service runs, and stops it afterwards', async () => {
    const result = parseJson(await runSetup([...FIRST_SETUP, '--json'], { DATA_DIR: dataDir }));
    expect(result.admin_created).toBe(true);
    await expect(fs.access(path.join(dataDir, 'postgres', 'postmaster.pid'))).rejects.toThrow();

    // A service started on the folder afterwards finds the admin the script created.
    const config = parseConfig({ HOST: '127.0.0.1', PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'error', ACCESS_LOG: 'off', ROLES: 'api', PASSWORD_HASH_COST: '10' }, []);
    const running = await startService(config, createLogger('error'));
    stopService = running.stop;
    const baseUrl = `http://127.0.0.1:${running.port}`;
    expect((await login(baseUrl, 'ops@acme.example', result.temporary_password)).status).toBe(200);
    const signupBefore = await call(baseUrl, 'POST', '/auth/signup', { body: { email: 'a@acme.example', password: 'long enough password', name: 'A' } });
    expect(signupBefore.status).toBe(403);

    // While the service runs, the script shares its server instead of starting another.
    const rerun = await runSetup(['--signup', 'on', '--service-token', 'edge', '--json'], { DATA_DIR: dataDir });
    const second = parseJson(rerun);
    expect(rerun.stderr).toContain('Using the PostgreSQL of the service');
    expect(second.temporary_password).toBeUndefined();
    expect(second).toMatchObject({ company: 'Acme Corp', signup_enabled: true, service_token: expect.stringMatching(/^aor_sa_/) });
    const signupAfter = await call(baseUrl, 'POST', '/auth/signup', { body: { email: 'a@acme.example', password: 'long enough password', name: 'A' } });
    expect(signupAfter.status).toBe(201);
    expect((await call(baseUrl, 'GET', '/health')).status).toBe(200);
  }, 180_000);
});
