// Password hashing with scrypt (memory-hard, in Node's crypto, no native add-on). The stored
// form names its own parameters, `scrypt$N$r$p$salt$hash`, so raising the cost later still
// verifies old hashes (and `needsRehash` tells login to upgrade them).
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import type { FieldError } from '../errors.ts';

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 200;
const KEY_BYTES = 32;
const SALT_BYTES = 16;
const R = 8;
const P = 1;
// A stored hash is trusted data, but bounds keep a corrupted row from exhausting memory.
const MAX_LOG2_N = 20;
const MAX_R = 32;
const MAX_P = 16;

function scrypt(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  // Node's default maxmem (32 MiB) is too small for N = 2^15, r = 8; the need is 128 * N * r.
  const options: ScryptOptions = { N: n, r, p, maxmem: 256 * n * r + 1024 * 1024 };
  return new Promise((resolve, reject) => {
    scryptCallback(password, salt, KEY_BYTES, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/**
 * Equivalent spellings of one password (composed vs decomposed accents, full-width digits) must
 * hash alike, whatever keyboard typed them: NFKC, as NIST SP 800-63B suggests.
 */
function normalise(password: string): string {
  return password.normalize('NFKC');
}

/** `cost` is log2(N): 15 in production (32 MiB, ~0.1 s), lower only in tests. */
export async function hashPassword(password: string, cost: number): Promise<string> {
  const n = 2 ** cost;
  const salt = randomBytes(SALT_BYTES);
  const key = await scrypt(normalise(password), salt, n, R, P);
  return `scrypt$${n}$${R}$${P}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

interface ParsedHash {
  n: number;
  r: number;
  p: number;
  salt: Buffer;
  key: Buffer;
}

function parseHash(stored: string): ParsedHash | undefined {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return undefined;
  const [n, r, p] = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
  const validN = Number.isInteger(n) && n >= 2 && n <= 2 ** MAX_LOG2_N && (n & (n - 1)) === 0;
  if (!validN || !Number.isInteger(r) || r < 1 || r > MAX_R || !Number.isInteger(p) || p < 1 || p > MAX_P) return undefined;
  const salt = Buffer.from(parts[4]!, 'base64url');
  const key = Buffer.from(parts[5]!, 'base64url');
  if (salt.length === 0 || key.length === 0) return undefined;
  return { n, r, p, salt, key };
}

/** Constant-time comparison of the derived key; false for a wrong password or an unreadable hash. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parseHash(stored);
  if (!parsed) return false;
  const derived = await scrypt(normalise(password), parsed.salt, parsed.n, parsed.r, parsed.p);
  return derived.length === parsed.key.length && timingSafeEqual(derived, parsed.key);
}

/** True when the stored hash was made with other parameters than the configured ones. */
export function needsRehash(stored: string, cost: number): boolean {
  const parsed = parseHash(stored);
  return !parsed || parsed.n !== 2 ** cost || parsed.r !== R || parsed.p !== P;
}

/** The password rules; [] when the password is acceptable. Lengths count characters, not bytes. */
export function passwordPolicyErrors(password: string, path = '/password'): FieldError[] {
  const length = [...normalise(password)].length;
  if (length < PASSWORD_MIN_LENGTH) return [{ path, message: `must be at least ${PASSWORD_MIN_LENGTH} characters` }];
  if (length > PASSWORD_MAX_LENGTH) return [{ path, message: `must be at most ${PASSWORD_MAX_LENGTH} characters` }];
  if (password.trim().length === 0) return [{ path, message: 'must not be only spaces' }];
  return [];
}

/** A temporary password for a provisioned account: 144 random bits, 24 URL-safe characters. */
export function generateTemporaryPassword(): string {
  return randomBytes(18).toString('base64url');
}
