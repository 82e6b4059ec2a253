// Wire-level helpers for the messages every OTLP signal shares (opentelemetry/proto/common/v1,
// resource/v1), read with protobufjs's Reader. Field numbers follow opentelemetry-proto v1 and
// match the serializers of @opentelemetry/otlp-transformer, which the tests use to build input.
// Unknown fields, and known fields with an unexpected wire type, are skipped as proto3 requires.
import protobuf from 'protobufjs/minimal.js';
import { AppError } from '../errors.ts';
import { undecodable } from './decode-body.ts';

export type Reader = protobuf.Reader;

export const createReader = (bytes: Buffer): Reader => protobuf.Reader.create(bytes);

export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_LEN = 2;
export const WIRE_FIXED32 = 5;

/** Nested AnyValue arrays/maps deeper than this are refused (a stack-exhaustion guard). */
const MAX_DEPTH = 32;

/** Reads a length prefix; returns where that message ends, checked against the buffer. */
export function lengthEnd(r: Reader): number {
  const length = r.uint32();
  const end = r.pos + length;
  if (end > r.len) throw new RangeError(`length ${length} at offset ${r.pos} runs past the end of the body`);
  return end;
}

/** A message must end exactly where its length prefix said. */
export function expectEnd(r: Reader, end: number): void {
  if (r.pos !== end) throw new RangeError(`message overran its length at offset ${r.pos}`);
}

/** Reads a fixed64 as an exact unsigned BigInt (a JS number would lose nanoseconds). */
export function readFixed64(r: Reader, bytes: Buffer): bigint {
  const at = r.pos;
  r.skip(8);
  return bytes.readBigUInt64LE(at);
}

/** An int64 varint: a number when exact, else a BigInt (rare: beyond 2^53). */
function readInt64(r: Reader): number | bigint {
  const { low, high } = r.int64();
  const n = high * 0x1_0000_0000 + (low >>> 0);
  if (Number.isSafeInteger(n)) return n;
  return BigInt.asIntN(64, (BigInt(high >>> 0) << 32n) | BigInt(low >>> 0));
}

/** The text form of an AnyValue, and its number when it was an int or a double. */
export interface ValueOut {
  text: string;
  num: number | undefined;
}

/** Reads AnyValue (ends at `end`) into `out`: text for the attribute map, num for counters. */
export function readAnyValue(r: Reader, end: number, out: ValueOut): void {
  out.text = '';
  out.num = undefined;
  while (r.pos < end) {
    const tag = r.uint32();
    const field = tag >>> 3;
    const wire = tag & 7;
    if (field === 1 && wire === WIRE_LEN) out.text = r.string();
    else if (field === 2 && wire === WIRE_VARINT) out.text = r.bool() ? 'true' : 'false';
    else if (field === 3 && wire === WIRE_VARINT) {
      const n = readInt64(r);
      out.num = typeof n === 'bigint' ? Number(n) : n;
      out.text = String(n);
    } else if (field === 4 && wire === WIRE_FIXED64) {
      out.num = r.double();
      out.text = String(out.num);
    } else if ((field === 5 || field === 6) && wire === WIRE_LEN) {
      const inner = lengthEnd(r);
      const value = field === 5 ? readArray(r, inner, 1) : readKvList(r, inner, 1);
      out.text = JSON.stringify(value);
    } else if (field === 7 && wire === WIRE_LEN) out.text = Buffer.from(r.bytes()).toString('base64');
    else r.skipType(wire);
  }
  expectEnd(r, end);
}

/** AnyValue as a plain JS value, for nested arrays and maps (serialised to JSON text). */
function readAnyValueJs(r: Reader, end: number, depth: number): unknown {
  let value: unknown = null;
  while (r.pos < end) {
    const tag = r.uint32();
    const field = tag >>> 3;
    const wire = tag & 7;
    if (field === 1 && wire === WIRE_LEN) value = r.string();
    else if (field === 2 && wire === WIRE_VARINT) value = r.bool();
    else if (field === 3 && wire === WIRE_VARINT) {
      const n = readInt64(r);
      value = typeof n === 'bigint' ? n.toString() : n;
    } else if (field === 4 && wire === WIRE_FIXED64) value = r.double();
    else if (field === 5 && wire === WIRE_LEN) value = readArray(r, lengthEnd(r), depth + 1);
    else if (field === 6 && wire === WIRE_LEN) value = readKvList(r, lengthEnd(r), depth + 1);
    else if (field === 7 && wire === WIRE_LEN) value = Buffer.from(r.bytes()).toString('base64');
    else r.skipType(wire);
  }
  expectEnd(r, end);
  return value;
}

function readArray(r: Reader, end: number, depth: number): unknown[] {
  if (depth > MAX_DEPTH) throw new RangeError('AnyValue nesting is too deep');
  const values: unknown[] = [];
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag === ((1 << 3) | WIRE_LEN)) values.push(readAnyValueJs(r, lengthEnd(r), depth));
    else r.skipType(tag & 7);
  }
  expectEnd(r, end);
  return values;
}

function readKvList(r: Reader, end: number, depth: number): Record<string, unknown> {
  if (depth > MAX_DEPTH) throw new RangeError('AnyValue nesting is too deep');
  const map = Object.create(null) as Record<string, unknown>;
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag !== ((1 << 3) | WIRE_LEN)) {
      r.skipType(tag & 7);
      continue;
    }
    const kvEnd = lengthEnd(r);
    let key = '';
    let value: unknown = null;
    while (r.pos < kvEnd) {
      const t = r.uint32();
      if (t === ((1 << 3) | WIRE_LEN)) key = r.string();
      else if (t === ((2 << 3) | WIRE_LEN)) value = readAnyValueJs(r, lengthEnd(r), depth + 1);
      else r.skipType(t & 7);
    }
    expectEnd(r, kvEnd);
    map[key] = value;
  }
  expectEnd(r, end);
  return map;
}

/**
 * Reads a KeyValue (ends at `end`): returns the key, the value goes into the caller's reusable
 * `out`, so a request allocates no object per attribute.
 */
export function readKeyValue(r: Reader, end: number, out: ValueOut): string {
  let key = '';
  out.text = '';
  out.num = undefined;
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag === ((1 << 3) | WIRE_LEN)) key = r.string();
    else if (tag === ((2 << 3) | WIRE_LEN)) readAnyValue(r, lengthEnd(r), out);
    else r.skipType(tag & 7);
  }
  expectEnd(r, end);
  return key;
}

/**
 * Bad wire data surfaces from the reader as RangeError or Error ("invalid wire type"); TypeError
 * and the like are our bugs and stay 500s.
 */
export function asUndecodable(error: unknown): unknown {
  if (error instanceof AppError) return error;
  if (error instanceof RangeError || (error instanceof Error && error.constructor === Error)) {
    return undecodable(`The request body is not a valid OTLP protobuf message: ${error.message}`, error);
  }
  return error;
}
