// Service-account tokens for OpenTelemetry exporters (decisions §3): `aor_sa_` + 32 random
// bytes (base64url), shown once, stored as SHA-256 (a 256-bit random secret needs no slow
// hash), revocable. Issued by admins through the API and by the setup script; they open only
// the telemetry endpoints, and only tokens of this shape that exist in the table pass.
import { createHash, randomBytes } from 'node:crypto';
import { AppError } from '../errors.ts';
import type { Queryable } from '../postgres/database.ts';
import type { CreatedServiceAccount, ServiceAccount } from '../../schemas/service-accounts.ts';

export const SERVICE_TOKEN_PREFIX = 'aor_sa_';
const TOKEN_PATTERN = /^aor_sa_[A-Za-z0-9_-]{43}$/;
/** Prefix + 6 characters: enough to tell tokens apart in a list, far too little to guess one. */
const SHOWN_PREFIX_LENGTH = SERVICE_TOKEN_PREFIX.length + 6;
/** last_used_at is written at most this often per account, so a busy exporter costs no writes. */
const TOUCH_INTERVAL_SECONDS = 60;

export interface ServiceAccountIdentity {
  id: string;
  name: string;
}

const hashToken = (token: string): Buffer => createHash('sha256').update(token).digest();
const iso = (value: Date | null): string | null => (value ? value.toISOString() : null);

export async function createServiceAccount(db: Queryable, name: string, createdBy: string | null = null): Promise<CreatedServiceAccount> {
  const token = SERVICE_TOKEN_PREFIX + randomBytes(32).toString('base64url');
  const { rows } = await db.query<{ id: string; name: string; token_prefix: string; created_at: Date }>(
    `INSERT INTO service_accounts (name, token_hash, token_prefix, created_by)
     VALUES ($1, $2, $3, $4) RETURNING id, name, token_prefix, created_at`,
    [name.trim(), hashToken(token), token.slice(0, SHOWN_PREFIX_LENGTH), createdBy],
  );
  const row = rows[0]!;
  return { id: row.id, name: row.name, token, token_prefix: row.token_prefix, created_at: row.created_at.toISOString() };
}

/** Every service account, newest first, revoked ones included; never the tokens. */
export async function listServiceAccounts(db: Queryable): Promise<ServiceAccount[]> {
  const { rows } = await db.query<{ id: string; name: string; token_prefix: string; created_at: Date; last_used_at: Date | null; revoked_at: Date | null }>(
    'SELECT id, name, token_prefix, created_at, last_used_at, revoked_at FROM service_accounts ORDER BY created_at DESC, id',
  );
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    token_prefix: r.token_prefix,
    created_at: r.created_at.toISOString(),
    last_used_at: iso(r.last_used_at),
    revoked_at: iso(r.revoked_at),
  }));
}

/** Revokes the account; false when no account has this id. Revoking twice is not an error. */
export async function revokeServiceAccount(db: Queryable, id: string): Promise<boolean> {
  const { rowCount } = await db.query('UPDATE service_accounts SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1', [id]);
  return (rowCount ?? 0) > 0;
}

const invalidToken = () => new AppError({ code: 'invalid_service_token', status: 401, detail: 'The service-account token is invalid.' });

/**
 * One look-up, no cache: the account of `token`, or 401 `invalid_service_token` (unknown or not
 * a service token, user access tokens included) / `service_token_revoked`. Also records
 * last_used_at, throttled in the same statement (at most once a minute per account).
 */
export async function verifyServiceAccountToken(db: Queryable, token: string): Promise<ServiceAccountIdentity> {
  if (!TOKEN_PATTERN.test(token)) throw invalidToken();
  const { rows } = await db.query<{ id: string; name: string; revoked_at: Date | null }>(
    `WITH found AS (SELECT id, name, revoked_at, last_used_at FROM service_accounts WHERE token_hash = $1),
     touched AS (
       UPDATE service_accounts s SET last_used_at = now() FROM found
        WHERE s.id = found.id AND found.revoked_at IS NULL
          AND (found.last_used_at IS NULL OR found.last_used_at <= now() - make_interval(secs => $2))
        RETURNING s.id)
     SELECT id, name, revoked_at FROM found`,
    [hashToken(token), TOUCH_INTERVAL_SECONDS],
  );
  const row = rows[0];
  if (!row) throw invalidToken();
  if (row.revoked_at) {
    throw new AppError({ code: 'service_token_revoked', status: 401, detail: 'The service-account token was revoked.' });
  }
  return { id: row.id, name: row.name };
}

export interface ServiceAccountVerifier {
  verify(token: string): Promise<ServiceAccountIdentity>;
  /** Forgets every cached answer (tests, or right after a revocation in this process). */
  clear(): void;
}

export interface VerifierOptions {
  /** How long an answer (valid, unknown or revoked) is reused. Default 30 s. */
  cacheMs?: number;
  maxEntries?: number;
}

/**
 * The hot-path verifier for OTLP: answers are cached per token digest for `cacheMs`, so an
 * exporter sending many requests costs one database look-up per 30 s per process. The price:
 * a revocation takes effect within `cacheMs` (30 s by default). Concurrent first requests
 * with one token share one look-up. Database errors are not cached.
 */
export function createServiceAccountVerifier(db: Queryable, options: VerifierOptions = {}): ServiceAccountVerifier {
  const cacheMs = options.cacheMs ?? 30_000;
  const maxEntries = options.maxEntries ?? 10_000;
  const cache = new Map<string, { expiresAt: number; answer: Promise<ServiceAccountIdentity> }>();
  return {
    verify(token) {
      // Shape check first: garbage never touches the cache or the database.
      if (!TOKEN_PATTERN.test(token)) return Promise.reject(invalidToken());
      const key = hashToken(token).toString('base64');
      const now = Date.now();
      const hit = cache.get(key);
      if (hit && hit.expiresAt > now) return hit.answer;
      if (hit) cache.delete(key);
      if (cache.size >= maxEntries) cache.delete(cache.keys().next().value!);
      const answer = verifyServiceAccountToken(db, token);
      cache.set(key, { expiresAt: now + cacheMs, answer });
      answer.catch((error) => {
        if (!(error instanceof AppError && error.status === 401) && cache.get(key)?.answer === answer) cache.delete(key);
      });
      return answer;
    },
    clear: () => cache.clear(),
  };
}
