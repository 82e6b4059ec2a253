// ExportTraceServiceRequest in OTLP JSON, walked into SpanRecord rows. A malformed container
// (resourceSpans, scopeSpans, spans not arrays) fails the request with 400; a malformed span is
// only that span's problem and is counted as rejected (partial success).
import type { SpanRecord } from '../../schemas/otlp.ts';
import type { ValueOut } from './proto-common.ts';
import {
  field, isObject, jsonAnyValue, jsonId, jsonInt, jsonNanos, list, message, text, type JsonObject,
} from './otlp-json.ts';
import {
  checkIds, cut, finishGenAi, newGenAiDraft, newResourceInfo, newSpanRecord, putResourceAttribute,
  putSpanAttribute, resetGenAiDraft, setTimes, spanKind, statusCode,
  DateTime64Formatter, type AttributeLimits, type GenAiDraft, type Rejections, type ResourceInfo,
} from './span-record.ts';

interface Ctx {
  limits: AttributeLimits;
  spans: SpanRecord[];
  rejections: Rejections;
  value: ValueOut;
  genai: GenAiDraft;
  time: DateTime64Formatter;
}

/** Appends the request's valid spans to `spans`; counts the others in `rejections`. */
export function decodeTracesJson(json: JsonObject, limits: AttributeLimits, spans: SpanRecord[], rejections: Rejections): void {
  const ctx: Ctx = { limits, spans, rejections, value: { text: '', num: undefined }, genai: newGenAiDraft(), time: new DateTime64Formatter() };
  for (const resourceSpans of list(json, 'resourceSpans', 'resource_spans')) {
    if (!isObject(resourceSpans)) continue;
    const resource = readResource(ctx, message(resourceSpans, 'resource', 'resource'));
    for (const scopeSpans of list(resourceSpans, 'scopeSpans', 'scope_spans')) {
      if (!isObject(scopeSpans)) continue;
      const scope = message(scopeSpans, 'scope', 'scope');
      const scopeName = cut(text(scope?.name), limits.maxValueLength);
      const scopeVersion = cut(text(scope?.version), limits.maxValueLength);
      for (const span of list(scopeSpans, 'spans', 'spans')) readSpan(ctx, span, resource, scopeName, scopeVersion);
    }
  }
}

function readResource(ctx: Ctx, resource: JsonObject | undefined): ResourceInfo {
  const info = newResourceInfo();
  if (!resource) return info;
  let count = 0;
  for (const kv of list(resource, 'attributes', 'attributes')) {
    if (!isObject(kv)) continue;
    jsonAnyValue(kv.value, ctx.value);
    count = putResourceAttribute(info, count, text(kv.key), ctx.value.text, ctx.limits);
  }
  return info;
}

function readSpan(ctx: Ctx, span: unknown, resource: ResourceInfo, scopeName: string, scopeVersion: string): void {
  if (!isObject(span)) {
    ctx.rejections.add('a span is not a JSON object');
    return;
  }
  const { limits, value, genai } = ctx;
  const rec = newSpanRecord(resource, scopeName, scopeVersion);
  rec.trace_id = jsonId(field(span, 'traceId', 'trace_id'), 16);
  rec.span_id = jsonId(field(span, 'spanId', 'span_id'), 8);
  rec.parent_span_id = jsonId(field(span, 'parentSpanId', 'parent_span_id'), 8);
  const problem = checkIds(rec);
  if (problem) {
    ctx.rejections.add(problem);
    return;
  }
  const start = jsonNanos(field(span, 'startTimeUnixNano', 'start_time_unix_nano'));
  const end = jsonNanos(field(span, 'endTimeUnixNano', 'end_time_unix_nano'));
  if (start === undefined || end === undefined) {
    ctx.rejections.add('a span time is not an unsigned 64-bit count of nanoseconds');
    return;
  }
  setTimes(rec, start, end, ctx.time);
  rec.name = cut(text(span.name), limits.maxValueLength);
  rec.kind = spanKind(jsonInt(span.kind));
  const status = span.status;
  if (isObject(status)) {
    rec.status_code = statusCode(jsonInt(status.code));
    rec.status_message = cut(text(status.message), limits.maxValueLength);
  }
  resetGenAiDraft(genai);
  let count = 0;
  const attributes = field(span, 'attributes', 'attributes');
  if (Array.isArray(attributes)) {
    for (const kv of attributes) {
      if (!isObject(kv)) continue;
      jsonAnyValue(kv.value, value);
      count = putSpanAttribute(rec, genai, count, text(kv.key), value.text, value.num, limits);
    }
  }
  finishGenAi(rec, genai, resource);
  ctx.spans.push(rec);
}
