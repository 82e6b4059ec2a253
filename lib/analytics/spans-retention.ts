// Span retention (SPAN_RETENTION_DAYS). The DDL files are fixed text, so the configured value is
// applied at start with ALTER TABLE ... MODIFY TTL: the same SQL on chDB and a server. It runs
// only when the table's TTL differs, because a TTL change rewrites the table's parts (a
// mutation); an unchanged restart costs one small read of system.tables.
import type { Logger } from '../log.ts';
import type { AnalyticsStore } from './store.ts';

/** Tables whose rows expire with the spans, and the column their TTL counts from. */
const SPAN_TABLES: ReadonlyArray<{ table: string; column: string }> = [
  { table: 'raw_spans', column: 'received_at' },
  { table: 'span_traces', column: 'last_received' },
];

/** Days of the table's current TTL, or undefined when it has none (or one we did not write). */
export async function currentSpanRetentionDays(store: AnalyticsStore, table = 'raw_spans'): Promise<number | undefined> {
  const rows = await store.query<{ engine_full: string }>(
    'SELECT engine_full FROM system.tables WHERE database = currentDatabase() AND name = {table:String}',
    { table },
  );
  // ClickHouse prints `INTERVAL 30 DAY` back as `toIntervalDay(30)`.
  const match = /\bTTL\b.*?toIntervalDay\((\d+)\)/.exec(rows[0]?.engine_full ?? '');
  return match ? Number(match[1]) : undefined;
}

/** Sets the TTL of the span tables to `days`; returns the tables it changed. */
export async function applySpanRetention(store: AnalyticsStore, days: number, logger?: Logger): Promise<string[]> {
  // Interpolated, not bound: DDL takes no query parameters. The check keeps it a plain integer.
  if (!Number.isSafeInteger(days) || days < 1) throw new RangeError(`span retention must be a positive whole number of days, got ${days}`);
  const changed: string[] = [];
  for (const { table, column } of SPAN_TABLES) {
    if ((await currentSpanRetentionDays(store, table)) === days) continue;
    await store.command(`ALTER TABLE ${table} MODIFY TTL toDateTime(${column}) + INTERVAL ${days} DAY`);
    changed.push(table);
  }
  if (changed.length > 0) logger?.info('span retention set', { days, tables: changed });
  return changed;
}
