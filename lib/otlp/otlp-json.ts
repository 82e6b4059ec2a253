// Helpers for OTLP's JSON encoding (proto3 JSON mapping with OTLP's deviations: trace and span
// ids are hex, enums are integers). Keys are lowerCamelCase; snake_case is also read, as the
// Collector does, because some hand-written clients send proto field names.
import { undecodable } from './decode-body.ts';
import type { ValueOut } from './proto-common.ts';

export type JsonObject = Record<string, unknown>;

export const isObject = (v: unknown): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A field by its JSON name, else by its proto name. */
export function field(o: JsonObject, camel: string, snake: string): unknown {
  const v = o[camel];
  return v === undefined ? o[snake] : v;
}

/** A repeated field: absent or null is empty; anything but an array is an undecodable request. */
export function list(o: JsonObject, camel: string, snake: string): unknown[] {
  const v = field(o, camel, snake);
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw undecodable(`"${camel}" must be an array.`);
  return v;
}

/** A message field: absent or null is empty; anything but an object is an undecodable request. */
export function message(o: JsonObject, camel: string, snake: string): JsonObject | undefined {
  const v = field(o, camel, snake);
  if (v === undefined || v === null) return undefined;
  if (!isObject(v)) throw undecodable(`"${camel}" must be an object.`);
  return v;
}

export const text = (v: unknown): string => (typeof v === 'string' ? v : '');

const HEX = /^[0-9a-fA-F]+$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * Lowercase hex of a JSON id of `size` bytes: hex per OTLP; base64 (the plain proto3 mapping,
 * sent by some generic protobuf libraries) is accepted too. '' when empty, a wrong-length marker
 * when unusable.
 */
export function jsonId(v: unknown, size: number): string {
  if (v === undefined || v === null || v === '') return '';
  if (typeof v !== 'string') return 'invalid';
  if (v.length === size * 2 && HEX.test(v)) return v.toLowerCase();
  if (v.length === Math.ceil(size / 3) * 4 && BASE64.test(v)) {
    const bytes = Buffer.from(v, 'base64');
    if (bytes.length === size) return bytes.toString('hex');
  }
  return 'invalid';
}

const UINT64_MAX = 2n ** 64n - 1n;

/** fixed64 nanoseconds: a decimal string (exact) or a number; undefined when not a uint64. */
export function jsonNanos(v: unknown): bigint | undefined {
  if (v === undefined || v === null) return 0n;
  if (typeof v === 'string' && /^\d{1,20}$/.test(v)) {
    const n = BigInt(v);
    return n <= UINT64_MAX ? n : undefined;
  }
  if (typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= 2 ** 64) return BigInt(Math.trunc(v));
  return undefined;
}

/** An enum or int32: OTLP sends integers; a numeric string is tolerated. */
export function jsonInt(v: unknown): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : 0;
  return Number.isInteger(n) ? n : 0;
}

/** AnyValue → `out` (text for the attribute map, num for counters). */
export function jsonAnyValue(v: unknown, out: ValueOut): void {
  out.text = '';
  out.num = undefined;
  if (!isObject(v)) return;
  const js = jsonAnyValueJs(v, 0);
  if (typeof js === 'string') out.text = js;
  else if (typeof js === 'number') {
    out.num = js;
    out.text = String(js);
  } else if (typeof js === 'boolean') out.text = js ? 'true' : 'false';
  else if (js !== null) out.text = JSON.stringify(js);
  // An int64 beyond 2^53 arrives as a string: keep its exact text, still usable as a count.
  const int = field(v, 'intValue', 'int_value');
  if (typeof int === 'string' && /^-?\d+$/.test(int)) {
    out.text = int;
    out.num = Number(int);
  }
}

/** AnyValue as a plain JS value (nested arrays and maps become JSON text upstream). */
function jsonAnyValueJs(v: unknown, depth: number): unknown {
  if (!isObject(v) || depth > 32) return null;
  let x = field(v, 'stringValue', 'string_value');
  if (typeof x === 'string') return x;
  x = field(v, 'boolValue', 'bool_value');
  if (typeof x === 'boolean') return x;
  x = field(v, 'intValue', 'int_value');
  if (typeof x === 'number' || typeof x === 'string') {
    const n = Number(x);
    return Number.isSafeInteger(n) ? n : String(x);
  }
  // proto3 JSON writes NaN and infinities as the strings "NaN", "Infinity", "-Infinity".
  x = field(v, 'doubleValue', 'double_value');
  if (typeof x === 'number' || typeof x === 'string') return Number(x);
  x = field(v, 'arrayValue', 'array_value');
  if (isObject(x)) {
    const values = Array.isArray(x.values) ? x.values : [];
    return values.map((item: unknown) => jsonAnyValueJs(item, depth + 1));
  }
  x = field(v, 'kvlistValue', 'kvlist_value');
  if (isObject(x)) {
    const map = Object.create(null) as Record<string, unknown>;
    const values = Array.isArray(x.values) ? x.values : [];
    for (const kv of values) if (isObject(kv)) map[text(kv.key)] = jsonAnyValueJs(kv.value, depth + 1);
    return map;
  }
  x = field(v, 'bytesValue', 'bytes_value');
  return typeof x === 'string' ? x : null;
}
