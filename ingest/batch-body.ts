// The batch form of the write endpoints takes a JSON array or NDJSON (one JSON document per
// line). A line of NDJSON that does not parse fails alone; an array that does not parse fails
// the whole request, since no item boundary can be trusted.
import { AppError, badRequest } from '../lib/errors.ts';
import type { HttpRequest } from '../lib/http/types.ts';
import { LIMITS } from '../schemas/ingest.ts';

export type BatchItem = { ok: true; value: unknown } | { ok: false; error: AppError };

export const BATCH_CONTENT_TYPES = ['application/json', 'application/x-ndjson'] as const;

export function readBatch(request: HttpRequest): BatchItem[] {
  const mediaType = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  const text = request.body.toString('utf8');
  let items: BatchItem[];
  if (mediaType === 'application/x-ndjson') {
    items = text
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line, index) => {
        try {
          return { ok: true, value: JSON.parse(line) };
        } catch {
          return { ok: false, error: badRequest('malformed_json', `Line ${index + 1} is not valid JSON.`) };
        }
      });
  } else {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw badRequest('malformed_json', 'The request body is not valid JSON.');
    }
    if (!Array.isArray(parsed)) throw badRequest('batch_not_array', 'A batch is a JSON array of items (or NDJSON).');
    items = parsed.map((value) => ({ ok: true, value }));
  }
  if (items.length === 0) throw badRequest('empty_batch', 'The batch holds no items.');
  if (items.length > LIMITS.itemsPerBatch) {
    throw new AppError({ code: 'batch_too_large', status: 413, detail: `A batch holds at most ${LIMITS.itemsPerBatch} items.` });
  }
  return items;
}
