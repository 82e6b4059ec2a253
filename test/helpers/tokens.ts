// Access tokens for tests of Bearer routes: a real user row and a token signed with the
// instance's own secret, exactly as login would issue it.
import { randomBytes } from 'node:crypto';
import { createAccessTokens, type UserRole } from '../../api/auth/access-tokens.ts';
import { readJwtSecret } from '../../lib/instance-settings.ts';
import type { Database } from '../../lib/postgres/database.ts';

export async function tokenFor(db: Database, role: UserRole): Promise<string> {
  const email = `${role}-${randomBytes(4).toString('hex')}@example.test`;
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO users (email, name, password_hash, role) VALUES ($1, $1, 'not-a-login', $2) RETURNING id::text AS id`,
    [email, role],
  );
  const tokens = createAccessTokens(await readJwtSecret(db));
  return tokens.issue({ userId: rows[0]!.id, role, passwordChangeOnly: false });
}
