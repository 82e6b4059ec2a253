// Turns per-file findings into found agents: one per project folder that imports or configures
// an agent framework (see index.ts for why the project is the unit).
import path from 'node:path';
import { frameworkPriority } from './frameworks.ts';
import { LOCAL_PROVIDERS, providerOfKey } from './providers.ts';
import type { Evidence, EvidenceKind, FileFindings, FoundCodeAgent, FrameworkId } from './types.ts';

// Open-weight families run on many hosts (Ollama, Groq, Hugging Face): the project's client
// says where, the name does not.
const OPEN_WEIGHT = new Set(['META', 'HUGGINGFACE']);
const KIND_RANK: Record<EvidenceKind, number> = {
  framework: 0, agent_name: 1, model: 2, provider: 3, api_key: 4, pii: 5, dependency: 6,
};
const PER_KIND_CAP = 50;

/** The project a file belongs to: nearest ancestor with a marker, else its top-level folder. */
export function projectOf(relFile: string, projectDirs: ReadonlySet<string>): string {
  let dir = path.posix.dirname(relFile);
  if (dir === '.') dir = '';
  for (let d = dir; ; d = d.includes('/') ? path.posix.dirname(d) : '') {
    if (projectDirs.has(d)) return d;
    if (d === '') break;
  }
  return dir === '' ? '' : dir.split('/')[0]!;
}

function distinct<T>(items: Iterable<T>): T[] {
  return [...new Set(items)];
}

function primaryFramework(files: FileFindings[]): FrameworkId[] {
  const counts = new Map<FrameworkId, number>();
  for (const f of files) {
    for (const hit of f.frameworkHits) if (hit.strong) counts.set(hit.framework, (counts.get(hit.framework) ?? 0) + 1);
  }
  return [...counts.entries()]
    .sort((a, b) => frameworkPriority(b[0]) - frameworkPriority(a[0]) || b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([id]) => id);
}

interface ModelTally {
  model: string;
  provider: string | null;
  count: number;
  first: number;
}

function tallyModels(files: FileFindings[], hinted: string[], keyProviders: string[]): ModelTally[] {
  const byName = new Map<string, ModelTally>();
  let order = 0;
  for (const f of files) {
    for (const m of f.models) {
      const t = byName.get(m.model) ?? { model: m.model, provider: m.provider, count: 0, first: order++ };
      t.count += 1;
      t.provider ??= m.provider;
      byName.set(m.model, t);
    }
  }
  const hosts = hinted.filter((p) => !OPEN_WEIGHT.has(p));
  // Azure OpenAI serves OpenAI model names under deployments; without a direct OpenAI client
  // or key, an OpenAI-named model in an Azure project is an Azure deployment.
  const azure = hinted.includes('AZURE_OPENAI') || keyProviders.includes('AZURE_OPENAI');
  const direct = hinted.includes('OPENAI') || keyProviders.includes('OPENAI');
  for (const t of byName.values()) {
    if (t.provider === null || (OPEN_WEIGHT.has(t.provider) && hosts.length > 0)) t.provider = hosts[0] ?? hinted[0] ?? t.provider;
    if (t.provider === 'OPENAI' && azure && !direct) t.provider = 'AZURE_OPENAI';
  }
  return [...byName.values()].sort((a, b) => b.count - a.count || a.first - b.first);
}

function pickEvidence(files: FileFindings[], max: number): Evidence[] {
  const all = files.flatMap((f) => f.evidence);
  all.sort((a, b) => KIND_RANK[a.kind] - KIND_RANK[b.kind] || a.file.localeCompare(b.file) || a.line - b.line);
  const perKind = new Map<EvidenceKind, number>();
  const kept: Evidence[] = [];
  for (const e of all) {
    const n = perKind.get(e.kind) ?? 0;
    if (n >= PER_KIND_CAP || kept.length >= max) continue;
    perKind.set(e.kind, n + 1);
    kept.push(e);
  }
  return kept;
}

export interface ProjectInput {
  sourceFolder: string;
  projectPath: string;
  files: FileFindings[];
}

/** One found agent for a project, or null when nothing in it imports or configures a framework. */
export function buildAgent(input: ProjectInput, maxEvidence: number): FoundCodeAgent | null {
  const frameworks = primaryFramework(input.files);
  if (frameworks.length === 0) return null;
  const hinted = distinct(input.files.flatMap((f) => f.providers));
  const apiKeys = distinct(input.files.flatMap((f) => f.apiKeys)).sort();
  const keyProviders = distinct(apiKeys.map(providerOfKey).filter((p): p is string => p !== null));
  const models = tallyModels(input.files, hinted, keyProviders);
  const modelProvider = models[0]?.provider ?? hinted[0] ?? keyProviders[0] ?? null;
  const providers = distinct([
    ...(modelProvider ? [modelProvider] : []),
    ...models.map((m) => m.provider).filter((p): p is string => p !== null),
    ...hinted,
    ...keyProviders,
  ]);
  const names = distinct(input.files.flatMap((f) => f.agentNames));
  const pii = distinct(input.files.flatMap((f) => f.pii)).sort();
  const folderName = path.basename(input.sourceFolder);
  const projectPath = input.projectPath === '' ? '.' : input.projectPath;
  return {
    external_id: input.projectPath === '' ? `code:${folderName}` : `code:${folderName}/${input.projectPath}`,
    name: names[0] ?? (input.projectPath === '' ? folderName : path.posix.basename(input.projectPath)),
    framework: frameworks[0]!,
    frameworks,
    agent_names: names,
    models: models.map((m) => m.model),
    primary_model: models[0]?.model ?? null,
    model_provider: modelProvider,
    providers,
    api_key_env_vars: apiKeys,
    pii_hints: pii,
    contains_pii: pii.length > 0,
    external_llm_calls: providers.some((p) => !LOCAL_PROVIDERS.has(p)),
    source_folder: input.sourceFolder,
    project_path: projectPath,
    evidence: pickEvidence(input.files, maxEvidence),
  };
}
