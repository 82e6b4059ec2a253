// Failed-login limits per account and per client address, kept in PostgreSQL (login_failures)
// so that every api process of the instance counts the same failures. A key that reaches its
// limit within the window is locked for `lockSeconds`; while locked, attempts answer 429 with
// Retry-After before the password is even checked, so a locked account cannot be guessed at.
import { AppError } from '../../lib/errors.ts';
import type { Queryable } from '../../lib/postgres/database.ts';

export interface LoginLimits {
  accountFailures: number;
  addressFailures: number;
  windowSeconds: number;
  lockSeconds: number;
}

export const DEFAULT_LOGIN_LIMITS: LoginLimits = { accountFailures: 5, addressFailures: 20, windowSeconds: 15 * 60, lockSeconds: 15 * 60 };

export interface LoginKeys {
  account: string;
  address: string;
}

// The address is the TCP peer: behind a reverse proxy that is the proxy. X-Forwarded-For is not
// trusted, because any client could write it and escape the per-address limit.
export function loginKeys(email: string, remoteAddress: string): LoginKeys {
  return { account: `account:${email.trim().toLowerCase()}`, address: `address:${remoteAddress}` };
}

/** 429 `too_many_login_attempts` when either key is locked. */
export async function assertLoginAllowed(db: Queryable, keys: LoginKeys): Promise<void> {
  const { rows } = await db.query<{ wait: number }>(
    `SELECT ceil(extract(epoch FROM max(locked_until) - now()))::int AS wait
       FROM login_failures WHERE key = ANY($1) AND locked_until > now()`,
    [[keys.account, keys.address]],
  );
  const wait = rows[0]?.wait;
  if (wait !== null && wait !== undefined && wait > 0) {
    throw new AppError({
      code: 'too_many_login_attempts',
      status: 429,
      detail: `Too many failed sign-in attempts. Try again in ${wait} seconds.`,
      retryAfterSeconds: wait,
    });
  }
}

/** Counts one failure on each key; locks a key that reaches its limit within the window. */
export async function recordLoginFailure(db: Queryable, keys: LoginKeys, limits: LoginLimits = DEFAULT_LOGIN_LIMITS): Promise<void> {
  // One statement per key, atomic under concurrency: a window older than windowSeconds starts over.
  const sql = `
    INSERT INTO login_failures AS f (key, failures, window_started_at, locked_until)
    VALUES ($1, 1, now(), CASE WHEN $2 <= 1 THEN now() + make_interval(secs => $4) END)
    ON CONFLICT (key) DO UPDATE SET
      failures = CASE WHEN f.window_started_at <= now() - make_interval(secs => $3) THEN 1 ELSE f.failures + 1 END,
      window_started_at = CASE WHEN f.window_started_at <= now() - make_interval(secs => $3) THEN now() ELSE f.window_started_at END,
      locked_until = CASE
        WHEN (CASE WHEN f.window_started_at <= now() - make_interval(secs => $3) THEN 1 ELSE f.failures + 1 END) >= $2
          THEN now() + make_interval(secs => $4)
        ELSE f.locked_until END`;
  await db.query(sql, [keys.account, limits.accountFailures, limits.windowSeconds, limits.lockSeconds]);
  await db.query(sql, [keys.address, limits.addressFailures, limits.windowSeconds, limits.lockSeconds]);
  // Keys are chosen by clients (any username), so stale rows are swept now and then rather
  // than on every failure: a sweep scans the table.
  if (Math.random() < 0.02) {
    await db.query(
      `DELETE FROM login_failures
        WHERE window_started_at <= now() - make_interval(secs => $1) AND (locked_until IS NULL OR locked_until <= now())`,
      [limits.windowSeconds],
    );
  }
}

/** A successful sign-in forgives the account's failures (not the address's). */
export async function clearAccountFailures(db: Queryable, keys: LoginKeys): Promise<void> {
  await db.query('DELETE FROM login_failures WHERE key = $1', [keys.account]);
}
