// Code scanner for discovery (`code` scanner, decisions.md §9): reads configured source
// folders and reports the agents their code defines. Pure: it reads files and returns
// findings; persisting scans and upserting DISCOVERED agents is the orchestration's job.
//
// Unit of a found agent: the PROJECT, i.e. the nearest folder (at or above the file, inside
// the scanned folder) holding a project marker (package.json, pyproject.toml,
// requirements.txt, setup.py, Pipfile, *.csproj, pom.xml, build.gradle, langgraph.json, ...).
// A file with no marker above it belongs to its top-level subfolder (or to the scanned folder
// itself when it sits at its top). Why the project and not the file: a framework's agent is
// spread over files (CrewAI: agents.yaml + crew.py + main.py; Mastra: agents/ + mastra/index.ts)
// and is deployed, owned and reviewed as one unit. A project is an agent when one of its code
// or config files imports or configures an agent framework; a dependency in a manifest alone,
// an LLM SDK alone, a model name or an API key alone do not make one. A crew or a team with
// several agents is one found agent whose `agent_names` lists them all.
//
// Name: the first `name=` / `role=` of an agent constructor (files in path order), else the
// project folder's name. external_id: `code:<scanned folder's name>/<project path>`
// (`code:<scanned folder's name>` for a project at the folder's top); derived from paths only,
// so a rescan of the same folder gives the same ids and the orchestration updates, never
// duplicates. Renaming the agent in code keeps its id; moving the project gives a new one.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { extractFile } from './extractors.ts';
import { buildAgent, projectOf } from './grouping.ts';
import type { FileFindings, FoundCodeAgent, ScanOptions, ScanResult, ScanStats } from './types.ts';
import { walkFolder } from './walker.ts';

export type { Evidence, EvidenceKind, FoundCodeAgent, FrameworkId, ScanOptions, ScanResult, ScanStats } from './types.ts';

const DEFAULTS = { maxFileBytes: 1024 * 1024, maxFiles: 20_000, maxDepth: 32, maxEvidencePerAgent: 200 };

async function scanFolder(folder: string, opts: Required<ScanOptions>, stats: ScanStats): Promise<FoundCodeAgent[]> {
  const absFolder = path.resolve(folder);
  let walk;
  try {
    walk = await walkFolder(absFolder, opts);
  } catch (err) {
    stats.errors.push({ path: absFolder, message: (err as Error).message });
    return [];
  }
  stats.files_skipped_too_large += walk.skippedTooLarge;
  stats.truncated ||= walk.truncated;
  for (const e of walk.errors) stats.errors.push({ path: path.join(absFolder, e.path), message: e.message });

  const byProject = new Map<string, FileFindings[]>();
  for (const file of walk.files) {
    let text: string;
    try {
      text = await readFile(file.absPath, 'utf8');
    } catch (err) {
      stats.errors.push({ path: file.absPath, message: (err as Error).message });
      continue;
    }
    // Binary content under a source extension (a compiled artefact, a data blob).
    if (text.slice(0, 8192).includes('\u0000')) continue;
    stats.files_scanned += 1;
    const findings = extractFile(file.relPath, file.kind, text);
    if (findings.evidence.length === 0) continue;
    const project = projectOf(file.relPath, walk.projectDirs);
    const list = byProject.get(project) ?? [];
    list.push(findings);
    byProject.set(project, list);
  }

  const agents: FoundCodeAgent[] = [];
  for (const [projectPath, files] of [...byProject.entries()].sort((a, b) => a[0].localeCompare(b[0]))) {
    const agent = buildAgent({ sourceFolder: absFolder, projectPath, files }, opts.maxEvidencePerAgent);
    if (agent) agents.push(agent);
  }
  return agents;
}

/** Found agents with counters for the scan's per-scanner detail. Never throws for a bad folder. */
export async function scanSourceFoldersWithStats(folders: string[], options: ScanOptions = {}): Promise<ScanResult> {
  const opts: Required<ScanOptions> = { ...DEFAULTS, ...options };
  const stats: ScanStats = { folders: folders.length, files_scanned: 0, files_skipped_too_large: 0, truncated: false, errors: [] };
  const agents: FoundCodeAgent[] = [];
  const ids = new Set<string>();
  for (const folder of folders) {
    for (const agent of await scanFolder(folder, opts, stats)) {
      // Two configured folders with the same name would give the same ids; the first wins so
      // that an id always means one project.
      if (ids.has(agent.external_id)) {
        stats.errors.push({ path: path.join(agent.source_folder, agent.project_path), message: `duplicate external_id ${agent.external_id}` });
        continue;
      }
      ids.add(agent.external_id);
      agents.push(agent);
    }
  }
  return { agents, stats };
}

/** The agents defined in the code under `folders` (see the top of this file for the unit). */
export async function scanSourceFolders(folders: string[], options: ScanOptions = {}): Promise<FoundCodeAgent[]> {
  return (await scanSourceFoldersWithStats(folders, options)).agents;
}
