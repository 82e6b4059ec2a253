// What one file says about agents: framework imports or configuration, dependencies, agent
// names, models, providers, API-key variable names and personal-data hints, each with its line.
import path from 'node:path';
import { FRAMEWORKS } from './frameworks.ts';
import { findImports } from './imports.ts';
import { findAgentNames } from './names.ts';
import { PII_STEMS, findPii } from './pii.ts';
import {
  API_KEY_VAR,
  MODEL_ARGUMENT,
  MODEL_CONFIG_LINE,
  MODEL_LITERAL,
  PROVIDER_HINTS,
  looksLikeModel,
  splitModel,
} from './providers.ts';
import type { EvidenceKind, FileFindings, FrameworkId } from './types.ts';
import type { FileKind } from './walker.ts';

const MAX_MATCH = 160;

// Evidence is shown to users and stored: never let a secret through, even one written inline
// next to a model name or an import.
export function redact(text: string): string {
  return text
    .replace(/\b(sk|pk|rk)[-_](?:[A-Za-z0-9]+[-_])*[A-Za-z0-9]{12,}/g, '$1-<redacted>')
    .replace(/\b(AIza|ghp_|gho_|xox[bpas]-|hf_|gsk_|AKIA)[A-Za-z0-9_-]{8,}/g, '$1<redacted>')
    .replace(/((?:api[_-]?key|apikey|token|secret|password|passwd)["']?[ \t]*[:=][ \t]*)(["']?)[^"'\s,;)]+\2/gi, '$1$2<redacted>$2');
}

/** Offsets of line starts, for turning a match offset into a 1-based line number. */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

