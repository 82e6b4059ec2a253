// Results files of the ingest benchmarks: JSON (everything) and Markdown (the machine, the
// exact command, one row per measurement, the per-thread CPU split, the repeat-to-repeat spread
// and each target with the figure behind it).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { IngestRow } from './ingest-measure.ts';
import { machineMarkdown, type MachineInfo } from './machine.ts';

export interface TargetCheck {
  target: string;
  goal: string;
  measured: string;
  /** null: not measured. */
  met: boolean | null;
}

export interface IngestReport {
  title: string;
  machine: MachineInfo;
  shared_machine_note: string;
  command: string;
  /** Commit of the service measured (bench/lib/ingest-service.ts serviceRevision). */
  service_revision: string;
  settings: Record<string, unknown>;
  /** How each measured process was started. */
  processes: Record<string, string>;
  rows: IngestRow[];
  checks: TargetCheck[];
  notes: string[];
  /** Rows found in the store after the run, against the items acknowledged. */
  stored?: Record<string, unknown>;
  /** Profile passes (bench/lib/ingest-profile.ts), when any ran. */
  profiles?: ReportProfile[];
}

export interface ReportProfile {
  title: string;
  file: string;
  command: string;
  markdown: string;
  row: IngestRow;
}

export const SHARED_NOTE =
  'The machine (2 cores) was shared with other engineers while measuring: "others\' CPU" is what the rest of the machine used during each row. Every row held /tmp/aor-bench.lock, so no other benchmark measured at the same time, but test runs may have.';

const f = (x: number | undefined, d = 0) => (x === undefined || Number.isNaN(x) ? '–' : x.toLocaleString('en-US', { maximumFractionDigits: d }));
const kv = (o: Record<string, number>, d = 2) => Object.entries(o).map(([k, v]) => `${k} ${f(v, d)}`).join(', ');

function badCount(r: IngestRow): string {
  const l = r.load;
  const non2xx = Object.entries(l.statuses).filter(([k]) => !k.startsWith('2')).map(([k, v]) => `${v}×${k}`);
  const errs = Object.entries(l.errors).map(([k, v]) => `${v} ${k}`);
  const parts = [...non2xx, ...errs, ...(l.unsent ? [`${l.unsent} unsent`] : [])];
  return parts.length ? parts.join(', ') : '0';
}

export function rowsTable(rows: IngestRow[]): string[] {
  const out = [
    '| target | run | load | req/s | items/s | sustained | p50 ms | p99 ms | max ms | service p50/p99 | CPU (cores) | items per CPU-s | generator CPU | others\' CPU | peak RSS MiB (HWM) | not ok |',
    '|---|---:|---|---:|---:|---|---:|---:|---:|---:|---|---:|---:|---:|---|---|',
  ];
  for (const r of rows) {
    const l = r.load;
    const load = l.mode === 'max' ? `max, ${l.connections} conn` : `${r.label}: ${f(l.target_rps ?? 0)} req/s, ${l.connections} conn`;
    const sustained = l.sustained === null ? '–' : l.sustained ? 'yes' : '**no**';
    const service = l.service_latency ? `${f(l.service_latency.p50_ms, 2)} / ${f(l.service_latency.p99_ms, 2)}` : '–';
    const mem = Object.entries(r.memory).map(([k, m]) => `${k} ${f(m.peak_rss_mib)} (${f(m.hwm_mib)})`).join(', ');
    out.push(
      `| ${r.target} | ${r.repeat} | ${load} | ${f(l.throughput_rps)} | ${f(r.items_per_s)} | ${sustained} | ${f(l.latency.p50_ms, 2)} | ${f(l.latency.p99_ms, 2)} | ${f(l.latency.max_ms, 1)} | ${service} | ${kv(r.cpu_cores)} | ${f(r.items_per_cpu_s)} | ${f(l.generator_cpu_cores, 2)} | ${f(r.others_cores, 2)} | ${mem} | ${badCount(r)} |`,
    );
  }
  return out;
}

/** Run 1 against run 2 of the same row: is the second within the noise of the first? */
export function spreadTable(rows: IngestRow[]): string[] {
  const groups = new Map<string, IngestRow[]>();
  for (const r of rows) groups.set(`${r.target}|${r.label}`, [...(groups.get(`${r.target}|${r.label}`) ?? []), r]);
  const out = ['| target | load | items/s by run | Δ | items per CPU-s by run | Δ | p99 ms by run |', '|---|---|---|---:|---|---:|---|'];
  const delta = (xs: number[]) => (xs.length < 2 || !xs[0] ? '–' : `${f(((xs.at(-1)! - xs[0]) / xs[0]) * 100, 0)} %`);
  for (const [key, rs] of groups) {
    if (rs.length < 2) continue;
    const [target, label] = key.split('|');
    const ips = rs.map((r) => r.items_per_s);
    const ipc = rs.map((r) => r.items_per_cpu_s);
    out.push(`| ${target} | ${label} | ${ips.map((x) => f(x)).join(' / ')} | ${delta(ips)} | ${ipc.map((x) => f(x)).join(' / ')} | ${delta(ipc)} | ${rs.map((r) => f(r.load.latency.p99_ms, 1)).join(' / ')} |`);
  }
  return out.length > 2 ? out : [];
}

