// ExportTraceServiceRequest (opentelemetry/proto/collector/trace/v1, trace/v1) in binary protobuf,
// walked once straight into SpanRecord rows. Submessages may arrive in any field order, so the
// scope and span ranges are noted first and read after the resource/scope they belong to.
import type { SpanRecord } from '../../schemas/otlp.ts';
import {
  createReader, expectEnd, lengthEnd, readFixed64, readKeyValue,
  WIRE_FIXED64, WIRE_LEN, WIRE_VARINT, type Reader, type ValueOut,
} from './proto-common.ts';
import {
  checkIds, cut, finishGenAi, newGenAiDraft, newResourceInfo, newSpanRecord, putResourceAttribute,
  putSpanAttribute, resetGenAiDraft, setTimes, spanKind, statusCode,
  DateTime64Formatter, type AttributeLimits, type GenAiDraft, type Rejections, type ResourceInfo,
} from './span-record.ts';

const tag = (field: number, wire: number): number => (field << 3) | wire;
const LEN_1 = tag(1, WIRE_LEN);
const LEN_2 = tag(2, WIRE_LEN);
const SPAN_TRACE_ID = LEN_1;
const SPAN_SPAN_ID = LEN_2;
const SPAN_PARENT_ID = tag(4, WIRE_LEN);
const SPAN_NAME = tag(5, WIRE_LEN);
const SPAN_KIND = tag(6, WIRE_VARINT);
const SPAN_START = tag(7, WIRE_FIXED64);
const SPAN_END = tag(8, WIRE_FIXED64);
const SPAN_ATTRIBUTE = tag(9, WIRE_LEN);
const SPAN_STATUS = tag(15, WIRE_LEN);
const STATUS_MESSAGE = LEN_2;
const STATUS_CODE = tag(3, WIRE_VARINT);

interface Ctx {
  r: Reader;
  bytes: Buffer;
  limits: AttributeLimits;
  spans: SpanRecord[];
  rejections: Rejections;
  value: ValueOut;
  genai: GenAiDraft;
  time: DateTime64Formatter;
}

/** Appends the request's valid spans to `spans`; counts the others in `rejections`. Throws on bad wire data. */
export function decodeTracesProto(bytes: Buffer, limits: AttributeLimits, spans: SpanRecord[], rejections: Rejections): void {
  const ctx: Ctx = {
    r: createReader(bytes), bytes, limits, spans, rejections,
    value: { text: '', num: undefined }, genai: newGenAiDraft(), time: new DateTime64Formatter(),
  };
  const r = ctx.r;
  while (r.pos < r.len) {
    const t = r.uint32();
    if (t === LEN_1) readResourceSpans(ctx, lengthEnd(r)); // resource_spans
    else r.skipType(t & 7);
  }
}

function readResourceSpans(ctx: Ctx, end: number): void {
  const r = ctx.r;
  let resource = newResourceInfo();
  const scopes: number[] = [];
  while (r.pos < end) {
    const t = r.uint32();
    if (t === LEN_1) resource = readResource(ctx, lengthEnd(r));
    else if (t === LEN_2) notePosition(r, scopes);
    else r.skipType(t & 7);
  }
  expectEnd(r, end);
  for (let i = 0; i < scopes.length; i += 2) {
    r.pos = scopes[i]!;
    readScopeSpans(ctx, scopes[i + 1]!, resource);
  }
  r.pos = end;
}

/** Notes [start, end) of a length-delimited submessage and moves past it. */
function notePosition(r: Reader, into: number[]): void {
  const end = lengthEnd(r);
  into.push(r.pos, end);
  r.pos = end;
}

function readResource(ctx: Ctx, end: number): ResourceInfo {
  const { r, value, limits } = ctx;
  const resource = newResourceInfo();
  let count = 0;
  while (r.pos < end) {
    const t = r.uint32();
    if (t === LEN_1) {
      const key = readKeyValue(r, lengthEnd(r), value);
      count = putResourceAttribute(resource, count, key, value.text, limits);
    } else r.skipType(t & 7);
  }
  expectEnd(r, end);
  return resource;
}

function readScopeSpans(ctx: Ctx, end: number, resource: ResourceInfo): void {
  const r = ctx.r;
  let scopeName = '';
  let scopeVersion = '';
  const spans: number[] = [];
  while (r.pos < end) {
    const t = r.uint32();
    if (t === LEN_1) {
      const scopeEnd = lengthEnd(r);
      while (r.pos < scopeEnd) {
        const s = r.uint32();
        if (s === LEN_1) scopeName = cut(r.string(), ctx.limits.maxValueLength);
        else if (s === LEN_2) scopeVersion = cut(r.string(), ctx.limits.maxValueLength);
        else r.skipType(s & 7);
      }
      expectEnd(r, scopeEnd);
    } else if (t === LEN_2) notePosition(r, spans);
    else r.skipType(t & 7);
  }
  expectEnd(r, end);
  for (let i = 0; i < spans.length; i += 2) {
    r.pos = spans[i]!;
    readSpan(ctx, spans[i + 1]!, resource, scopeName, scopeVersion);
  }
  r.pos = end;
}

function readSpan(ctx: Ctx, end: number, resource: ResourceInfo, scopeName: string, scopeVersion: string): void {
  const { r, bytes, limits, value } = ctx;
  const rec = newSpanRecord(resource, scopeName, scopeVersion);
  const genai = ctx.genai;
  resetGenAiDraft(genai);
  let start = 0n;
  let finish = 0n;
  let count = 0;
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case SPAN_TRACE_ID: rec.trace_id = readId(ctx, 16); break;
      case SPAN_SPAN_ID: rec.span_id = readId(ctx, 8); break;
      case SPAN_PARENT_ID: rec.parent_span_id = readId(ctx, 8); break;
      case SPAN_NAME: rec.name = cut(r.string(), limits.maxValueLength); break;
      case SPAN_KIND: rec.kind = spanKind(r.int32()); break;
      case SPAN_START: start = readFixed64(r, bytes); break;
      case SPAN_END: finish = readFixed64(r, bytes); break;
      case SPAN_ATTRIBUTE: {
        const key = readKeyValue(r, lengthEnd(r), value);
        count = putSpanAttribute(rec, genai, count, key, value.text, value.num, limits);
        break;
      }
      case SPAN_STATUS: readStatus(ctx, lengthEnd(r), rec); break;
      default: r.skipType(t & 7);
    }
  }
  expectEnd(r, end);
  const problem = checkIds(rec);
  if (problem) {
    ctx.rejections.add(problem);
    return;
  }
  setTimes(rec, start, finish, ctx.time);
  finishGenAi(rec, genai, resource);
  ctx.spans.push(rec);
}

/** Lowercase hex of a bytes field of the expected size; '' when empty, a wrong-length marker otherwise. */
function readId(ctx: Ctx, size: number): string {
  const end = lengthEnd(ctx.r);
  const length = end - ctx.r.pos;
  const hex = length === size ? ctx.bytes.toString('hex', ctx.r.pos, end) : length === 0 ? '' : 'invalid';
  ctx.r.pos = end;
  return hex;
}

function readStatus(ctx: Ctx, end: number, rec: SpanRecord): void {
  const r = ctx.r;
  while (r.pos < end) {
    const t = r.uint32();
    if (t === STATUS_MESSAGE) rec.status_message = cut(r.string(), ctx.limits.maxValueLength);
    else if (t === STATUS_CODE) rec.status_code = statusCode(r.int32());
    else r.skipType(t & 7);
  }
  expectEnd(r, end);
}
