// The analytics store: ClickHouse SQL for quality signals and cost events, on chDB in-process
// (default) or on a ClickHouse server when CLICKHOUSE_URL is set. Callers see one interface and
// write one SQL; this file picks the backend, runs migrations at start, drains on stop, and turns
// outages into AppError `store_unavailable` (503, retryable) so loaders know to retry.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AppError, unavailable } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { AnalyticsBackend, InsertSettings, QueryParams } from './backend.ts';
import { createChdbBackend } from './chdb-backend.ts';
import { applyMigrations } from './migrate.ts';
import { createServerBackend, splitServerUrl } from './server-backend.ts';

export type { QueryParams, QueryParamValue } from './backend.ts';

export interface AnalyticsStoreOptions {
  /** When set, a ClickHouse server over HTTP; otherwise chDB with data under `dataDir`/chdb. */
  clickhouseUrl?: string;
  dataDir: string;
  /** Default: the URL's path if it has one, else `agent_ops`. */
  database?: string;
  logger: Logger;
  /** Folder of numbered DDL files; default `<repo>/clickhouse`. */
  migrationsDir?: string;
}

export interface InsertOptions {
  /**
   * insert_deduplication_token: a retried insert with the same token (into the same table) is
   * dropped, and with it the rows it would have added to materialized views. Without one,
   * ClickHouse deduplicates by the block's content hash.
   */
  dedupToken?: string;
}

export interface AnalyticsStore {
  readonly backend: 'chdb' | 'server';
  readonly database: string;
  /** Connects, creates the database, applies pending migrations. */
  start(): Promise<void>;
  /** Refuses new calls, waits for calls in flight, closes. */
  stop(): Promise<void>;
  ping(): Promise<boolean>;
  command(sql: string, params?: QueryParams): Promise<void>;
  query<T>(sql: string, params?: QueryParams): Promise<T[]>;
  insert(table: string, rows: readonly object[], options?: InsertOptions): Promise<void>;
}

export const DEFAULT_MIGRATIONS_DIR = fileURLToPath(new URL('../../clickhouse/', import.meta.url));

// ClickHouse error codes that describe load or an outage, not a bad statement: try again later.
const RETRYABLE_CODES = new Set([159, 202, 209, 210, 241, 242, 252, 319, 425, 999]);

function clickhouseCode(error: unknown): number | undefined {
  const e = error as { clickhouseCode?: unknown; code?: unknown };
  if (typeof e?.clickhouseCode === 'number') return e.clickhouseCode;
  if (typeof e?.code === 'string' && /^\d+$/.test(e.code)) return Number(e.code);
  return undefined;
}

export function createAnalyticsStore(options: AnalyticsStoreOptions): AnalyticsStore {
  const fromUrl = options.clickhouseUrl ? splitServerUrl(options.clickhouseUrl).database : undefined;
  const database = options.database ?? fromUrl ?? 'agent_ops';
  const chdbDir = path.join(options.dataDir, 'chdb');
  const backend: AnalyticsBackend = options.clickhouseUrl
    ? createServerBackend({ url: options.clickhouseUrl })
    : createChdbBackend({ dataDir: chdbDir });
  const log = options.logger.child({ component: 'analytics', backend: backend.kind });
  const inFlight = new Set<Promise<unknown>>();
  let state: 'new' | 'running' | 'stopping' | 'stopped' = 'new';

  const classify = (error: unknown): never => {
    if (error instanceof AppError) throw error;
    const code = clickhouseCode(error);
    // Without a ClickHouse code, a server-backend failure is the transport (refused, reset, timeout).
    const transient = code === undefined ? backend.kind === 'server' && !(error instanceof TypeError) : RETRYABLE_CODES.has(code);
    if (transient) throw unavailable('The analytics store', error);
    throw error;
  };

  // Every call goes through here so stop() can wait for it and outages map to one error.
  const track = async <T>(work: () => Promise<T>): Promise<T> => {
    if (state !== 'running') throw unavailable('The analytics store');
    const promise = work().catch(classify);
    inFlight.add(promise);
    try {
      return await promise;
    } finally {
      inFlight.delete(promise);
    }
  };

  const store: AnalyticsStore = {
    backend: backend.kind,
    database,

    async start() {
      if (state !== 'new') throw new Error(`analytics store cannot start from state ${state}`);
      if (backend.kind === 'chdb') await mkdir(chdbDir, { recursive: true });
      try {
        await backend.open(database);
      } catch (error) {
        classify(error);
      }
      state = 'running';
      let applied: number;
      try {
        applied = await applyMigrations(store, options.migrationsDir ?? DEFAULT_MIGRATIONS_DIR, log);
      } catch (error) {
        // Fail fast and release the engine: a half-migrated store must not take traffic.
        state = 'stopped';
        await backend.close();
        throw error;
      }
      log.info('analytics store started', { database, migrations_applied: applied });
    },

    async stop() {
      if (state === 'stopped' || state === 'new') {
        state = 'stopped';
        return;
      }
      state = 'stopping';
      await Promise.allSettled([...inFlight]);
      await backend.close();
      state = 'stopped';
      log.info('analytics store stopped');
    },

    async ping() {
      if (state !== 'running') return false;
      try {
        return await backend.ping();
      } catch {
        return false;
      }
    },

    command: (sql, params) => track(() => backend.command(sql, params)),

    query: <T>(sql: string, params?: QueryParams) => track(() => backend.query<T>(sql, params)),

    insert(table, rows, insertOptions = {}) {
      const settings: InsertSettings = {
        insert_deduplicate: 1,
        // Set explicitly: without it a retried block is dropped from the raw table but its
        // materialized-view rows would still be added again.
        deduplicate_blocks_in_dependent_materialized_views: 1,
        // We batch ourselves; server-side async inserts deduplicate differently and ack early.
        async_insert: 0,
      };
      if (insertOptions.dedupToken !== undefined) settings.insert_deduplication_token = insertOptions.dedupToken;
      return track(() => backend.insert(table, rows, settings));
    },
  };
  return store;
}
