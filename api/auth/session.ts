// The answer every sign-in path gives (login, refresh, signup, change-password): one shape, so a
// client handles them alike. A temporary password yields an access token that opens only
// POST /auth/change-password, flagged by `password_change_required: true`.
import { AppError } from '../../lib/errors.ts';
import type { Queryable } from '../../lib/postgres/database.ts';
import type { UserRecord } from '../../lib/auth/users.ts';
import type { TokenAnswer } from '../../schemas/auth.ts';
import { ACCESS_TOKEN_SECONDS, type AccessTokens } from './access-tokens.ts';
import { issueRefreshToken } from './refresh-tokens.ts';

type SessionUser = Pick<UserRecord, 'id' | 'role' | 'password_change_required'>;

/** Issues an access token, and a refresh token of a new family unless `refreshToken` is given. */
export async function sessionAnswer(db: Queryable, tokens: AccessTokens, user: SessionUser, refreshToken?: string): Promise<TokenAnswer> {
  const passwordChangeOnly = user.password_change_required;
  const accessToken = await tokens.issue({ userId: user.id, role: user.role, passwordChangeOnly });
  const answer: TokenAnswer = {
    access_token: accessToken,
    refresh_token: refreshToken ?? (await issueRefreshToken(db, user.id)),
    token_type: 'bearer',
    expires_in: ACCESS_TOKEN_SECONDS,
  };
  if (passwordChangeOnly) answer.password_change_required = true;
  return answer;
}

export const invalidCredentials = (): AppError =>
  new AppError({ code: 'invalid_credentials', status: 401, detail: 'The username or password is wrong.' });

export const trialExpired = (): AppError =>
  new AppError({ code: 'trial_expired', status: 403, detail: 'The trial of this account has ended. Ask an admin of the instance for an account.' });
