// Entry point for trace exports: a decoded body (see decode-body.ts) in, flat span rows out,
// with the count of spans that could not be kept so the route can answer OTLP partial success.
import type { SpanRecord } from '../../schemas/otlp.ts';
import type { DecodedBody } from './decode-body.ts';
import type { JsonObject } from './otlp-json.ts';
import { asUndecodable } from './proto-common.ts';
import { DEFAULT_ATTRIBUTE_LIMITS, Rejections, type AttributeLimits } from './span-record.ts';
import { decodeTracesJson } from './traces-json.ts';
import { decodeTracesProto } from './traces-proto.ts';

export type { SpanRecord } from '../../schemas/otlp.ts';
export { DEFAULT_ATTRIBUTE_LIMITS, type AttributeLimits } from './span-record.ts';

export interface DecodeTracesOptions {
  /** Bounds for the `attributes` and `resource_attributes` maps; defaults: DEFAULT_ATTRIBUTE_LIMITS. */
  limits?: Partial<AttributeLimits>;
}

export interface TracesDecodeResult {
  spans: SpanRecord[];
  /** Spans left out (missing or malformed ids or times): the partial-success `rejected_spans`. */
  rejected: number;
  /** Human-readable reason when rejected > 0: the partial-success `error_message`. */
  errorMessage?: string;
}

/**
 * Decodes an ExportTraceServiceRequest into span rows.
 * @throws AppError 400 otlp_undecodable when the payload is not a valid OTLP trace request.
 */
export function decodeTraces(body: DecodedBody, options: DecodeTracesOptions = {}): TracesDecodeResult {
  const limits = options.limits ? { ...DEFAULT_ATTRIBUTE_LIMITS, ...options.limits } : DEFAULT_ATTRIBUTE_LIMITS;
  const spans: SpanRecord[] = [];
  const rejections = new Rejections();
  if (body.format === 'json') decodeTracesJson(body.json as JsonObject, limits, spans, rejections);
  else {
    try {
      decodeTracesProto(body.bytes, limits, spans, rejections);
    } catch (error) {
      throw asUndecodable(error);
    }
  }
  const result: TracesDecodeResult = { spans, rejected: rejections.count };
  const errorMessage = rejections.message();
  if (errorMessage) result.errorMessage = errorMessage;
  return result;
}
