// The gate of every Bearer route: a valid access token, the temporary-password gate, and
// (for admin routes) the role. Trial accounts past their expiry are refused by login and refresh.
import { AppError } from '../../lib/errors.ts';
import type { HttpRequest } from '../../lib/http/types.ts';
import { bearerToken, type AccessTokens, type Principal } from './access-tokens.ts';

export interface Guard {
  /** Any signed-in user whose password is not temporary. */
  user(request: HttpRequest): Promise<Principal>;
  admin(request: HttpRequest): Promise<Principal>;
  /** Also lets through a token that may only change a temporary password. */
  anyToken(request: HttpRequest): Promise<Principal>;
}

export function createGuard(tokens: AccessTokens): Guard {
  const user = async (request: HttpRequest) => {
    const principal = await tokens.verify(bearerToken(request.headers));
    if (principal.passwordChangeOnly) {
      throw new AppError({
        code: 'password_change_required',
        status: 403,
        detail: 'This account has a temporary password: change it with POST /auth/change-password first.',
      });
    }
    return principal;
  };
  return {
    user,
    async admin(request) {
      const principal = await user(request);
      if (principal.role !== 'admin') throw new AppError({ code: 'admin_required', status: 403, detail: 'Only admins may do this.' });
      return principal;
    },
    anyToken: (request) => tokens.verify(bearerToken(request.headers)),
  };
}
