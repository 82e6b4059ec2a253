// Pure password logic: the scrypt hash format, verification, rehash detection and the policy.
import { describe, expect, it } from 'vitest';
import { generateTemporaryPassword, hashPassword, needsRehash, passwordPolicyErrors, verifyPassword } from '../lib/auth/passwords.ts';

describe('password hashing', () => {
  it('verifies the right password and refuses a wrong one', async () => {
    const stored = await hashPassword('the right password', 10);
    expect(stored).toMatch(/^scrypt\$1024\$8\$1\$/);
    expect(await verifyPassword('the right password', stored)).toBe(true);
    expect(await verifyPassword('the right passworD', stored)).toBe(false);
    expect(await verifyPassword('', stored)).toBe(false);
  });

  it('salts every hash', async () => {
    expect(await hashPassword('same password here', 10)).not.toBe(await hashPassword('same password here', 10));
  });

  it('hashes the production cost with N = 2^15 (above Node default scrypt memory limit)', async () => {
    const stored = await hashPassword('production cost pw', 15);
    expect(stored.startsWith('scrypt$32768$8$1$')).toBe(true);
    expect(await verifyPassword('production cost pw', stored)).toBe(true);
  });

  it('treats equivalent Unicode spellings as one password', async () => {
    const composed = 'caf\u00e9 au lait pass';
    const decomposed = 'cafe\u0301 au lait pass';
    expect(await verifyPassword(decomposed, await hashPassword(composed, 10))).toBe(true);
  });

  it('refuses unreadable or absurd stored hashes instead of throwing', async () => {
    expect(await verifyPassword('x', 'bcrypt$whatever')).toBe(false);
    expect(await verifyPassword('x', 'scrypt$1000$8$1$c2FsdA$a2V5')).toBe(false);
    expect(await verifyPassword('x', `scrypt$${2 ** 30}$8$1$c2FsdA$a2V5`)).toBe(false);
  });

  it('asks for a rehash when the cost differs from the configured one', async () => {
    const stored = await hashPassword('some password 123', 10);
    expect(needsRehash(stored, 10)).toBe(false);
    expect(needsRehash(stored, 11)).toBe(true);
    expect(needsRehash('garbage', 10)).toBe(true);
  });
});

describe('password policy', () => {
  it('wants 12 to 200 characters, counted as characters not bytes', () => {
    expect(passwordPolicyErrors('elevenchars')).toEqual([{ path: '/password', message: 'must be at least 12 characters' }]);
    expect(passwordPolicyErrors('twelve chars')).toEqual([]);
    expect(passwordPolicyErrors('\u{1F600}'.repeat(12))).toEqual([]);
    expect(passwordPolicyErrors('x'.repeat(200))).toEqual([]);
    expect(passwordPolicyErrors('x'.repeat(201), '/new_password')).toEqual([{ path: '/new_password', message: 'must be at most 200 characters' }]);
    expect(passwordPolicyErrors(' '.repeat(12))).toHaveLength(1);
  });

  it('generates temporary passwords that pass the policy and differ', () => {
    const a = generateTemporaryPassword();
    expect(passwordPolicyErrors(a)).toEqual([]);
    expect(a).not.toBe(generateTemporaryPassword());
  });
});
