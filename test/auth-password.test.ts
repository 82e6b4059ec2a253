// The temporary-password gate with POST /auth/change-password, and POST /auth/signup.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../lib/auth/users.ts';
import { call, startTestService, type TestService } from './helpers/service.ts';

const TEMPORARY = 'temporary-password-1';
const CHOSEN = 'my own long passphrase';
let service: TestService;

beforeAll(async () => {
  service = await startTestService();
  await createUser(service.db, { email: 'first-admin@example.com', password: TEMPORARY, role: 'admin', passwordChangeRequired: true }, 10);
});
afterAll(async () => {
  await service?.stop();
});

const login = (username: string, password: string) => call(service.baseUrl, 'POST', '/auth/login', { body: { username, password } });
const changePassword = (token: string, current_password: string, new_password: string) =>
  call(service.baseUrl, 'POST', '/auth/change-password', { token, body: { current_password, new_password } });
const guarded = (token: string) => call(service.baseUrl, 'GET', '/api/v1/service-accounts', { token });

describe('temporary password', () => {
  it('gates every Bearer route until the password is changed', async () => {
    const first = await login('first-admin@example.com', TEMPORARY);
    expect(first.status).toBe(200);
    expect(first.body.password_change_required).toBe(true);
    const temporaryToken = first.body.access_token as string;

    const gated = await guarded(temporaryToken);
    expect(gated.status).toBe(403);
    expect(gated.body.code).toBe('password_change_required');

    const wrong = await changePassword(temporaryToken, 'not-the-temporary-one', CHOSEN);
    expect(wrong.status).toBe(403);
    expect(wrong.body.code).toBe('invalid_current_password');
    const same = await changePassword(temporaryToken, TEMPORARY, TEMPORARY);
    expect(same.status).toBe(422);
    expect(same.body.code).toBe('password_unchanged');
    const short = await changePassword(temporaryToken, TEMPORARY, 'too short');
    expect(short.status).toBe(422);
    expect(short.body.errors).toEqual([{ path: '/new_password', message: 'must be at least 12 characters' }]);

    const changed = await changePassword(temporaryToken, TEMPORARY, CHOSEN);
    expect(changed.status).toBe(200);
    expect(changed.body).toEqual({ access_token: expect.any(String), refresh_token: expect.any(String), token_type: 'bearer', expires_in: 3600 });
    expect((await guarded(changed.body.access_token)).status).toBe(200);

    // Sessions of the temporary password are over; the new password signs in without the gate.
    expect((await call(service.baseUrl, 'POST', '/auth/refresh', { body: { refresh_token: first.body.refresh_token } })).status).toBe(401);
    expect((await login('first-admin@example.com', TEMPORARY)).status).toBe(401);
    const again = await login('first-admin@example.com', CHOSEN);
    expect(again.status).toBe(200);
    expect(again.body.password_change_required).toBeUndefined();
    expect((await guarded(again.body.access_token)).status).toBe(200);
    // The refresh token from change-password keeps working.
    expect((await call(service.baseUrl, 'POST', '/auth/refresh', { body: { refresh_token: changed.body.refresh_token } })).status).toBe(200);
  });

  it('refuses change-password without a token', async () => {
    const res = await call(service.baseUrl, 'POST', '/auth/change-password', { body: { current_password: CHOSEN, new_password: 'another long passphrase' } });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('missing_token');
  });
});

describe('POST /auth/signup', () => {
  const body = { email: 'newcomer@example.com', password: 'a fine long password', name: 'New Comer' };

  it('answers 403 signup_disabled while the instance does not allow self-signup', async () => {
    await service.db.query('UPDATE instance_settings SET signup_enabled = false');
    const res = await call(service.baseUrl, 'POST', '/auth/signup', { body });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('signup_disabled');
    const { rows } = await service.db.query("SELECT 1 FROM users WHERE email = 'newcomer@example.com'");
    expect(rows).toHaveLength(0);
  });

  it('creates a 14-day trial member when enabled, with the login shape', async () => {
    await service.db.query('UPDATE instance_settings SET signup_enabled = true');
    const res = await call(service.baseUrl, 'POST', '/auth/signup', { body });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ access_token: expect.any(String), refresh_token: expect.any(String), token_type: 'bearer', expires_in: 3600 });
    const days = (Date.parse(res.body.trial_expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(13.99);
    expect(days).toBeLessThanOrEqual(14);
    const { rows } = await service.db.query("SELECT role, name, trial_expires_at FROM users WHERE email = 'newcomer@example.com'");
    expect(rows[0]).toMatchObject({ role: 'member', name: 'New Comer' });
    expect(new Date(rows[0]!.trial_expires_at).toISOString()).toBe(res.body.trial_expires_at);
    // A member: signed in, but not an admin.
    expect((await guarded(res.body.access_token)).body.code).toBe('admin_required');
    expect((await login('newcomer@example.com', body.password)).status).toBe(200);
  });

  it('answers 409 email_taken for an email in use, in any letter case', async () => {
    const res = await call(service.baseUrl, 'POST', '/auth/signup', { body: { ...body, email: 'NEWCOMER@example.com' } });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('email_taken');
  });

  it('answers 422 naming each broken rule', async () => {
    const res = await call(service.baseUrl, 'POST', '/auth/signup', { body: { email: 'not-an-email', password: 'short', name: 'X' } });
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['/email', '/password']);
  });

  it('refuses login and refresh once the trial has ended', async () => {
    const signup = await call(service.baseUrl, 'POST', '/auth/signup', { body: { ...body, email: 'short-trial@example.com' } });
    expect(signup.status).toBe(201);
    await service.db.query("UPDATE users SET trial_expires_at = now() - interval '1 minute' WHERE email = 'short-trial@example.com'");
    const loginRes = await login('short-trial@example.com', body.password);
    expect(loginRes.status).toBe(403);
    expect(loginRes.body.code).toBe('trial_expired');
    const refreshRes = await call(service.baseUrl, 'POST', '/auth/refresh', { body: { refresh_token: signup.body.refresh_token } });
    expect(refreshRes.status).toBe(403);
    expect(refreshRes.body.code).toBe('trial_expired');
  });
});
