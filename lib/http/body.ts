// Reading request bodies and query parameters into typed values, with the statuses of
// decisions §4: 400 for JSON that does not parse or a bad query parameter, 422 for a body
// that parses but breaks a field rule. Validators are compiled once, where they are declared.
import type { Static, TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { AppError, badRequest, validationFailed, type FieldError } from '../errors.ts';
import type { HttpRequest } from './types.ts';

export interface Validator<T extends TSchema> {
  check: TypeCheck<T>;
  /** Returns the value typed, or throws 422 with every field error. */
  parse(value: unknown): Static<T>;
  errors(value: unknown): FieldError[];
}

export function compile<T extends TSchema>(schema: T): Validator<T> {
  const check = TypeCompiler.Compile(schema);
  const errors = (value: unknown): FieldError[] => {
    const list: FieldError[] = [];
    for (const error of check.Errors(value)) {
      list.push({ path: error.path || '/', message: error.message });
      if (list.length >= 20) break;
    }
    return list;
  };
  return {
    check,
    errors,
    parse(value) {
      if (check.Check(value)) return value;
      throw validationFailed(errors(value));
    },
  };
}

/** JSON.parse of the body; 400 `malformed_json` when it does not parse or is empty. */
export function readJson(request: HttpRequest): unknown {
  if (request.body.length === 0) throw badRequest('malformed_json', 'The request body is empty; send a JSON document.');
  try {
    return JSON.parse(request.body.toString('utf8'));
  } catch {
    throw badRequest('malformed_json', 'The request body is not valid JSON.');
  }
}

export function readBody<T extends TSchema>(request: HttpRequest, validator: Validator<T>): Static<T> {
  return validator.parse(readJson(request));
}

/** Integer query parameter within bounds; absent → fallback; anything else → 400. */
export function queryInteger(request: HttpRequest, name: string, fallback: number, min: number, max: number): number {
  const raw = request.query.get(name);
  if (raw === null || raw === '') return fallback;
  const value = Number(raw);
  if (!/^-?\d+$/.test(raw) || value < min || value > max) {
    throw badRequest('invalid_query_parameter', `${name} must be an integer from ${min} to ${max}.`, [
      { path: `/query/${name}`, message: `must be an integer from ${min} to ${max}` },
    ]);
  }
  return value;
}

export function queryEnum<T extends string>(request: HttpRequest, name: string, allowed: readonly T[], fallback?: T): T | undefined {
  const raw = request.query.get(name);
  if (raw === null || raw === '') return fallback;
  const normalised = allowed.find((a) => a.toLowerCase() === raw.toLowerCase());
  if (!normalised) {
    throw badRequest('invalid_query_parameter', `${name} must be one of ${allowed.join(', ')}.`, [
      { path: `/query/${name}`, message: `must be one of ${allowed.join(', ')}` },
    ]);
  }
  return normalised;
}

export function queryBoolean(request: HttpRequest, name: string): boolean | undefined {
  const raw = request.query.get(name);
  if (raw === null || raw === '') return undefined;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw badRequest('invalid_query_parameter', `${name} must be true or false.`, [{ path: `/query/${name}`, message: 'must be true or false' }]);
}

export function queryString(request: HttpRequest, name: string, maxLength = 200): string | undefined {
  const raw = request.query.get(name);
  if (raw === null || raw === '') return undefined;
  if (raw.length > maxLength) {
    throw badRequest('invalid_query_parameter', `${name} is longer than ${maxLength} characters.`, [
      { path: `/query/${name}`, message: `must be at most ${maxLength} characters` },
    ]);
  }
  return raw;
}

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A path parameter that must be a uuid: anything else cannot name a resource, so 404. */
export function pathUuid(request: HttpRequest, name: string, what: string): string {
  const value = request.params[name] ?? '';
  if (!UUID_PATTERN.test(value)) throw new AppError({ code: 'not_found', status: 404, detail: `${what} was not found.` });
  return value.toLowerCase();
}
