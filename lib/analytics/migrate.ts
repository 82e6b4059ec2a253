// Applies the numbered DDL files of clickhouse/ in order, each once, recording applied versions
// in `schema_migrations` inside ClickHouse itself (so chDB and a server track their own state).
//
// Rules for a migration file: named NNN_snake_case.sql, first line a `-- why` comment, statements
// end with `;` at the end of a line, and every statement is idempotent (IF NOT EXISTS, ADD COLUMN
// IF NOT EXISTS, ...). Idempotence is what makes two processes starting at once safe: both may
// apply the same file, the second run changes nothing, and readers take DISTINCT versions.
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../log.ts';
import type { AnalyticsStore } from './store.ts';

export interface Migration {
  version: number;
  name: string;
  checksum: string;
  statements: string[];
}

const FILE_NAME = /^(\d{3})_([a-z0-9_]+)\.sql$/;

// The tracking table is created here, not by a numbered file, because it must exist before the
// first numbered file can be recorded.
const CREATE_TRACKING_TABLE = `CREATE TABLE IF NOT EXISTS schema_migrations
(
    version    UInt32,
    name       String,
    checksum   String,
    applied_at DateTime64(3, 'UTC') DEFAULT now64(3, 'UTC')
)
ENGINE = MergeTree
ORDER BY version`;

/** Splits on `;` at a line end; chunks that hold only comments are dropped. */
export function splitStatements(sql: string): string[] {
  return sql
    .split(/;[ \t]*(?:\r?\n|$)/)
    .map((chunk) => chunk.trim())
    .filter((chunk) => chunk.split('\n').some((line) => line.trim() !== '' && !line.trim().startsWith('--')));
}

export async function loadMigrations(dir: string): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.sql')).sort();
  const migrations: Migration[] = [];
  const seen = new Set<number>();
  for (const file of files) {
    const match = FILE_NAME.exec(file);
    if (!match) throw new Error(`clickhouse migration ${file}: name must be NNN_snake_case.sql`);
    const version = Number(match[1]);
    if (seen.has(version)) throw new Error(`clickhouse migration ${file}: version ${version} is used twice`);
    seen.add(version);
    const text = await readFile(path.join(dir, file), 'utf8');
    if (!/^-- why\b/.test(text)) throw new Error(`clickhouse migration ${file}: first line must be a "-- why" comment`);
    const statements = splitStatements(text);
    if (statements.length === 0) throw new Error(`clickhouse migration ${file}: no statements`);
    const checksum = createHash('sha256').update(text).digest('hex');
    migrations.push({ version, name: match[2]!, checksum, statements });
  }
  return migrations;
}

/** Returns how many migrations this call applied. */
export async function applyMigrations(store: AnalyticsStore, dir: string, log: Logger): Promise<number> {
  const migrations = await loadMigrations(dir);
  await store.command(CREATE_TRACKING_TABLE);
  const rows = await store.query<{ version: number; checksum: string }>(
    'SELECT version, any(checksum) AS checksum FROM schema_migrations GROUP BY version',
  );
  const applied = new Map(rows.map((r) => [r.version, r.checksum]));
  let count = 0;
  for (const migration of migrations) {
    const recorded = applied.get(migration.version);
    if (recorded !== undefined) {
      // Editing an applied file does not re-run it; say so instead of failing a start.
      if (recorded !== migration.checksum) {
        log.warn('applied clickhouse migration changed on disk; add a new file instead', { version: migration.version });
      }
      continue;
    }
    for (const statement of migration.statements) await store.command(statement);
    await store.insert('schema_migrations', [
      { version: migration.version, name: migration.name, checksum: migration.checksum },
    ]);
    log.info('applied clickhouse migration', { version: migration.version, name: migration.name });
    count++;
  }
  return count;
}
