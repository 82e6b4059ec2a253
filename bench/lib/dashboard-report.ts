// Markdown of a dashboard-queries run: machine, command, data, one table of latencies (store
// with views, store without, HTTP) and the profile (rows and bytes read per query).
import type { Manifest } from '../bulk-generate.ts';
import { machineMarkdown, type MachineInfo } from './machine.ts';
import { fmt, type Percentiles } from './results.ts';

export const TARGET_P95_MS = 100;

export interface Row extends Percentiles {
  question: string;
  label: string;
  via: 'store' | 'http';
  variant: 'views' | 'raw' | 'postgres';
  answer_rows?: number;
  answer_bytes?: number;
  /** Busy cores machine-wide during the timed calls, and those that were not this benchmark's. */
  machine_busy_cores?: number;
  others_cores?: number;
}

export interface ProfileRow {
  query: string;
  engine_ms: number;
  tables: string;
  /** EXPLAIN ESTIMATE: rows, parts and marks left to read after primary key and partition pruning. */
  rows_to_read: number;
  parts: number;
  marks: number;
}

export interface DashboardReport {
  machine: MachineInfo;
  command: string;
  data_dir: string;
  manifest: Manifest;
  loop: { iterations: number; maxSeconds: number; warmup: number };
  tables: { table: string; rows: number; parts: number; bytes_on_disk: number }[];
  verified_answers: number;
  rows: Row[];
  profile: ProfileRow[];
}

export function renderDashboardMarkdown(r: DashboardReport): string {
  const m = r.manifest;
  const out = [
    `# Dashboard queries, ${fmt(m.checks / 1e6, 0)}M check results`,
    '',
    '## Machine',
    machineMarkdown(r.machine),
    '',
    '## Command',
    '```',
    r.command,
    '```',
    '',
    `Data: \`${r.data_dir}\`, ${fmt(m.checks, 0)} check results, ${fmt(m.signals, 0)} signals and cost events, ${m.agents} agents, ` +
      `${m.days} days up to ${m.to}. Each row: ${r.loop.warmup} warm-up calls, then up to ${r.loop.iterations} timed calls one after another ` +
      `(stopping after ${r.loop.maxSeconds} s once 5 are in). "store" calls the read function in this process (chDB in-process, ` +
      'PostgreSQL over loopback); "http" is the whole request to the service (`--role api`) over one keep-alive connection.',
    '',
    r.verified_answers > 0
      ? `Views and raw tables gave identical answers on ${r.verified_answers} sampled calls (deepStrictEqual).`
      : 'Raw-table variant not run.',
    '',
    `Target: view-backed p95 ≤ ${TARGET_P95_MS} ms.`,
    '',
    '"others" is the CPU (in cores) that the rest of the machine used during the timed calls: other people\'s work.',
    '',
    '| question | via | data | n | p50 ms | p95 ms | max ms | answer | target | others |',
    '|---|---|---|---:|---:|---:|---:|---:|---|---:|',
  ];
  for (const row of r.rows) {
    const answer = row.answer_bytes !== undefined ? `${fmt(row.answer_bytes / 1024)} KiB` : `${fmt(row.answer_rows, 0)} rows`;
    const target = row.variant === 'raw' ? '–' : row.p95_ms <= TARGET_P95_MS ? 'met' : '**missed**';
    out.push(`| ${row.label} | ${row.via} | ${row.variant} | ${row.n} | ${fmt(row.p50_ms)} | ${fmt(row.p95_ms)} | ${fmt(row.max_ms)} | ${answer} | ${target} | ${fmt(row.others_cores, 2)} |`);
  }
  out.push('', '## Tables', '', '| table | rows | active parts | on disk (MiB) |', '|---|---:|---:|---:|');
  for (const t of r.tables) out.push(`| ${t.table} | ${fmt(t.rows, 0)} | ${t.parts} | ${fmt(t.bytes_on_disk / 2 ** 20)} |`);
  if (r.profile.length) {
    out.push(
      '',
      '## Profile',
      '',
      'Each query of a question replayed 3 times on a bare chDB session (best of 3 engine time); rows, parts and marks to read from `EXPLAIN ESTIMATE` (after primary-key and partition pruning).',
      '',
      '| query | engine ms | table | rows to read | parts | marks |',
      '|---|---:|---|---:|---:|---:|',
    );
    for (const p of r.profile) out.push(`| ${p.query} | ${fmt(p.engine_ms)} | ${p.tables} | ${fmt(p.rows_to_read, 0)} | ${p.parts} | ${fmt(p.marks, 0)} |`);
  }
  return out.join('\n');
}
