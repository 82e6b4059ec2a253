// The synthetic company the query and lag benchmarks run against: agent ids, departments and
// models shared by the generator (which writes them) and the benchmarks (which ask about them).
// Agent ids are computed, not stored, so SQL in ClickHouse and in PostgreSQL derive the same
// UUID from an agent's number without a join.
import { existsSync, mkdirSync, statfsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLogger, type Logger } from '../../lib/log.ts';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** Gitignored (.cache/); every data set of these benchmarks lives below it. */
export const BENCH_DATA_ROOT = path.join(ROOT, '.cache/bench-data');

export const DEPARTMENTS = [
  'Finance', 'Sales', 'Support', 'Engineering', 'Legal', 'HR', 'Marketing', 'Operations', 'Procurement', 'Risk',
  'Compliance', 'IT', 'Security', 'Data', 'Product', 'Research', 'Customer Success', 'Treasury', 'Audit', 'Facilities',
];

/** Model, provider, USD per million input and output tokens (list prices of late 2024). */
export const MODELS: ReadonlyArray<[string, string, number, number]> = [
  ['gpt-4o-mini', 'openai', 0.15, 0.6],
  ['gpt-4o', 'openai', 2.5, 10],
  ['claude-3-5-sonnet', 'anthropic', 3, 15],
  ['claude-3-5-haiku', 'anthropic', 0.8, 4],
  ['gemini-1.5-flash', 'google', 0.075, 0.3],
  ['llama-3.1-70b', 'meta', 0.88, 0.88],
];

export const CHECKS = 50;
export const CHECKS_PER_SIGNAL = 4;
export const SEVERITIES = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW'];

/** `b0000000-0000-4000-8000-<12 hex digits of n>`: a valid v4 layout, readable in results. */
export function agentUuid(n: number): string {
  return `b0000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
}
export const agentExternalId = (n: number) => `bench-agent-${n}`;

/** The same UUID in ClickHouse SQL, from an integer expression. */
export const agentUuidSql = (n: string) => `toUUID(concat('b0000000-0000-4000-8000-', leftPad(lower(hex(toUInt64(${n}))), 12, '0')))`;
/** ...and in PostgreSQL. */
export const agentUuidPg = (n: string) => `('b0000000-0000-4000-8000-' || lpad(to_hex(${n}), 12, '0'))::uuid`;

export const sqlArray = (items: readonly (string | number)[]) =>
  `[${items.map((i) => (typeof i === 'number' ? String(i) : `'${i.replace(/'/g, "''")}'`)).join(', ')}]`;

/** `.cache/bench-data/<label>`; refuses paths outside it so a typo never deletes real data. */
export function dataDirFor(labelOrPath: string): string {
  const dir = labelOrPath.includes('/') ? path.resolve(labelOrPath) : path.join(BENCH_DATA_ROOT, labelOrPath);
  if (!dir.startsWith(BENCH_DATA_ROOT + path.sep)) throw new Error(`data dir must be under ${BENCH_DATA_ROOT}: ${dir}`);
  return dir;
}

export function freeDiskGiB(dir: string): number {
  let probe = dir;
  while (!existsSync(probe)) probe = path.dirname(probe);
  const s = statfsSync(probe);
  return (s.bavail * s.bsize) / 2 ** 30;
}

export function ensureDir(dir: string): void {
  mkdirSync(dir, { recursive: true });
}

/** Benchmarks log only warnings from the product's own modules. */
export function quietLogger(): Logger {
  return createLogger('warn', { component: 'bench' });
}

/** Label of a check count: 10000000 -> "10m". */
export function countLabel(n: number): string {
  if (n % 1_000_000 === 0) return `${n / 1_000_000}m`;
  if (n % 1_000 === 0) return `${n / 1_000}k`;
  return String(n);
}
