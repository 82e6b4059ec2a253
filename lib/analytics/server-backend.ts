// ClickHouse server backend over HTTP (@clickhouse/client). Each request carries its own
// settings, so nothing leaks between inserts. The same SQL as the chDB backend runs here.
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { assertIdentifier, type AnalyticsBackend, type InsertSettings, type QueryParams } from './backend.ts';

export interface ServerBackendOptions {
  /** http(s)://[user:password@]host:port[/database]; a path is the database when none is given. */
  url: string;
  requestTimeoutMs?: number;
}

// Same output shape as the chDB backend: 64-bit counts as JSON numbers.
const READ_SETTINGS = { output_format_json_quote_64bit_integers: 0 } as const;

/** The client treats a URL path as the database and lets it win; we pick the database ourselves. */
export function splitServerUrl(raw: string): { url: string; database?: string } {
  const url = new URL(raw);
  const path = url.pathname.replace(/^\/+|\/+$/g, '');
  url.pathname = '/';
  return { url: url.toString(), database: path === '' ? undefined : decodeURIComponent(path) };
}

export function createServerBackend(options: ServerBackendOptions): AnalyticsBackend {
  const { url } = splitServerUrl(options.url);
  let client: ClickHouseClient | undefined;

  const current = (): ClickHouseClient => {
    if (!client) throw new Error('ClickHouse client is not open');
    return client;
  };

  const make = (database: string) =>
    createClient({
      url,
      database,
      application: 'agent-operations-registry',
      request_timeout: options.requestTimeoutMs ?? 30_000,
      clickhouse_settings: READ_SETTINGS,
    });

  return {
    kind: 'server',

    async open(database) {
      const db = assertIdentifier(database);
      // An HTTP request naming a missing database fails, CREATE DATABASE included: bootstrap from default.
      const bootstrap = make('default');
      try {
        await bootstrap.command({ query: `CREATE DATABASE IF NOT EXISTS ${db}` });
      } finally {
        await bootstrap.close();
      }
      client = make(db);
    },

    async close() {
      await client?.close();
      client = undefined;
    },

    async ping() {
      if (!client) return false;
      const result = await client.ping();
      return result.success;
    },

    async command(sql, params) {
      await current().command({ query: sql, query_params: params });
    },

    async query<T>(sql: string, params?: QueryParams): Promise<T[]> {
      const result = await current().query({ query: sql, query_params: params, format: 'JSONEachRow' });
      return result.json<T>();
    },

    async insert(table: string, rows: readonly object[], settings: InsertSettings) {
      if (rows.length === 0) return;
      await current().insert({
        table: assertIdentifier(table),
        values: rows as object[],
        format: 'JSONEachRow',
        clickhouse_settings: settings,
      });
    },
  };
}
