// Event-level and batch-level deduplication shared by the signal and cost loaders.
//
// Delivery is at-least-once, so a batch may come again (same events, same or another batch).
// 1. Event level: one query per batch asks which ids the raw table already holds; those rows
//    are not inserted again (the bloom-filter index on the id keeps this cheap).
// 2. Batch level: the insert carries insert_deduplication_token, so two loaders racing with the
//    same batch (both passed step 1 before either inserted) still write it once, raw table and
//    materialized views alike.
// The token is the caller's token plus a hash of the ids actually inserted. A token must name
// the exact rows: if a retry inserts fewer rows (some landed before a crash), reusing the bare
// caller token would make ClickHouse drop the remaining rows as a "duplicate" of the first try.
import { createHash } from 'node:crypto';
import type { AnalyticsStore } from './store.ts';

/** Keeps the first row of each id; a batch may hold the same event twice. */
export function uniqueById<T>(rows: readonly T[], id: (row: T) => string): T[] {
  const seen = new Set<string>();
  const out: T[] = [];
  for (const row of rows) {
    const key = id(row).toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(row);
  }
  return out;
}

/** Ids of `ids` already stored in `table`.`column` (a UUID column), lower-case. */
export async function existingIds(
  store: AnalyticsStore,
  table: 'raw_signals' | 'raw_cost_events',
  column: 'signal_id' | 'event_id',
  ids: readonly string[],
): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await store.query<{ id: string }>(
    `SELECT DISTINCT toString(${column}) AS id FROM ${table} WHERE ${column} IN {ids:Array(UUID)}`,
    { ids },
  );
  return new Set(rows.map((r) => r.id.toLowerCase()));
}

export function batchToken(callerToken: string, ids: readonly string[]): string {
  const hash = createHash('sha256');
  for (const id of [...ids].map((i) => i.toLowerCase()).sort()) hash.update(id).update('\n');
  return `${callerToken}:${hash.digest('hex').slice(0, 32)}`;
}