function lineOf(starts: number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

function* matches(pattern: RegExp, text: string): Generator<RegExpExecArray> {
  const re = new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`);
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m[0].length === 0) re.lastIndex++;
    yield m;
  }
}

class Collector {
  readonly findings: FileFindings;
  private readonly starts: number[];
  private readonly seen = new Set<string>();

  constructor(file: string, private readonly text: string) {
    this.findings = { file, evidence: [], frameworkHits: [], agentNames: [], models: [], providers: [], apiKeys: [], pii: [] };
    this.starts = lineStarts(text);
  }

  /** Adds evidence once per (kind, line, value); returns false for a repeat. */
  add(kind: EvidenceKind, offset: number, match: string, value: string): boolean {
    const line = lineOf(this.starts, offset);
    const id = `${kind}\u0000${line}\u0000${value}`;
    if (this.seen.has(id)) return false;
    this.seen.add(id);
    const oneLine = match.split('\n')[0]!.trim();
    this.findings.evidence.push({ kind, value, file: this.findings.file, line, match: redact(oneLine).slice(0, MAX_MATCH) });
    return true;
  }

  framework(id: FrameworkId, strong: boolean, offset: number, match: string): void {
    if (this.add(strong ? 'framework' : 'dependency', offset, match, id)) {
      this.findings.frameworkHits.push({ framework: id, strong });
    }
  }

  model(raw: string, offset: number, match: string): void {
    const { model, provider } = splitModel(raw.replace(/^models\//, ''));
    if (this.add('model', offset, match, model)) this.findings.models.push({ model, provider });
  }

  lineText(offset: number): string {
    const line = lineOf(this.starts, offset);
    const end = this.text.indexOf('\n', this.starts[line - 1]!);
    return this.text.slice(this.starts[line - 1]!, end === -1 ? undefined : end);
  }
}

function frameworkImports(c: Collector, text: string, kind: FileKind): void {
  const statements = findImports(text, kind);
  if (statements.length === 0) return;
  for (const fw of FRAMEWORKS) {
    const matcher = kind === 'python' ? fw.python : kind === 'js' ? fw.js : kind === 'csharp' ? fw.csharp : kind === 'java' ? fw.java : undefined;
    if (!matcher) continue;
    for (const s of statements) {
      if (!matcher.test(s.module)) continue;
      if (kind === 'python' && fw.pythonNames && !fw.pythonNames.test(s.text)) continue;
      c.framework(fw.id, true, s.offset, s.text);
    }
  }
}

function frameworkConfig(c: Collector, text: string, fileName: string): void {
  for (const fw of FRAMEWORKS) {
    for (const sig of fw.config) {
      if (!sig.fileName.test(fileName) || !sig.requireAll.every((re) => re.test(text))) continue;
      const m = new RegExp(sig.evidence.source, sig.evidence.flags.replace('g', '')).exec(text);
      if (m) c.framework(fw.id, true, m.index + (m[0].length - m[0].trimStart().length), m[0]);
    }
  }
}

function dependencies(c: Collector, text: string): void {
  for (const fw of FRAMEWORKS) {
    for (const pattern of fw.dependencies) {
      for (const m of matches(pattern, text)) c.framework(fw.id, false, m.index, c.lineText(m.index));
    }
  }
}

function models(c: Collector, text: string, kind: FileKind): void {
  for (const m of matches(MODEL_ARGUMENT, text)) {
    if (looksLikeModel(m[3]!)) c.model(m[3]!, m.index + (m[0].startsWith(m[1]!) ? 0 : 1), m[0].replace(/^["']/, ''));
  }
  for (const m of matches(MODEL_LITERAL, text)) c.model(m[2]!, m.index, m[0]);
  if (kind === 'config' || kind === 'env') {
    for (const m of matches(MODEL_CONFIG_LINE, text)) {
      // MODEL_API_KEY=... names a model's credential, not a model.
      if (/key|token|secret|password/i.test(m[1]!)) continue;
      if (looksLikeModel(m[2]!)) c.model(m[2]!, m.index + (m[0].length - m[0].trimStart().length), m[0]);
    }
  }
}

function providers(c: Collector, text: string): void {
  const lower = text.toLowerCase();
  for (const hint of PROVIDER_HINTS) {
    if (!hint.quick.some((w) => lower.includes(w))) continue;
    for (const m of matches(hint.pattern, text)) {
      const start = m.index + (m[0].length - m[0].trimStart().length);
      if (c.add('provider', start, m[0], hint.provider) && !c.findings.providers.includes(hint.provider)) {
        c.findings.providers.push(hint.provider);
      }
    }
  }
}

function apiKeys(c: Collector, text: string): void {
  for (const m of matches(API_KEY_VAR, text)) {
    // Only the variable's name goes into the evidence, never the line (it may hold the value).
    if (c.add('api_key', m.index, m[0], m[0]) && !c.findings.apiKeys.includes(m[0])) c.findings.apiKeys.push(m[0]);
  }
}

function personalData(c: Collector, text: string): void {
  // Only lines holding a rule word are split into parts: most lines hold none.
  const done = new Set<number>();
  for (const m of matches(PII_STEMS, text)) {
    const start = text.lastIndexOf('\n', m.index) + 1;
    if (done.has(start)) continue;
    done.add(start);
    const end = text.indexOf('\n', m.index);
    for (const hit of findPii(text.slice(start, end === -1 ? undefined : end))) {
      if (c.add('pii', start + hit.index, hit.match, hit.category) && !c.findings.pii.includes(hit.category)) {
        c.findings.pii.push(hit.category);
      }
    }
  }
}

function agentNames(c: Collector, text: string): void {
  for (const hit of findAgentNames(text)) {
    if (c.add('agent_name', hit.index, hit.match, hit.name)) c.findings.agentNames.push(hit.name);
  }
}

/** Everything one file contributes. `file` is the path relative to the scanned folder. */
export function extractFile(file: string, kind: FileKind, text: string): FileFindings {
  const c = new Collector(file, text);
  const fileName = path.posix.basename(file);
  switch (kind) {
    case 'manifest':
      dependencies(c, text);
      break;
    case 'env':
      apiKeys(c, text);
      models(c, text, kind);
      break;
    case 'config':
      frameworkConfig(c, text, fileName);
      models(c, text, kind);
      apiKeys(c, text);
      personalData(c, text);
      break;
    default:
      frameworkImports(c, text, kind);
      agentNames(c, text);
      models(c, text, kind);
      providers(c, text);
      apiKeys(c, text);
      personalData(c, text);
  }
  return c.findings;
}