function threadsTable(rows: IngestRow[]): string[] {
  const withThreads = rows.filter((r) => r.load.mode === 'max' && Object.keys(r.threads).length > 1);
  if (!withThreads.length) return [];
  return [
    'CPU of the first process of each max row by thread group, in cores. `main` is the JavaScript thread (what `--cpu-prof` sees); `Unknown` are libuv pool threads (chDB inserts and queries run there); `MergeMutate`, `ThreadPool`, `BgSchPool` are ClickHouse\'s own threads inside chDB; other `node` threads are V8 (GC, compiler).',
    '',
    '| target | run | threads |',
    '|---|---:|---|',
    ...withThreads.map((r) => `| ${r.target} | ${r.repeat} | ${kv(r.threads)} |`),
  ];
}

/** `rowsSection` replaces the table of HTTP rows (the OTLP report has rows of its own). */
export function renderIngestReport(r: IngestReport, rowsSection?: string[]): string {
  const out = [
    `# ${r.title}, ${r.machine.date.slice(0, 10)}`,
    '',
    '## Machine',
    machineMarkdown(r.machine),
    `- ${r.shared_machine_note}`,
    `- Service code: ${r.service_revision}`,
    '',
    '## Command',
    '```',
    r.command,
    '```',
    '',
    'Processes measured:',
    '',
    ...Object.entries(r.processes).map(([k, v]) => `- ${k}: \`${v}\``),
    '',
    `Settings: ${Object.entries(r.settings).filter(([, v]) => v !== undefined && typeof v !== 'function').map(([k, v]) => `${k} ${JSON.stringify(v)}`).join(', ')}`,
    '',
    '## Targets',
    '',
    '| target | goal | measured | met |',
    '|---|---|---|---|',
    ...r.checks.map((c) => `| ${c.target} | ${c.goal} | ${c.measured} | ${c.met === null ? 'not measured' : c.met ? 'yes' : '**no**'} |`),
    '',
    '## Rows',
    '',
    ...(rowsSection ?? [
      'Latency in ms; rate rows from the intended send time (coordinated-omission corrected), "service" from the actual send. CPU in cores (1.0 = one core busy for the whole window). items per CPU-s: items acknowledged divided by the CPU-seconds of every process listed under CPU.',
      '',
      ...rowsTable(r.rows),
    ]),
    '',
  ];
  const spread = spreadTable(r.rows);
  if (spread.length) out.push('## Run to run', '', ...spread, '');
  const threads = threadsTable(r.rows);
  if (threads.length) out.push('## Where the CPU goes', '', ...threads, '');
  if (r.stored) out.push('## Stored', '', '```json', JSON.stringify(r.stored, null, 2), '```', '');
  for (const p of r.profiles ?? []) {
    out.push(`## CPU profile: ${p.title} (JavaScript thread)`, '', `Process: \`${p.command}\`, same load as the max row; ${f(p.row.items_per_s)} items/s while profiled (profiling slows it), ${kv(p.row.cpu_cores)} cores.`, '', p.markdown, '');
  }
  if (r.notes.length) out.push('## Notes', '', ...r.notes.map((n) => `- ${n}`), '');
  return out.join('\n');
}

export function writeReport<R extends IngestReport>(dir: string, name: string, r: R, render: (r: R) => string = (x) => renderIngestReport(x)): string {
  mkdirSync(dir, { recursive: true });
  const base = path.join(dir, `${name}-${r.machine.date.slice(0, 10)}`);
  writeFileSync(`${base}.json`, JSON.stringify(r, null, 2) + '\n');
  writeFileSync(`${base}.md`, render(r));
  return base;
}

/** Best of the repeats of one row, by items/s (the figure a target is checked against). */
export function best(rows: IngestRow[], target: string, label: string): IngestRow | undefined {
  return rows.filter((r) => r.target === target && r.label === label).sort((a, b) => b.items_per_s - a.items_per_s)[0];
}

/** Every repeat of one row. */
export function all(rows: IngestRow[], target: string, label: string): IngestRow[] {
  return rows.filter((r) => r.target === target && r.label === label);
}
