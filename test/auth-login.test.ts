// POST /auth/login and the access-token checks every Bearer route relies on.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAccessTokens } from '../api/auth/access-tokens.ts';
import { hashPassword } from '../lib/auth/passwords.ts';
import { createUser } from '../lib/auth/users.ts';
import { readJwtSecret } from '../lib/instance-settings.ts';
import { call, startTestService, type TestService } from './helpers/service.ts';

const PASSWORD = 'correct horse battery';
let service: TestService;
let adminId: string;

beforeAll(async () => {
  service = await startTestService();
  adminId = (await createUser(service.db, { email: 'Admin@Example.com', password: PASSWORD, role: 'admin' }, 10)).id;
  await createUser(service.db, { email: 'member@example.com', password: PASSWORD, role: 'member' }, 10);
});
afterAll(async () => {
  await service?.stop();
});
beforeEach(async () => {
  await service.db.query('DELETE FROM login_failures');
});

const login = (username: string, password: string) => call(service.baseUrl, 'POST', '/auth/login', { body: { username, password } });
const listServiceAccounts = (token: string) => call(service.baseUrl, 'GET', '/api/v1/service-accounts', { token });
const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('POST /auth/login', () => {
  it('answers the token shape for the right password, the email matched in any case', async () => {
    const res = await login('admin@EXAMPLE.com', PASSWORD);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ access_token: expect.any(String), refresh_token: expect.any(String), token_type: 'bearer', expires_in: 3600 });
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect((await listServiceAccounts(res.body.access_token)).status).toBe(200);
  });

  it('answers 401 invalid_credentials as problem+json for a wrong password and for an unknown user alike', async () => {
    const wrong = await login('admin@example.com', 'not the password at all');
    const unknown = await login('nobody@example.com', PASSWORD);
    for (const res of [wrong, unknown]) {
      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      expect(res.body).toMatchObject({ status: 401, code: 'invalid_credentials', type: 'urn:agent-ops-registry:problem:invalid_credentials' });
    }
    expect(unknown.body.detail).toBe(wrong.body.detail);
  });

  it('answers 422 for a body without a password and 400 for broken JSON', async () => {
    const missing = await call(service.baseUrl, 'POST', '/auth/login', { body: { username: 'admin@example.com' } });
    expect(missing.status).toBe(422);
    expect(missing.body.code).toBe('validation_failed');
    const broken = await call(service.baseUrl, 'POST', '/auth/login', { rawBody: '{"username":', headers: { 'content-type': 'application/json' } });
    expect(broken.status).toBe(400);
  });

  it('locks an account after 5 failures with 429 and Retry-After, even for the right password', async () => {
    for (let i = 0; i < 5; i++) expect((await login('member@example.com', `wrong password ${i}`)).status).toBe(401);
    const locked = await login('member@example.com', PASSWORD);
    expect(locked.status).toBe(429);
    expect(locked.body.code).toBe('too_many_login_attempts');
    const retryAfter = Number(locked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(800);
    expect(retryAfter).toBeLessThanOrEqual(900);
    // Another account from the same address is not locked by this one's failures.
    expect((await login('admin@example.com', PASSWORD)).status).toBe(200);
  });

  it('forgives earlier failures of an account after a successful login', async () => {
    for (let i = 0; i < 4; i++) expect((await login('member@example.com', 'wrong password!')).status).toBe(401);
    expect((await login('member@example.com', PASSWORD)).status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await login('member@example.com', 'wrong password!')).status).toBe(401);
    expect((await login('member@example.com', PASSWORD)).status).toBe(200);
  });

  it('locks an address after 20 failures over any accounts', async () => {
    for (let i = 0; i < 20; i++) expect((await login(`guess${i % 10}@example.com`, 'wrong password!')).status).toBe(401);
    const res = await login('admin@example.com', PASSWORD);
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    const { rows } = await service.db.query("SELECT failures FROM login_failures WHERE key = 'address:127.0.0.1'");
    expect(rows[0]?.failures).toBe(20);
  });

  it('refuses a trial account past its expiry with 403 trial_expired', async () => {
    await createUser(service.db, { email: 'trial@example.com', password: PASSWORD, role: 'member', trialExpiresAt: new Date(Date.now() - 1000) }, 10);
    const res = await login('trial@example.com', PASSWORD);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('trial_expired');
  });

  it('upgrades a hash made with another cost on login', async () => {
    const user = await createUser(service.db, { email: 'old-hash@example.com', password: PASSWORD, role: 'member' }, 11);
    expect((await login('old-hash@example.com', PASSWORD)).status).toBe(200);
    const { rows } = await service.db.query('SELECT password_hash FROM users WHERE id = $1', [user.id]);
    expect(rows[0]!.password_hash).toMatch(/^scrypt\$1024\$8\$1\$/);
    expect((await login('old-hash@example.com', PASSWORD)).status).toBe(200);
  });
});

