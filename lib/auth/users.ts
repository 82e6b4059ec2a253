// User accounts in PostgreSQL: creation (signup, the setup script, tests), look-ups for login,
// and password changes. Emails are unique case-insensitively (index on lower(email)).
import { AppError } from '../errors.ts';
import type { Queryable } from '../postgres/database.ts';
import { hashPassword } from './passwords.ts';

export type UserRole = 'admin' | 'member';

export interface UserRecord {
  id: string;
  email: string;
  name: string | null;
  role: UserRole;
  password_hash: string;
  password_change_required: boolean;
  trial_expires_at: Date | null;
  created_at: Date;
}

export interface NewUser {
  email: string;
  name?: string | null;
  password: string;
  role: UserRole;
  passwordChangeRequired?: boolean;
  trialExpiresAt?: Date | null;
}

const EMAIL_PATTERN = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

export function isValidEmail(value: string): boolean {
  return value.length <= 254 && EMAIL_PATTERN.test(value);
}

const COLUMNS = 'id, email, name, role, password_hash, password_change_required, trial_expires_at, created_at';

/** Creates a user; 409 `email_taken` when the email is in use (in any letter case). */
export async function createUser(db: Queryable, user: NewUser, hashCost: number): Promise<UserRecord> {
  const passwordHash = await hashPassword(user.password, hashCost);
  try {
    const { rows } = await db.query<UserRecord>(
      `INSERT INTO users (email, name, password_hash, role, password_change_required, trial_expires_at)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
      [user.email.trim(), user.name ?? null, passwordHash, user.role, user.passwordChangeRequired ?? false, user.trialExpiresAt ?? null],
    );
    return rows[0]!;
  } catch (error) {
    if ((error as { code?: string }).code === '23505') {
      throw new AppError({ code: 'email_taken', status: 409, detail: 'An account with this email already exists.' });
    }
    throw error;
  }
}

export async function findUserByEmail(db: Queryable, email: string): Promise<UserRecord | undefined> {
  const { rows } = await db.query<UserRecord>(`SELECT ${COLUMNS} FROM users WHERE lower(email) = lower($1)`, [email.trim()]);
  return rows[0];
}

export async function findUserById(db: Queryable, id: string): Promise<UserRecord | undefined> {
  const { rows } = await db.query<UserRecord>(`SELECT ${COLUMNS} FROM users WHERE id = $1`, [id]);
  return rows[0];
}

/** Stores a new hash; `passwordChangeRequired` false clears the temporary-password gate. */
export async function setPasswordHash(db: Queryable, userId: string, passwordHash: string, passwordChangeRequired: boolean): Promise<void> {
  await db.query('UPDATE users SET password_hash = $2, password_change_required = $3, updated_at = now() WHERE id = $1', [
    userId,
    passwordHash,
    passwordChangeRequired,
  ]);
}

export function isTrialExpired(user: Pick<UserRecord, 'trial_expires_at'>, now = new Date()): boolean {
  return user.trial_expires_at !== null && user.trial_expires_at.getTime() <= now.getTime();
}
