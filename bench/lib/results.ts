// Results files of the query and lag scenarios (JSON + Markdown side by side) and the small
// statistics they need. Samples here are few (tens to hundreds), so exact sorted percentiles.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './bench-data.ts';

export interface Percentiles {
  n: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
  max_ms: number;
  mean_ms: number;
}

/** Nearest-rank percentiles (the value below which p % of the samples fall, rounded up). */
export function percentiles(samplesMs: readonly number[]): Percentiles {
  const s = [...samplesMs].sort((a, b) => a - b);
  const at = (p: number) => (s.length === 0 ? 0 : s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!);
  const r = (x: number) => Math.round(x * 100) / 100;
  return {
    n: s.length,
    p50_ms: r(at(50)),
    p95_ms: r(at(95)),
    p99_ms: r(at(99)),
    max_ms: r(s.at(-1) ?? 0),
    mean_ms: r(s.reduce((a, b) => a + b, 0) / Math.max(1, s.length)),
  };
}

/** The command line as typed, for the header of a results file. */
export function commandLine(): string {
  const script = path.relative(ROOT, process.argv[1] ?? '');
  return ['npx tsx', script, ...process.argv.slice(2)].join(' ');
}

/** Writes bench/results/<name>.json and .md; returns both paths (relative to the repo). */
export function writeResults(name: string, json: unknown, markdown: string, outDir = path.join(ROOT, 'bench/results')): string[] {
  mkdirSync(outDir, { recursive: true });
  const base = path.join(outDir, name);
  writeFileSync(`${base}.json`, JSON.stringify(json, null, 2) + '\n');
  writeFileSync(`${base}.md`, markdown.endsWith('\n') ? markdown : markdown + '\n');
  return [`${base}.json`, `${base}.md`].map((p) => path.relative(ROOT, p));
}

/** `YYYY-MM-DDTHH-MM` of now (UTC): runs of the same day get their own files. */
export function stamp(now = new Date()): string {
  return now.toISOString().slice(0, 16).replace(':', '-');
}

export const fmt = (x: number | null | undefined, d = 1) =>
  x === null || x === undefined ? '–' : x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: 0 });
