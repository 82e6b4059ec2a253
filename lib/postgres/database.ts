// The PostgreSQL pool of a process, and a transaction helper. Connection failures surface
// as 503 `store_unavailable` so clients retry instead of seeing a 500.
import pg from 'pg';
import { AppError, unavailable } from '../errors.ts';

/** A pool, a transaction's client or our Database: anything that runs a parameterised query. */
export interface Queryable {
  query<T extends pg.QueryResultRow = any>(sql: string, params?: unknown[]): Promise<pg.QueryResult<T>>;
}

export interface Database {
  pool: pg.Pool;
  query<T extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<pg.QueryResult<T>>;
  transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T>;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

// Errors that mean "the database is not there right now" rather than "the query is wrong".
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', '57P01', '57P02', '57P03', '53300', '08000', '08001', '08003', '08006']);

export function isUnavailable(error: unknown): boolean {
  const code = (error as { code?: string } | undefined)?.code;
  if (code && UNAVAILABLE_CODES.has(code)) return true;
  const message = (error as Error | undefined)?.message ?? '';
  return /Connection terminated|timeout exceeded when trying to connect/.test(message);
}

function translate(error: unknown): never {
  if (error instanceof AppError) throw error;
  if (isUnavailable(error)) throw unavailable('The database', error);
  throw error;
}

export function createDatabase(url: string, options: { max?: number } = {}): Database {
  const pool = new pg.Pool({ connectionString: url, max: options.max ?? 20, connectionTimeoutMillis: 5_000, idleTimeoutMillis: 30_000 });
  // An idle client losing its server must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  return {
    pool,
    query: (sql, params) => pool.query(sql, params as unknown[]).catch(translate),
    async transaction(work) {
      const client = await pool.connect().catch(translate);
      try {
        await client.query('BEGIN');
        const result = await work(client);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        translate(error);
      } finally {
        client.release();
      }
    },
    ping: () => pool.query('SELECT 1').then(() => true, () => false),
    close: () => pool.end(),
  };
}
