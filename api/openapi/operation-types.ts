// The shape of one documented operation, and small helpers the operation lists share.
import type { TSchema } from '@sinclair/typebox';

export interface Operation {
  id: string;
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  pattern: string;
  tag: string;
  summary: string;
  description?: string;
  auth: 'none' | 'bearer' | 'service_account';
  body?: TSchema;
  bodyMediaTypes?: string[];
  query?: Array<{ name: string; description: string; schema: Record<string, unknown> }>;
  responses: Record<string, { description: string; schema?: TSchema; mediaType?: string }>;
  /** Problem statuses this operation can answer. */
  errors?: number[];
}

export const int = (min: number, max: number, fallback: number) => ({ type: 'integer', minimum: min, maximum: max, default: fallback });
export const BEARER_ERRORS = [400, 401, 403, 404];
