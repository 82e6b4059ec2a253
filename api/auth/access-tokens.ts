// Access tokens: HS256 JWTs signed with the instance's secret (kept in PostgreSQL so every api
// process of the instance verifies the same tokens). Only HS256 is accepted: `alg: none` and
// any other algorithm are refused by jose before the signature is looked at.
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import { AppError } from '../../lib/errors.ts';

export const ACCESS_TOKEN_SECONDS = 3600;
const ISSUER = 'agent-operations-registry';
const AUDIENCE = 'aor-api';

export type UserRole = 'admin' | 'member';

export interface Principal {
  userId: string;
  role: UserRole;
  /** True when the token only allows changing a temporary password. */
  passwordChangeOnly: boolean;
}

export interface AccessTokens {
  issue(principal: Principal, now?: Date): Promise<string>;
  verify(token: string): Promise<Principal>;
}

export function createAccessTokens(secret: Uint8Array): AccessTokens {
  return {
    async issue(principal, now = new Date()) {
      const issuedAt = Math.floor(now.getTime() / 1000);
      return new SignJWT({ role: principal.role, pwc: principal.passwordChangeOnly || undefined })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(principal.userId)
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setIssuedAt(issuedAt)
        .setExpirationTime(issuedAt + ACCESS_TOKEN_SECONDS)
        .sign(secret);
    },
    async verify(token) {
      try {
        const { payload } = await jwtVerify(token, secret, { algorithms: ['HS256'], issuer: ISSUER, audience: AUDIENCE });
        const role = payload.role;
        if (typeof payload.sub !== 'string' || (role !== 'admin' && role !== 'member')) throw new Error('bad claims');
        return { userId: payload.sub, role, passwordChangeOnly: payload.pwc === true };
      } catch (error) {
        const expired = error instanceof joseErrors.JWTExpired;
        throw new AppError({
          code: expired ? 'token_expired' : 'invalid_token',
          status: 401,
          detail: expired ? 'The access token has expired.' : 'The access token is invalid.',
        });
      }
    },
  };
}

/** Reads `Authorization: Bearer <token>`; 401 when absent or malformed. */
export function bearerToken(headers: Record<string, string>): string {
  const value = headers['authorization'];
  const match = value ? /^Bearer\s+(\S+)$/i.exec(value) : null;
  if (!match) {
    throw new AppError({ code: 'missing_token', status: 401, detail: 'Send an access token as "Authorization: Bearer <token>".' });
  }
  return match[1]!;
}
