// POST /auth/login, /auth/refresh, /auth/signup (public) and /auth/change-password (any valid
// access token, temporary-password tokens included). Decisions §3.
import { randomBytes } from 'node:crypto';
import { AppError, validationFailed, type FieldError } from '../../lib/errors.ts';
import { compile, readBody } from '../../lib/http/body.ts';
import { json, type HttpRequest, type Route } from '../../lib/http/types.ts';
import { hashPassword, needsRehash, passwordPolicyErrors, verifyPassword } from '../../lib/auth/passwords.ts';
import { createUser, findUserByEmail, findUserById, isTrialExpired, isValidEmail, setPasswordHash, type UserRecord } from '../../lib/auth/users.ts';
import { ChangePasswordBodySchema, LoginBodySchema, RefreshBodySchema, SignupBodySchema } from '../../schemas/auth.ts';
import type { ApiContext } from '../context.ts';
import { assertLoginAllowed, clearAccountFailures, DEFAULT_LOGIN_LIMITS, loginKeys, recordLoginFailure, type LoginLimits } from './login-limits.ts';
import { revokeUserRefreshTokens, rotateRefreshToken } from './refresh-tokens.ts';
import { invalidCredentials, sessionAnswer, trialExpired } from './session.ts';

export const TRIAL_DAYS = 14;
// Tokens must not linger in a proxy or browser cache.
const NO_STORE = { 'cache-control': 'no-store' };

const loginBody = compile(LoginBodySchema);
const refreshBody = compile(RefreshBodySchema);
const signupBody = compile(SignupBodySchema);
const changePasswordBody = compile(ChangePasswordBodySchema);

export function authRoutes(ctx: ApiContext, limits: LoginLimits = DEFAULT_LOGIN_LIMITS): Route[] {
  const { db, tokens, guard } = ctx;
  const cost = ctx.config.passwordHashCost;
  // An unknown username is checked against this hash, so it costs the same time as a wrong
  // password and the answer's timing does not tell which accounts exist.
  const dummyHash = hashPassword(randomBytes(16).toString('hex'), cost);
  dummyHash.catch(() => undefined);

  /** Verifies the password under the failure limits; returns the user or throws 401/429. */
  async function checkCredentials(request: HttpRequest, email: string, password: string, user: UserRecord | undefined): Promise<UserRecord> {
    const keys = loginKeys(email, request.remoteAddress);
    await assertLoginAllowed(db, keys);
    const ok = user ? await verifyPassword(password, user.password_hash) : await verifyPassword(password, await dummyHash).then(() => false);
    if (!ok || !user) {
      await recordLoginFailure(db, keys, limits);
      throw invalidCredentials();
    }
    await clearAccountFailures(db, keys);
    return user;
  }

  const login: Route = {
    method: 'POST',
    pattern: '/auth/login',
    async handler(request) {
      const body = readBody(request, loginBody);
      const user = await checkCredentials(request, body.username, body.password, await findUserByEmail(db, body.username));
      if (isTrialExpired(user)) throw trialExpired();
      // Hashes made with a lower cost than configured are upgraded while the password is at hand.
      if (needsRehash(user.password_hash, cost)) {
        await setPasswordHash(db, user.id, await hashPassword(body.password, cost), user.password_change_required);
      }
      return json(200, await sessionAnswer(db, tokens, user), NO_STORE);
    },
  };

  const refresh: Route = {
    method: 'POST',
    pattern: '/auth/refresh',
    async handler(request) {
      const body = readBody(request, refreshBody);
      const rotated = await rotateRefreshToken(db, body.refresh_token);
      const user = await findUserById(db, rotated.userId);
      if (!user) throw new AppError({ code: 'invalid_refresh_token', status: 401, detail: 'The account no longer exists.' });
      if (isTrialExpired(user)) throw trialExpired();
      return json(200, await sessionAnswer(db, tokens, user, rotated.refreshToken), NO_STORE);
    },
  };

  const signup: Route = {
    method: 'POST',
    pattern: '/auth/signup',
    async handler(request) {
      const { rows } = await db.query<{ signup_enabled: boolean }>('SELECT signup_enabled FROM instance_settings WHERE id = 1');
      if (!rows[0]?.signup_enabled) {
        throw new AppError({ code: 'signup_disabled', status: 403, detail: 'Self-signup is turned off on this instance; ask an admin for an account.' });
      }
      const body = readBody(request, signupBody);
      const errors: FieldError[] = [];
      if (!isValidEmail(body.email.trim())) errors.push({ path: '/email', message: 'must be an email address' });
      errors.push(...passwordPolicyErrors(body.password, '/password'));
      if (body.name.trim() === '') errors.push({ path: '/name', message: 'must not be blank' });
      if (errors.length > 0) throw validationFailed(errors);
      const trialExpiresAt = new Date(Date.now() + TRIAL_DAYS * 86_400_000);
      const user = await createUser(db, { email: body.email, name: body.name.trim(), password: body.password, role: 'member', trialExpiresAt }, cost);
      return json(201, { ...(await sessionAnswer(db, tokens, user)), trial_expires_at: trialExpiresAt.toISOString() }, NO_STORE);
    },
  };

  const changePassword: Route = {
    method: 'POST',
    pattern: '/auth/change-password',
    async handler(request) {
      const principal = await guard.anyToken(request);
      const body = readBody(request, changePasswordBody);
      const user = await findUserById(db, principal.userId);
      if (!user) throw new AppError({ code: 'invalid_token', status: 401, detail: 'The account of this access token no longer exists.' });
      const keys = loginKeys(user.email, request.remoteAddress);
      await assertLoginAllowed(db, keys);
      if (!(await verifyPassword(body.current_password, user.password_hash))) {
        // A stolen access token must not become a way to guess the password: same limits as login.
        await recordLoginFailure(db, keys, limits);
        throw new AppError({ code: 'invalid_current_password', status: 403, detail: 'current_password is not the password of this account.' });
      }
      const policy = passwordPolicyErrors(body.new_password, '/new_password');
      if (policy.length > 0) throw validationFailed(policy);
      if (body.new_password.normalize('NFKC') === body.current_password.normalize('NFKC')) {
        throw new AppError({
          code: 'password_unchanged',
          status: 422,
          detail: 'new_password must differ from current_password.',
          errors: [{ path: '/new_password', message: 'must differ from current_password' }],
        });
      }
      const hash = await hashPassword(body.new_password, cost);
      // Every earlier session ends: whoever knew the old password loses its refresh tokens.
      await db.transaction(async (client) => {
        await setPasswordHash(client, user.id, hash, false);
        await revokeUserRefreshTokens(client, user.id);
      });
      return json(200, await sessionAnswer(db, tokens, { ...user, password_change_required: false }), NO_STORE);
    },
  };

  return [login, refresh, signup, changePassword];
}