describe('access tokens on a Bearer route', () => {
  it('answers 401 missing_token without a token', async () => {
    const res = await call(service.baseUrl, 'GET', '/api/v1/service-accounts');
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('missing_token');
  });

  it('answers 401 token_expired for a token issued more than an hour ago', async () => {
    const tokens = createAccessTokens(await readJwtSecret(service.db));
    const old = await tokens.issue({ userId: adminId, role: 'admin', passwordChangeOnly: false }, new Date(Date.now() - 3601_000));
    const fresh = await tokens.issue({ userId: adminId, role: 'admin', passwordChangeOnly: false });
    expect((await listServiceAccounts(fresh)).status).toBe(200);
    const res = await listServiceAccounts(old);
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('token_expired');
  });

  it('answers 401 invalid_token for a tampered signature or payload', async () => {
    const token = (await login('member@example.com', PASSWORD)).body.access_token as string;
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const flipped = signature.slice(0, 10) + (signature[10] === 'A' ? 'B' : 'A') + signature.slice(11);
    const res = await listServiceAccounts(`${header}.${payload}.${flipped}`);
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('invalid_token');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    expect(claims.role).toBe('member');
    // A member who rewrites its role claim keeps the old signature, which no longer matches.
    const promoted = await listServiceAccounts(`${header}.${b64({ ...claims, role: 'admin' })}.${signature}`);
    expect(promoted.status).toBe(401);
    expect((await listServiceAccounts(token)).body.code).toBe('admin_required');
  });

  it('answers 401 to an alg:none token and to one signed with another key', async () => {
    const now = Math.floor(Date.now() / 1000);
    const claims = { sub: adminId, role: 'admin', iss: 'agent-operations-registry', aud: 'aor-api', iat: now, exp: now + 3600 };
    const none = `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`;
    const resNone = await listServiceAccounts(none);
    expect(resNone.status).toBe(401);
    expect(resNone.body.code).toBe('invalid_token');
    const unsigned = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(claims)}`;
    const forged = `${unsigned}.${createHmac('sha256', 'some other secret').update(unsigned).digest('base64url')}`;
    expect((await listServiceAccounts(forged)).status).toBe(401);
    // The same claims signed with the instance key pass: the refusals above are about the signature.
    const secret = Buffer.from(await readJwtSecret(service.db));
    const genuine = `${unsigned}.${createHmac('sha256', secret).update(unsigned).digest('base64url')}`;
    expect((await listServiceAccounts(genuine)).status).toBe(200);
  });
});

describe('password hashes', () => {
  it('stores scrypt hashes with their parameters, never the password', async () => {
    const { rows } = await service.db.query("SELECT password_hash FROM users WHERE email = 'Admin@Example.com'");
    const stored = rows[0]!.password_hash as string;
    expect(stored).toMatch(/^scrypt\$1024\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect(stored).not.toContain(PASSWORD);
    expect(await hashPassword(PASSWORD, 10)).not.toBe(stored);
  });
});
