// POST /auth/refresh: rotation on every refresh, and a reused token revoking its family.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../lib/auth/users.ts';
import { call, startTestService, type TestService } from './helpers/service.ts';

const PASSWORD = 'refresh me please';
let service: TestService;

beforeAll(async () => {
  service = await startTestService();
  await createUser(service.db, { email: 'admin@example.com', password: PASSWORD, role: 'admin' }, 10);
});
afterAll(async () => {
  await service?.stop();
});

const login = async () => {
  const res = await call(service.baseUrl, 'POST', '/auth/login', { body: { username: 'admin@example.com', password: PASSWORD } });
  expect(res.status).toBe(200);
  return res.body as { access_token: string; refresh_token: string };
};
const refresh = (token: string) => call(service.baseUrl, 'POST', '/auth/refresh', { body: { refresh_token: token } });

describe('POST /auth/refresh', () => {
  it('answers the login shape with a new refresh token and a working access token', async () => {
    const first = await login();
    const res = await refresh(first.refresh_token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ access_token: expect.any(String), refresh_token: expect.any(String), token_type: 'bearer', expires_in: 3600 });
    expect(res.body.refresh_token).not.toBe(first.refresh_token);
    expect((await call(service.baseUrl, 'GET', '/api/v1/service-accounts', { token: res.body.access_token })).status).toBe(200);
    // The next link of the chain works too.
    expect((await refresh(res.body.refresh_token)).status).toBe(200);
  });

  it('stores only a SHA-256 digest of the token', async () => {
    const { refresh_token } = await login();
    const digest = createHash('sha256').update(refresh_token).digest();
    const { rows } = await service.db.query('SELECT expires_at FROM refresh_tokens WHERE token_hash = $1', [digest]);
    expect(rows).toHaveLength(1);
    const days = (new Date(rows[0]!.expires_at).getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);
    const plain = await service.db.query("SELECT count(*)::int AS n FROM refresh_tokens WHERE encode(token_hash, 'escape') LIKE '%' || $1 || '%'", [refresh_token]);
    expect(plain.rows[0]!.n).toBe(0);
  });

  it('revokes the whole family when a rotated token is presented again', async () => {
    const first = await login();
    const other = await login();
    const second = (await refresh(first.refresh_token)).body.refresh_token as string;
    const third = (await refresh(second)).body.refresh_token as string;

    const reuse = await refresh(first.refresh_token);
    expect(reuse.status).toBe(401);
    expect(reuse.body.code).toBe('refresh_token_reused');
    expect(reuse.headers.get('content-type')).toBe('application/problem+json');

    // The newest token of the family, never used, now fails as well.
    const newest = await refresh(third);
    expect(newest.status).toBe(401);
    expect(newest.body.code).toBe('invalid_refresh_token');
    // Another sign-in (another family) is untouched.
    expect((await refresh(other.refresh_token)).status).toBe(200);
  });

  it('lets exactly one of two concurrent refreshes with one token win, and treats the other as reuse', async () => {
    const { refresh_token } = await login();
    const answers = await Promise.all([refresh(refresh_token), refresh(refresh_token), refresh(refresh_token)]);
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([200, 401, 401]);
    expect(answers.filter((a) => a.status === 401).every((a) => a.body.code === 'refresh_token_reused')).toBe(true);
    const winner = answers.find((a) => a.status === 200)!;
    expect((await refresh(winner.body.refresh_token)).status).toBe(401);
  });

  it('answers 401 invalid_refresh_token for an unknown or expired token', async () => {
    const unknown = await refresh('this-token-was-never-issued');
    expect(unknown.status).toBe(401);
    expect(unknown.body.code).toBe('invalid_refresh_token');

    const { refresh_token } = await login();
    const digest = createHash('sha256').update(refresh_token).digest();
    await service.db.query("UPDATE refresh_tokens SET expires_at = now() - interval '1 second' WHERE token_hash = $1", [digest]);
    const expired = await refresh(refresh_token);
    expect(expired.status).toBe(401);
    expect(expired.body.code).toBe('invalid_refresh_token');
  });

  it('answers 422 for a body without refresh_token', async () => {
    const res = await call(service.baseUrl, 'POST', '/auth/refresh', { body: {} });
    expect(res.status).toBe(422);
  });
});
