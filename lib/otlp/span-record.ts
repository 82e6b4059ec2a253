// What both OTLP encodings (JSON and protobuf) share once a value is read: turning attributes
// into a bounded string map, picking GenAI semantic-convention fields (current and older
// names), and formatting ids and times. Decoders fill one SpanRecord per span through these.
import type { SpanKind, SpanRecord, SpanStatusCode } from '../../schemas/otlp.ts';

export interface AttributeLimits {
  /** Attributes kept per span (and per resource); later ones are dropped. */
  maxAttributes: number;
  /** Longer keys are dropped rather than cut, so two keys never collide. */
  maxKeyLength: number;
  /** Longer values (and span names, status messages) are cut to this many characters. */
  maxValueLength: number;
}

export const DEFAULT_ATTRIBUTE_LIMITS: AttributeLimits = {
  maxAttributes: 128,
  maxKeyLength: 256,
  maxValueLength: 4096,
};

export type StringMap = Record<string, string>;

/** Null prototype: an attribute named `__proto__` must be stored, not change the object. */
export const newStringMap = (): StringMap => Object.create(null) as StringMap;

/** Stores one attribute within the limits; returns the new count of stored attributes. */
export function putBounded(map: StringMap, count: number, key: string, text: string, limits: AttributeLimits): number {
  if (count >= limits.maxAttributes || key.length === 0 || key.length > limits.maxKeyLength) return count;
  const fresh = !(key in map);
  map[key] = cut(text, limits.maxValueLength);
  return fresh ? count + 1 : count;
}

export const cut = (text: string, max: number): string => (text.length > max ? text.slice(0, max) : text);

/** What a resource contributes to each of its spans. */
export interface ResourceInfo {
  attributes: StringMap;
  serviceName: string;
  agentName: string;
  agentId: string;
}

export function newResourceInfo(): ResourceInfo {
  return { attributes: newStringMap(), serviceName: '', agentName: '', agentId: '' };
}

/** Resource attributes: all kept as text; a few also read into ResourceInfo. Returns the count. */
export function putResourceAttribute(res: ResourceInfo, count: number, key: string, text: string, limits: AttributeLimits): number {
  if (key === 'service.name') res.serviceName = cut(text, limits.maxValueLength);
  else if (key === 'gen_ai.agent.name') res.agentName = cut(text, limits.maxValueLength);
  else if (key === 'gen_ai.agent.id') res.agentId = cut(text, limits.maxValueLength);
  return putBounded(res.attributes, count, key, text, limits);
}

/**
 * GenAI values seen on one span, kept apart until the span ends because the preferred name may
 * come after the fallback one (`gen_ai.usage.input_tokens` wins over `prompt_tokens` either way).
 * One instance is reused for every span of a request.
 */
export interface GenAiDraft {
  responseModel: string;
  requestModel: string;
  providerName: string;
  system: string;
  operation: string;
  agentName: string;
  agentId: string;
  inputTokens: number;
  promptTokens: number;
  outputTokens: number;
  completionTokens: number;
  cacheRead: number;
  cacheReadOld: number;
  cacheCreation: number;
  cacheCreationOld: number;
}

export function newGenAiDraft(): GenAiDraft {
  const draft = {} as GenAiDraft;
  resetGenAiDraft(draft);
  return draft;
}

export function resetGenAiDraft(g: GenAiDraft): void {
  g.responseModel = g.requestModel = g.providerName = g.system = g.operation = g.agentName = g.agentId = '';
  g.inputTokens = g.promptTokens = g.outputTokens = g.completionTokens = -1;
  g.cacheRead = g.cacheReadOld = g.cacheCreation = g.cacheCreationOld = -1;
}

/**
 * One span attribute: read into the GenAI draft when it is a known key, and kept in the map.
 * `num` is the value when the attribute was numeric (int or double); token counts given as
 * numeric strings are accepted too, since some instrumentations send them that way.
 */
export function putSpanAttribute(
  rec: SpanRecord, g: GenAiDraft, count: number, key: string, text: string, num: number | undefined, limits: AttributeLimits,
): number {
  if (key.charCodeAt(0) === 103 /* 'g' */ && key.startsWith('gen_ai.')) readGenAi(g, key, text, num, limits.maxValueLength);
  return putBounded(rec.attributes, count, key, text, limits);
}

function readGenAi(g: GenAiDraft, key: string, text: string, num: number | undefined, max: number): void {
  switch (key) {
    case 'gen_ai.response.model': g.responseModel = cut(text, max); return;
    case 'gen_ai.request.model': g.requestModel = cut(text, max); return;
    case 'gen_ai.provider.name': g.providerName = cut(text, max); return;
    case 'gen_ai.system': g.system = cut(text, max); return;
    case 'gen_ai.operation.name': g.operation = cut(text, max); return;
    case 'gen_ai.agent.name': g.agentName = cut(text, max); return;
    case 'gen_ai.agent.id': g.agentId = cut(text, max); return;
    case 'gen_ai.usage.input_tokens': g.inputTokens = tokenCount(text, num); return;
    case 'gen_ai.usage.prompt_tokens': g.promptTokens = tokenCount(text, num); return;
    case 'gen_ai.usage.output_tokens': g.outputTokens = tokenCount(text, num); return;
    case 'gen_ai.usage.completion_tokens': g.completionTokens = tokenCount(text, num); return;
    case 'gen_ai.usage.cache_read.input_tokens': g.cacheRead = tokenCount(text, num); return;
    // Names used before the convention settled on the dotted form (OpenLLMetry, early SDKs).
    case 'gen_ai.usage.cache_read_input_tokens': g.cacheReadOld = tokenCount(text, num); return;
    case 'gen_ai.usage.cache_creation.input_tokens': g.cacheCreation = tokenCount(text, num); return;
    case 'gen_ai.usage.cache_creation_input_tokens': g.cacheCreationOld = tokenCount(text, num); return;
  }
}

