// Answers of the OTLP/HTTP endpoints, per the OTLP specification ("OTLP/HTTP Response"): the
// body uses the request's encoding; success is Export<signal>ServiceResponse, with
// partial_success only when something was rejected (or there is a warning); every 4xx/5xx body
// is a google.rpc.Status. Exporters parse these bodies, so the OTLP shape wins over our usual
// problem+json on these paths.
import protobuf from 'protobufjs/minimal.js';
import type { AppError } from '../errors.ts';
import { OTLP_CONTENT_TYPES, type OtlpFormat } from './decode-body.ts';

export type OtlpSignal = 'traces' | 'metrics' | 'logs';

export interface OtlpAnswer {
  status: number;
  contentType: string;
  body: Buffer;
  /** Extra headers to send (Retry-After on 429/503). */
  headers: Record<string, string>;
}

export interface PartialSuccess {
  /** Items rejected: rejected_spans, rejected_data_points or rejected_log_records. */
  rejected: number;
  errorMessage?: string;
}

/** JSON names of ExportXPartialSuccess.rejected_<signal> (field 1 in every signal). */
const REJECTED_FIELD: Record<OtlpSignal, string> = {
  traces: 'rejectedSpans',
  metrics: 'rejectedDataPoints',
  logs: 'rejectedLogRecords',
};

/**
 * 200 answer for an export. `partial` is written only when it carries something (rejected > 0
 * or a message): the spec says leave partial_success unset on full success.
 */
export function exportSuccess(signal: OtlpSignal, format: OtlpFormat, partial?: PartialSuccess): OtlpAnswer {
  const rejected = Math.max(0, Math.trunc(partial?.rejected ?? 0));
  const message = partial?.errorMessage ?? '';
  const present = rejected > 0 || message !== '';
  let body: Buffer;
  if (format === 'json') {
    const response: Record<string, unknown> = {};
    if (present) {
      // int64 is a decimal string in proto3 JSON; receivers accept either.
      const ps: Record<string, unknown> = { [REJECTED_FIELD[signal]]: String(rejected) };
      if (message) ps.errorMessage = message;
      response.partialSuccess = ps;
    }
    body = Buffer.from(JSON.stringify(response));
  } else {
    const w = protobuf.Writer.create();
    if (present) {
      w.uint32((1 << 3) | 2).fork(); // partial_success
      if (rejected > 0) w.uint32((1 << 3) | 0).int64(rejected); // rejected_<signal>
      if (message) w.uint32((2 << 3) | 2).string(message); // error_message
      w.ldelim();
    }
    body = Buffer.from(w.finish());
  }
  return { status: 200, contentType: OTLP_CONTENT_TYPES[format], body, headers: {} };
}

/** google.rpc.Code for an HTTP status. OTLP says clients need not act on it; it helps debugging. */
export function grpcCodeFor(status: number): number {
  switch (status) {
    case 400: case 413: case 415: case 422: return 3; // INVALID_ARGUMENT
    case 401: return 16; // UNAUTHENTICATED
    case 403: return 7; // PERMISSION_DENIED
    case 404: return 5; // NOT_FOUND
    case 409: return 6; // ALREADY_EXISTS
    case 429: return 8; // RESOURCE_EXHAUSTED
    case 501: return 12; // UNIMPLEMENTED
    case 503: return 14; // UNAVAILABLE
    case 504: return 4; // DEADLINE_EXCEEDED
    default: return status >= 500 ? 13 /* INTERNAL */ : 2; /* UNKNOWN */
  }
}

/**
 * 4xx/5xx answer: a google.rpc.Status {code, message} in the request's encoding. Use JSON when
 * the request's format is unknown (a 415 for an unsupported Content-Type, for instance).
 */
export function exportError(format: OtlpFormat | undefined, error: AppError): OtlpAnswer {
  const code = grpcCodeFor(error.status);
  const fmt: OtlpFormat = format ?? 'json';
  let body: Buffer;
  if (fmt === 'json') {
    body = Buffer.from(JSON.stringify({ code, message: error.detail }));
  } else {
    const w = protobuf.Writer.create();
    w.uint32((1 << 3) | 0).int32(code); // code
    w.uint32((2 << 3) | 2).string(error.detail); // message
    body = Buffer.from(w.finish());
  }
  const headers: Record<string, string> = {};
  if ((error.status === 429 || error.status === 503) && error.retryAfterSeconds !== undefined) {
    headers['retry-after'] = String(error.retryAfterSeconds);
  }
  return { status: error.status, contentType: OTLP_CONTENT_TYPES[fmt], body, headers };
}
