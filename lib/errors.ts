// One error type for every tier. `code` is stable and machine-readable, `status` is the HTTP
// status it maps to, `retryable` tells callers (and our own retry loops) whether trying again
// can succeed. Retries read `retryable`, never message text.

export interface FieldError {
  path: string;
  message: string;
}

export interface AppErrorOptions {
  code: string;
  status: number;
  title?: string;
  detail?: string;
  retryable?: boolean;
  errors?: FieldError[];
  /** Seconds; sent as Retry-After on 429 and 503. */
  retryAfterSeconds?: number;
  cause?: unknown;
}

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export class AppError extends Error {
  readonly code: string;
  readonly status: number;
  readonly title: string;
  readonly detail: string;
  readonly retryable: boolean;
  readonly errors?: FieldError[];
  readonly retryAfterSeconds?: number;

  constructor(options: AppErrorOptions) {
    super(options.detail ?? options.code, { cause: options.cause });
    this.name = 'AppError';
    this.code = options.code;
    this.status = options.status;
    this.title = options.title ?? TITLES[options.status] ?? 'Error';
    this.detail = options.detail ?? this.title;
    this.retryable = options.retryable ?? (options.status === 429 || options.status === 503);
    this.errors = options.errors;
    this.retryAfterSeconds = options.retryAfterSeconds ?? (this.retryable ? 1 : undefined);
  }
}

export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  errors?: FieldError[];
  request_id?: string;
}

/** RFC 9457 body. `type` points into our docs (a URN, so it never points at a page that may not exist). */
export function toProblem(error: AppError, requestId?: string): ProblemDetails {
  const problem: ProblemDetails = {
    type: `urn:agent-ops-registry:problem:${error.code}`,
    title: error.title,
    status: error.status,
    detail: error.detail,
    code: error.code,
  };
  if (error.errors) problem.errors = error.errors;
  if (requestId) problem.request_id = requestId;
  return problem;
}

/** Anything that is not an AppError is a bug or an outage: answer 500 without its text. */
export function asAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  return new AppError({ code: 'internal_error', status: 500, detail: 'An unexpected error occurred.', cause: error });
}

export const unavailable = (what: string, cause?: unknown): AppError =>
  new AppError({ code: 'store_unavailable', status: 503, detail: `${what} is unavailable; retry later.`, retryAfterSeconds: 5, cause });

export const notFound = (what: string): AppError =>
  new AppError({ code: 'not_found', status: 404, detail: `${what} was not found.` });

export const validationFailed = (errors: FieldError[], status = 422): AppError =>
  new AppError({ code: 'validation_failed', status, detail: 'The request body breaks one or more field rules.', errors });

export const badRequest = (code: string, detail: string, errors?: FieldError[]): AppError =>
  new AppError({ code, status: 400, detail, errors });
