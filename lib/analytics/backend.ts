// The small contract both analytics backends (chDB in-process, ClickHouse server over HTTP)
// fulfil. The store (store.ts) adds lifecycle, draining and error classification on top, so a
// backend only has to speak SQL.

/** Values bound to `{name:Type}` placeholders; the engine parses them, SQL text never holds them. */
export type QueryParamValue = string | number | boolean | null | ReadonlyArray<string | number>;
export type QueryParams = Record<string, QueryParamValue>;

/** Settings that travel with one insert only (never left behind on a session). */
export type InsertSettings = Record<string, string | number>;

export interface AnalyticsBackend {
  readonly kind: 'chdb' | 'server';
  /** Connects and creates `database` if missing; later statements run in it. */
  open(database: string): Promise<void>;
  close(): Promise<void>;
  ping(): Promise<boolean>;
  command(sql: string, params?: QueryParams): Promise<void>;
  /** Rows of a SELECT, parsed from JSONEachRow; 64-bit integers come back as numbers. */
  query<T>(sql: string, params?: QueryParams): Promise<T[]>;
  insert(table: string, rows: readonly object[], settings: InsertSettings): Promise<void>;
}

/** Table names come from our code, never from input; still refuse anything that is not a name. */
export function assertIdentifier(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`not a plain identifier: ${JSON.stringify(name)}`);
  return name;
}