/** -1 for "not a usable count" so the fallback name can still apply. */
function tokenCount(text: string, num: number | undefined): number {
  const value = num ?? (/^\s*\d+(\.\d+)?\s*$/.test(text) ? Number(text) : NaN);
  return Number.isFinite(value) && value >= 0 ? Math.min(Math.trunc(value), Number.MAX_SAFE_INTEGER) : -1;
}

const pick = (preferred: number, fallback: number): number => (preferred >= 0 ? preferred : fallback >= 0 ? fallback : 0);

/** Writes the GenAI columns from the draft, with resource-level agent identity as fallback. */
export function finishGenAi(rec: SpanRecord, g: GenAiDraft, res: ResourceInfo): void {
  rec.request_model = g.requestModel;
  rec.model = g.responseModel || g.requestModel;
  rec.provider = g.providerName || g.system;
  rec.operation = g.operation;
  rec.agent_name = g.agentName || res.agentName;
  rec.agent_id = g.agentId || res.agentId;
  rec.input_tokens = pick(g.inputTokens, g.promptTokens);
  rec.output_tokens = pick(g.outputTokens, g.completionTokens);
  rec.cache_read_tokens = pick(g.cacheRead, g.cacheReadOld);
  rec.cache_creation_tokens = pick(g.cacheCreation, g.cacheCreationOld);
}

export function newSpanRecord(res: ResourceInfo, scopeName: string, scopeVersion: string): SpanRecord {
  return {
    trace_id: '', span_id: '', parent_span_id: '', name: '', kind: 'UNSPECIFIED',
    start_time: '', end_time: '', duration_ms: 0, status_code: 'UNSET', status_message: '',
    service_name: res.serviceName, scope_name: scopeName, scope_version: scopeVersion,
    model: '', request_model: '', provider: '', operation: '', agent_name: '', agent_id: '',
    input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_creation_tokens: 0,
    attributes: newStringMap(), resource_attributes: res.attributes,
  };
}

const KINDS: readonly SpanKind[] = ['UNSPECIFIED', 'INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER'];
const STATUS: readonly SpanStatusCode[] = ['UNSET', 'OK', 'ERROR'];
export const spanKind = (n: number): SpanKind => KINDS[n] ?? 'UNSPECIFIED';
export const statusCode = (n: number): SpanStatusCode => STATUS[n] ?? 'UNSET';

const NS_PER_S = 1_000_000_000n;

/**
 * uint64 Unix nanoseconds → `YYYY-MM-DD hh:mm:ss.nnnnnnnnn` (UTC), exact to the nanosecond.
 * Formatting the date is most of the cost and the spans of one export mostly share their
 * seconds, so the last two second prefixes are kept (one formatter per request).
 */
export class DateTime64Formatter {
  private lastSeconds = -1n;
  private lastPrefix = '';
  private olderSeconds = -1n;
  private olderPrefix = '';

  format(ns: bigint): string {
    const seconds = ns / NS_PER_S;
    const fraction = String(Number(ns - seconds * NS_PER_S)).padStart(9, '0');
    if (seconds === this.lastSeconds) return this.lastPrefix + fraction;
    if (seconds === this.olderSeconds) return this.olderPrefix + fraction;
    const iso = new Date(Number(seconds) * 1000).toISOString();
    this.olderSeconds = this.lastSeconds;
    this.olderPrefix = this.lastPrefix;
    this.lastSeconds = seconds;
    this.lastPrefix = `${iso.slice(0, 10)} ${iso.slice(11, 19)}.`;
    return this.lastPrefix + fraction;
  }
}

/** Sets start/end/duration from nanosecond timestamps (0 when absent). */
export function setTimes(rec: SpanRecord, start: bigint, end: bigint, time: DateTime64Formatter): void {
  rec.start_time = time.format(start);
  rec.end_time = time.format(end);
  rec.duration_ms = end > start ? Number(end - start) / 1e6 : 0;
}

const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);

/**
 * Why a span cannot be stored, or undefined when its ids are usable. Decoders leave an id that
 * is not valid hex of the right size at a wrong length. An all-zero parent means "root" (some
 * SDKs send it instead of leaving the field empty).
 */
export function checkIds(rec: SpanRecord): string | undefined {
  if (rec.trace_id.length !== 32 || rec.trace_id === ZERO_TRACE) return 'trace_id is missing or not 16 bytes';
  if (rec.span_id.length !== 16 || rec.span_id === ZERO_SPAN) return 'span_id is missing or not 8 bytes';
  if (rec.parent_span_id === ZERO_SPAN) rec.parent_span_id = '';
  else if (rec.parent_span_id.length !== 0 && rec.parent_span_id.length !== 16) return 'parent_span_id is not 8 bytes';
  return undefined;
}

/** Counts rejected spans and keeps the first reason for the partial-success message. */
export class Rejections {
  count = 0;
  private firstReason: string | undefined;

  add(reason: string, n = 1): void {
    this.count += n;
    this.firstReason ??= reason;
  }

  message(): string | undefined {
    if (this.count === 0) return undefined;
    return `${this.count} span(s) rejected: ${this.firstReason ?? 'invalid span'}.`;
  }
}
