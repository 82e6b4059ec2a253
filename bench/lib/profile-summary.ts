// Top functions by self time in a V8 .cpuprofile (written by `node --cpu-prof`), and self time
// per source file or npm package, as Markdown tables.
//
//   npx tsx bench/lib/profile-summary.ts bench/results/profiles/<file>.cpuprofile [--top 25]
//
// A --cpu-prof profile samples the JavaScript thread only: work on libuv pool threads (chDB
// inserts) or ClickHouse's own threads never appears here; bench/lib/sampling.ts says how much
// CPU those threads took.
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { flagNumber, parseFlags } from './args.ts';
import { TsxSourceMaps } from './tsx-source-map.ts';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface SelfTime {
  name: string;
  where: string;
  self_ms: number;
  self_pct: number;
}

export interface ProfileSummary {
  file: string;
  duration_s: number;
  /** Sampled time that was not idle, ms. */
  busy_ms: number;
  functions: SelfTime[];
  areas: SelfTime[];
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Repository-relative path, "pkg:<name>" for a dependency, "node:<module>" for Node's own. */
function where(url: string): string {
  if (!url) return '';
  const p = url.startsWith('file://') ? fileURLToPath(url) : url;
  const nm = p.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = p.slice(nm + 'node_modules/'.length).split('/');
    return `pkg:${rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]}`;
  }
  if (p.startsWith('node:')) return p;
  if (p.startsWith(ROOT)) return path.relative(ROOT, p);
  return p;
}

export function summarise(file: string, top = 25): ProfileSummary {
  const prof = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  for (let i = 0; i < prof.samples.length; i++) {
    const id = prof.samples[i]!;
    selfUs.set(id, (selfUs.get(id) ?? 0) + (prof.timeDeltas[i] ?? 0));
  }
  // Our .ts files ran through tsx, minified onto one line: map columns back to source lines.
  const maps = new TsxSourceMaps(statSync(file).mtimeMs);
  const line = (cf: CallFrame): string => {
    const p = cf.url.startsWith('file://') ? fileURLToPath(cf.url) : cf.url;
    if (!p.endsWith('.ts') || p.includes('node_modules')) return String(cf.lineNumber + 1);
    return String(maps.originalLine(p, cf.lineNumber, cf.columnNumber) ?? `${cf.lineNumber + 1} col ${cf.columnNumber}`);
  };
  const fns = new Map<string, { name: string; where: string; us: number }>();
  const areas = new Map<string, number>();
  let busyUs = 0;
  for (const [id, us] of selfUs) {
    const cf = byId.get(id)!.callFrame;
    if (cf.functionName === '(idle)') continue;
    busyUs += us;
    const w = where(cf.url);
    const name = cf.functionName || '(anonymous)';
    const at = w ? `${w}:${line(cf)}` : '';
    const key = `${name}\u0000${at}`;
    const entry = fns.get(key) ?? { name, where: at, us: 0 };
    entry.us += us;
    fns.set(key, entry);
    const area = w || name; // (program), (garbage collector) have no url
    areas.set(area, (areas.get(area) ?? 0) + us);
  }
  const pct = (us: number) => Math.round((us / busyUs) * 1000) / 10;
  const ms = (us: number) => Math.round(us / 100) / 10;
  return {
    file,
    duration_s: Math.round((prof.endTime - prof.startTime) / 1e4) / 100,
    busy_ms: ms(busyUs),
    functions: [...fns.values()].sort((a, b) => b.us - a.us).slice(0, top).map((e) => ({ name: e.name, where: e.where, self_ms: ms(e.us), self_pct: pct(e.us) })),
    areas: [...areas].sort((a, b) => b[1] - a[1]).slice(0, top).map(([a, us]) => ({ name: a, where: '', self_ms: ms(us), self_pct: pct(us) })),
  };
}

export function summaryMarkdown(s: ProfileSummary, topAreas = 12): string {
  return [
    `Profile \`${path.relative(ROOT, s.file)}\`: ${s.duration_s} s recorded, ${s.busy_ms.toLocaleString('en-US')} ms of it busy on the JavaScript thread (self-time shares below are of the busy time).`,
    '',
    '| # | function | where | self ms | self % |',
    '|---:|---|---|---:|---:|',
    ...s.functions.map((f, i) => `| ${i + 1} | \`${f.name}\` | ${f.where} | ${f.self_ms.toLocaleString('en-US')} | ${f.self_pct} |`),
    '',
    '| file or package | self ms | self % |',
    '|---|---:|---:|',
    ...s.areas.slice(0, topAreas).map((a) => `| ${a.name} | ${a.self_ms.toLocaleString('en-US')} | ${a.self_pct} |`),
  ].join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const argv = process.argv.slice(2);
  const file = argv.find((a) => a.endsWith('.cpuprofile'));
  if (!file) {
    console.error('usage: npx tsx bench/lib/profile-summary.ts <file.cpuprofile> [--top 25]');
    process.exit(2);
  }
  console.log(summaryMarkdown(summarise(file, flagNumber(parseFlags(argv), 'top', 25))));
}
