// Opaque refresh tokens: 32 random bytes, kept only as SHA-256 digests (a 256-bit random token
// needs no slow hash). Each refresh rotates the token; a family is one sign-in's chain of
// rotations. Presenting a token that was already rotated means two parties hold the chain (one
// of them a thief), so the whole family is revoked and both must sign in again.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { AppError } from '../../lib/errors.ts';
import type { Database, Queryable } from '../../lib/postgres/database.ts';

export const REFRESH_TOKEN_DAYS = 30;

export const hashRefreshToken = (token: string): Buffer => createHash('sha256').update(token).digest();

/** Stores a new token of `familyId` (a new family when absent) and returns it in clear, once. */
export async function issueRefreshToken(db: Queryable, userId: string, familyId?: string): Promise<string> {
  if (!familyId) {
    // A new sign-in sweeps the user's expired tokens, so the table does not grow without bound.
    await db.query('DELETE FROM refresh_tokens WHERE user_id = $1 AND expires_at <= now()', [userId]);
    familyId = randomUUID();
  }
  const token = randomBytes(32).toString('base64url');
  await db.query(
    `INSERT INTO refresh_tokens (user_id, family_id, token_hash, expires_at)
     VALUES ($1, $2, $3, now() + make_interval(days => $4))`,
    [userId, familyId, hashRefreshToken(token), REFRESH_TOKEN_DAYS],
  );
  return token;
}

const invalid = (detail: string) => new AppError({ code: 'invalid_refresh_token', status: 401, detail });

/**
 * Rotates `token`: marks it rotated and issues its successor in the same family, in one
 * transaction. The conditional UPDATE is the race guard: of two concurrent refreshes with one
 * token, exactly one sees its row; the other is treated as reuse.
 */
export async function rotateRefreshToken(db: Database, token: string): Promise<{ userId: string; refreshToken: string }> {
  const hash = hashRefreshToken(token);
  const rotated = await db.transaction(async (client) => {
    const { rows } = await client.query<{ user_id: string; family_id: string }>(
      `UPDATE refresh_tokens SET rotated_at = now()
        WHERE token_hash = $1 AND rotated_at IS NULL AND revoked_at IS NULL AND expires_at > now()
        RETURNING user_id, family_id`,
      [hash],
    );
    const row = rows[0];
    if (!row) return undefined;
    return { userId: row.user_id, refreshToken: await issueRefreshToken(client, row.user_id, row.family_id) };
  });
  if (rotated) return rotated;
  await explainRefusal(db, hash);
  throw invalid('The refresh token is unknown.');
}

/** Throws the reason a token cannot be rotated, revoking its family when it is a reuse. */
async function explainRefusal(db: Database, hash: Buffer): Promise<void> {
  const { rows } = await db.query<{ family_id: string; rotated_at: Date | null; revoked_at: Date | null; expired: boolean }>(
    'SELECT family_id, rotated_at, revoked_at, expires_at <= now() AS expired FROM refresh_tokens WHERE token_hash = $1',
    [hash],
  );
  const row = rows[0];
  if (!row) return;
  if (row.rotated_at) {
    await revokeFamily(db, row.family_id);
    throw new AppError({
      code: 'refresh_token_reused',
      status: 401,
      detail: 'This refresh token was already used; every session of its sign-in is revoked. Sign in again.',
    });
  }
  if (row.revoked_at) throw invalid('The refresh token was revoked. Sign in again.');
  if (row.expired) throw invalid('The refresh token has expired. Sign in again.');
}

export async function revokeFamily(db: Queryable, familyId: string): Promise<void> {
  await db.query('UPDATE refresh_tokens SET revoked_at = now() WHERE family_id = $1 AND revoked_at IS NULL', [familyId]);
}

/** Signs the user out everywhere (after a password change). */
export async function revokeUserRefreshTokens(db: Queryable, userId: string): Promise<void> {
  await db.query('UPDATE refresh_tokens SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL', [userId]);
}
