// chDB backend: the ClickHouse engine inside this process, data under one folder.
//
// We use chDB's native Session rather than `chdb/connection` under @clickhouse/client: that
// adapter turns per-request `clickhouse_settings` into session-wide `SET` statements, so an
// insert_deduplication_token would stay on the session and silently drop the next, different
// insert as a duplicate. The native raw insert puts settings in the INSERT's own SETTINGS clause.
// Every call is the async API (queryAsync / queryBindAsync / insert): the engine works on a
// libuv thread and the event loop stays free.
//
// The engine is a process singleton bound to one data folder: open one store per process.
import type { Session as ChdbSession } from 'chdb';
import { assertIdentifier, type AnalyticsBackend, type InsertSettings, type QueryParams } from './backend.ts';

export interface ChdbBackendOptions {
  dataDir: string;
}

// Given at connect because chDB has no per-client settings: 64-bit counts as JSON numbers
// (our sums stay far below 2^53), the same behaviour the server backend asks for per request.
const CONNECTION_ARGS = ['--output_format_json_quote_64bit_integers=0'];

export function createChdbBackend(options: ChdbBackendOptions): AnalyticsBackend {
  let session: ChdbSession | undefined;

  const current = (): ChdbSession => {
    if (!session) throw new Error('chDB session is not open');
    return session;
  };

  const run = async (sql: string, params?: QueryParams, format = 'JSONEachRow') => {
    const s = current();
    if (params && Object.keys(params).length > 0) return s.queryBindAsync(sql, params, { format });
    return s.queryAsync(sql, { format });
  };

  return {
    kind: 'chdb',

    async open(database) {
      // Loaded here, not at module load, so a server-only process never maps the native library.
      const { Session } = await import('chdb');
      session = new Session(options.dataDir, { connectionArgs: CONNECTION_ARGS });
      const db = assertIdentifier(database);
      await session.queryAsync(`CREATE DATABASE IF NOT EXISTS ${db}`);
      // A chDB session keeps its current database, so unqualified DDL and queries land in `db`.
      await session.queryAsync(`USE ${db}`);
    },

    async close() {
      session?.close();
      session = undefined;
    },

    async ping() {
      if (!session) return false;
      try {
        const result = await session.queryAsync('SELECT 1', { format: 'CSV' });
        return result.text().trim() === '1';
      } catch {
        return false;
      }
    },

    async command(sql, params) {
      await run(sql, params, 'CSV');
    },

    async query<T>(sql: string, params?: QueryParams): Promise<T[]> {
      const result = await run(sql, params);
      const text = result.text();
      const rows: T[] = [];
      for (const line of text.split('\n')) if (line.length > 0) rows.push(JSON.parse(line) as T);
      return rows;
    },

    async insert(table: string, rows: readonly object[], settings: InsertSettings) {
      if (rows.length === 0) return;
      const body = rows.map((r) => JSON.stringify(r)).join('\n');
      await current().insert({ table: assertIdentifier(table), values: body, format: 'JSONEachRow', settings });
    },
  };
}
