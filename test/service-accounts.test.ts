// Service accounts: admin-only routes, and the token check the OTLP endpoints use.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../lib/errors.ts';
import { createServiceAccount, createServiceAccountVerifier, verifyServiceAccountToken } from '../lib/auth/service-accounts.ts';
import { createUser } from '../lib/auth/users.ts';
import { call, startTestService, type TestService } from './helpers/service.ts';

const PASSWORD = 'service accounts pw';
let service: TestService;
let adminToken: string;
let memberToken: string;

const signIn = async (email: string) => (await call(service.baseUrl, 'POST', '/auth/login', { body: { username: email, password: PASSWORD } })).body.access_token as string;
const rejection = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => (error instanceof AppError ? `${error.status} ${error.code}` : String(error)));

beforeAll(async () => {
  service = await startTestService();
  await createUser(service.db, { email: 'admin@example.com', password: PASSWORD, role: 'admin' }, 10);
  await createUser(service.db, { email: 'member@example.com', password: PASSWORD, role: 'member' }, 10);
  adminToken = await signIn('admin@example.com');
  memberToken = await signIn('member@example.com');
});
afterAll(async () => {
  await service?.stop();
});

describe('service-account routes', () => {
  it('are for admins only: a member gets 403 admin_required, no token 401', async () => {
    const create = await call(service.baseUrl, 'POST', '/api/v1/service-accounts', { token: memberToken, body: { name: 'otel' } });
    expect(create.status).toBe(403);
    expect(create.body.code).toBe('admin_required');
    expect((await call(service.baseUrl, 'GET', '/api/v1/service-accounts', { token: memberToken })).body.code).toBe('admin_required');
    const account = await createServiceAccount(service.db, 'kept');
    const revoke = await call(service.baseUrl, 'DELETE', `/api/v1/service-accounts/${account.id}`, { token: memberToken });
    expect(revoke.status).toBe(403);
    expect(await verifyServiceAccountToken(service.db, account.token)).toEqual({ id: account.id, name: 'kept' });
    expect((await call(service.baseUrl, 'GET', '/api/v1/service-accounts')).status).toBe(401);
    const { rows } = await service.db.query("SELECT count(*)::int AS n FROM service_accounts WHERE name = 'otel'");
    expect(rows[0]!.n).toBe(0);
  });

  it('create shows the token once; list never shows it; revoke makes it fail', async () => {
    const created = await call(service.baseUrl, 'POST', '/api/v1/service-accounts', { token: adminToken, body: { name: 'collector-eu' } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.any(String), name: 'collector-eu', token: expect.stringMatching(/^aor_sa_[\w-]{43}$/), token_prefix: expect.any(String), created_at: expect.any(String) });
    const { id, token, token_prefix } = created.body;
    expect(token.startsWith(token_prefix)).toBe(true);
    expect(token_prefix.length).toBeLessThan(16);

    const stored = await service.db.query('SELECT token_hash FROM service_accounts WHERE id = $1', [id]);
    expect(Buffer.compare(stored.rows[0]!.token_hash, createHash('sha256').update(token).digest())).toBe(0);

    const list = await call(service.baseUrl, 'GET', '/api/v1/service-accounts', { token: adminToken });
    expect(list.status).toBe(200);
    const item = list.body.find((a: { id: string }) => a.id === id);
    expect(item).toEqual({ id, name: 'collector-eu', token_prefix, created_at: created.body.created_at, last_used_at: null, revoked_at: null });
    expect(JSON.stringify(list.body)).not.toContain(token);

    expect(await verifyServiceAccountToken(service.db, token)).toEqual({ id, name: 'collector-eu' });

    const revoke = await call(service.baseUrl, 'DELETE', `/api/v1/service-accounts/${id}`, { token: adminToken });
    expect(revoke.status).toBe(204);
    expect(await rejection(verifyServiceAccountToken(service.db, token))).toBe('401 service_token_revoked');
    const after = await call(service.baseUrl, 'GET', '/api/v1/service-accounts', { token: adminToken });
    expect(after.body.find((a: { id: string }) => a.id === id).revoked_at).toEqual(expect.any(String));
    // Revoking again is harmless; an unknown id is 404.
    expect((await call(service.baseUrl, 'DELETE', `/api/v1/service-accounts/${id}`, { token: adminToken })).status).toBe(204);
    expect((await call(service.baseUrl, 'DELETE', '/api/v1/service-accounts/00000000-0000-4000-8000-000000000000', { token: adminToken })).status).toBe(404);
    expect((await call(service.baseUrl, 'DELETE', '/api/v1/service-accounts/not-a-uuid', { token: adminToken })).status).toBe(404);
  });

  it('answers 422 for a blank name', async () => {
    const res = await call(service.baseUrl, 'POST', '/api/v1/service-accounts', { token: adminToken, body: { name: '   ' } });
    expect(res.status).toBe(422);
  });
});

describe('verifyServiceAccountToken', () => {
  it('refuses user access tokens, unknown tokens and other shapes with 401 invalid_service_token', async () => {
    expect(await rejection(verifyServiceAccountToken(service.db, adminToken))).toBe('401 invalid_service_token');
    expect(await rejection(verifyServiceAccountToken(service.db, 'aor_sa_' + randomBytes(32).toString('base64url')))).toBe('401 invalid_service_token');
    expect(await rejection(verifyServiceAccountToken(service.db, ''))).toBe('401 invalid_service_token');
  });

  it('records last_used_at at most once a minute', async () => {
    const account = await createServiceAccount(service.db, 'throttled');
    await verifyServiceAccountToken(service.db, account.token);
    const lastUsed = async () => (await service.db.query('SELECT last_used_at FROM service_accounts WHERE id = $1', [account.id])).rows[0]!.last_used_at as Date | null;
    const first = await lastUsed();
    expect(first).toBeInstanceOf(Date);
    await new Promise((r) => setTimeout(r, 20));
    await verifyServiceAccountToken(service.db, account.token);
    expect((await lastUsed())!.getTime()).toBe(first!.getTime());
    await service.db.query("UPDATE service_accounts SET last_used_at = now() - interval '61 seconds' WHERE id = $1", [account.id]);
    await verifyServiceAccountToken(service.db, account.token);
    expect(Date.now() - (await lastUsed())!.getTime()).toBeLessThan(5_000);
  });

  it('the cached verifier answers from memory until its cache time has passed', async () => {
    const account = await createServiceAccount(service.db, 'cached');
    const verifier = createServiceAccountVerifier(service.db, { cacheMs: 300 });
    expect(await verifier.verify(account.token)).toEqual({ id: account.id, name: 'cached' });
    await call(service.baseUrl, 'DELETE', `/api/v1/service-accounts/${account.id}`, { token: adminToken });
    // Within the cache time the revocation is not seen yet (documented: up to 30 s by default).
    expect(await verifier.verify(account.token)).toEqual({ id: account.id, name: 'cached' });
    await new Promise((r) => setTimeout(r, 350));
    expect(await rejection(verifier.verify(account.token))).toBe('401 service_token_revoked');
    expect(await rejection(verifier.verify(memberToken))).toBe('401 invalid_service_token');
  });
});
