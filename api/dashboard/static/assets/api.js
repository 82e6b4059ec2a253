// The dashboard's client of the Bearer API. Tokens live in sessionStorage (gone when the tab
// closes). An access token that expired is renewed once with /auth/refresh and the call
// retried; concurrent calls share that one refresh, because every refresh rotates the refresh
// token and presenting a rotated one revokes the whole session.

const ACCESS = 'aor.access_token';
const REFRESH = 'aor.refresh_token';
const CHANGE_REQUIRED = 'aor.password_change_required';

/** A problem+json answer (or a network failure, status 0) as an Error. */
export class ApiError extends Error {
  constructor(status, problem) {
    super(problem?.detail ?? `HTTP ${status}`);
    this.status = status;
    this.code = problem?.code ?? 'http_error';
    this.detail = problem?.detail ?? `The service answered HTTP ${status}.`;
    this.errors = Array.isArray(problem?.errors) ? problem.errors : [];
  }
}

async function send(method, path, { body, token } = {}) {
  const headers = { accept: 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response;
  try {
    response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'omit', cache: 'no-store' });
  } catch {
    throw new ApiError(0, { code: 'network_error', detail: 'The service could not be reached. Check the connection and try again.' });
  }
  const text = await response.text();
  let parsed;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!response.ok) throw new ApiError(response.status, parsed);
  return parsed;
}

/**
 * onSignedOut(error) runs when the session cannot continue (refresh refused, token invalid);
 * onChangeRequired() when the service says the password must be changed first.
 */
export function createApi({ storage = window.sessionStorage, onSignedOut = () => {}, onChangeRequired = () => {} } = {}) {
  let refreshing = null;

  const session = {
    get accessToken() {
      return storage.getItem(ACCESS);
    },
    get active() {
      return Boolean(storage.getItem(ACCESS));
    },
    get passwordChangeRequired() {
      return storage.getItem(CHANGE_REQUIRED) === 'true';
    },
    save(answer) {
      storage.setItem(ACCESS, answer.access_token);
      storage.setItem(REFRESH, answer.refresh_token);
      if (answer.password_change_required) storage.setItem(CHANGE_REQUIRED, 'true');
      else storage.removeItem(CHANGE_REQUIRED);
    },
    clear() {
      for (const key of [ACCESS, REFRESH, CHANGE_REQUIRED]) storage.removeItem(key);
    },
  };

  function refresh() {
    refreshing ??= (async () => {
      try {
        const refreshToken = storage.getItem(REFRESH);
        if (!refreshToken) throw new ApiError(401, { code: 'invalid_refresh_token', detail: 'Your session has ended. Log in again.' });
        session.save(await send('POST', '/auth/refresh', { body: { refresh_token: refreshToken } }));
      } finally {
        refreshing = null;
      }
    })();
    return refreshing;
  }

  function signOut(error) {
    session.clear();
    onSignedOut(error);
  }

  async function authorised(method, path, body) {
    const used = session.accessToken;
    try {
      return await send(method, path, { body, token: used });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (error.status === 401 && error.code === 'token_expired') {
        try {
          // Another call may have refreshed meanwhile: then its new token is enough.
          if (session.accessToken === used) await (refreshing ?? refresh());
        } catch (refreshError) {
          signOut(refreshError);
          throw refreshError;
        }
        return send(method, path, { body, token: session.accessToken });
      }
      if (error.status === 401) signOut(error);
      if (error.status === 403 && error.code === 'password_change_required') onChangeRequired();
      throw error;
    }
  }

  return {
    session,
    get: (path) => authorised('GET', path),
    async login(username, password) {
      const answer = await send('POST', '/auth/login', { body: { username, password } });
      session.save(answer);
      return answer;
    },
    async changePassword(currentPassword, newPassword) {
      const answer = await authorised('POST', '/auth/change-password', { current_password: currentPassword, new_password: newPassword });
      session.save(answer);
      return answer;
    },
    logout() {
      session.clear();
    },
  };
}

/** A query string from an object, leaving out empty values. */
export function query(params) {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '' && value !== false) search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}
