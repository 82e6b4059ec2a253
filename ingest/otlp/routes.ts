// The OTLP/HTTP receiver: POST /api/v1/otel/v1/{traces,metrics,logs} (decisions §8), so an
// exporter given the endpoint {base_url}/api/v1/otel works as is. Answers follow the OTLP/HTTP
// specification, in the request's encoding: 200 with partial success, 400 undecodable, 401 no
// or bad service-account token, 413 too large, 415 other media types or encodings, 429/503 with
// Retry-After under pressure (exporters retry those, and only those).
//
// Traces are stored through the event log (durable before the 200); metrics and logs are
// validated and counted but not kept, and say so through partial success (rejected items and a
// message), the OTLP way for "accepted, not stored" that no exporter retries.
import { AppError, asAppError } from '../../lib/errors.ts';
import type { EventLog } from '../../lib/event-log/types.ts';
import type { HttpReply, HttpRequest, Route } from '../../lib/http/types.ts';
import type { Logger } from '../../lib/log.ts';
import type { ServiceAccountIdentity } from '../../lib/auth/service-accounts.ts';
import type { TelemetrySignal, TelemetryStatusRecorder } from '../../lib/analytics/telemetry-status.ts';
import { decodeBody, otlpFormatOf, type DecodedBody } from '../../lib/otlp/decode-body.ts';
import { countLogRecords, countMetricDataPoints } from '../../lib/otlp/metrics-logs.ts';
import { exportError, exportSuccess, type OtlpAnswer } from '../../lib/otlp/responses.ts';
import { decodeTraces } from '../../lib/otlp/traces.ts';
import type { Pricer } from '../../lib/pricing/pricing.ts';
import { ByteBudget } from './byte-budget.ts';
import { toSpanEvents, type AgentResolver } from './span-events.ts';

export const OTLP_PREFIX = '/api/v1/otel';

export interface OtlpRouteDeps {
  verifyToken(token: string): Promise<ServiceAccountIdentity>;
  directory: AgentResolver;
  pricer(): Pricer;
  log: EventLog;
  status: TelemetryStatusRecorder;
  logger: Logger;
  /** Limit of the body on the wire and after decompression (MAX_OTLP_BODY_BYTES). */
  maxBodyBytes: number;
  /** Decoded bytes this process holds for OTLP requests at once; above it, 429. */
  maxInFlightBytes: number;
  now?: () => Date;
}

const NOT_KEPT: Record<Exclude<TelemetrySignal, 'traces'>, string> = {
  metrics: 'Metrics are validated but not stored by this service; only traces are kept.',
  logs: 'Logs are validated but not stored by this service; only traces are kept.',
};

const missingToken = () =>
  new AppError({ code: 'missing_service_token', status: 401, detail: 'Send a service-account token: Authorization: Bearer <token>.' });

function bearer(request: HttpRequest): string {
  const header = request.headers.authorization ?? '';
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  if (!match) throw missingToken();
  return match[1]!;
}

function reply(answer: OtlpAnswer): HttpReply {
  const headers: Record<string, string> = { 'content-type': answer.contentType, ...answer.headers };
  if (answer.status === 401) headers['www-authenticate'] = 'Bearer';
  return { status: answer.status, headers, body: answer.body };
}

/**
 * Bytes a request holds while its spans wait for the durable write: exact for protobuf; for
 * JSON the parsed text is gone, so a compressed body counts four times its wire size (span
 * JSON compresses about that well or better).
 */
function heldBytes(request: HttpRequest, body: DecodedBody): number {
  if (body.format === 'protobuf') return body.bytes.length;
  const encoding = (request.headers['content-encoding'] ?? '').trim().toLowerCase();
  return encoding === '' || encoding === 'identity' ? request.body.length : request.body.length * 4;
}

export function otlpRoutes(deps: OtlpRouteDeps): Route[] {
  const now = deps.now ?? (() => new Date());
  const budget = new ByteBudget(deps.maxInFlightBytes);

  const traces = async (body: DecodedBody, at: Date): Promise<OtlpAnswer> => {
    const result = decodeTraces(body);
    const events = toSpanEvents(result.spans, deps.directory, deps.pricer(), at);
    if (events.length > 0) await deps.log.append('spans', events);
    deps.status.accepted('traces', events.length, at);
    if (result.rejected === 0) return exportSuccess('traces', body.format);
    const message = result.errorMessage ?? `${result.rejected} span(s) rejected.`;
    deps.status.rejected('traces', 200, 'spans_rejected', message, at);
    return exportSuccess('traces', body.format, { rejected: result.rejected, errorMessage: message });
  };

  const handler = (signal: TelemetrySignal) => async (request: HttpRequest): Promise<HttpReply> => {
    const at = now();
    const contentType = request.headers['content-type'];
    const format = otlpFormatOf(contentType);
    let held = 0;
    try {
      await deps.verifyToken(bearer(request));
      const body = await decodeBody(request.body, contentType, request.headers['content-encoding'], deps.maxBodyBytes);
      held = budget.take(heldBytes(request, body));
      if (signal === 'traces') return reply(await traces(body, at));
      const items = signal === 'metrics' ? countMetricDataPoints(body) : countLogRecords(body);
      deps.status.accepted(signal, 0, at);
      return reply(exportSuccess(signal, body.format, items > 0 ? { rejected: items, errorMessage: NOT_KEPT[signal] } : undefined));
    } catch (error) {
      const appError = asAppError(error);
      if (appError.code === 'internal_error') deps.logger.error('OTLP export failed', { signal, request_id: request.requestId, error });
      deps.status.rejected(signal, appError.status, appError.code, appError.detail, at);
      return reply(exportError(format, appError));
    } finally {
      budget.give(held);
    }
  };

  return (['traces', 'metrics', 'logs'] as const).map((signal) => ({
    method: 'POST',
    pattern: `${OTLP_PREFIX}/v1/${signal}`,
    // The handler answers 415 itself, in OTLP form, and reads gzip/deflate bodies.
    contentTypes: 'any' as const,
    maxBodyBytes: deps.maxBodyBytes,
    handler: handler(signal),
  }));
}
