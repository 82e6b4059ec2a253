// Walks one source folder and lists the files worth reading. Bounded on every axis a customer
// folder can blow up: directory depth, file count, file size. Symbolic links are followed only
// while their target stays inside the folder (and each real directory is entered once), so a
// link can neither leak the scan out of the folder nor loop it.
import { lstat, opendir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';

export type FileKind = 'python' | 'js' | 'csharp' | 'java' | 'config' | 'env' | 'manifest';

export interface WalkedFile {
  absPath: string;
  /** POSIX path relative to the walked folder. */
  relPath: string;
  kind: FileKind;
  size: number;
}

export interface WalkLimits {
  maxFileBytes: number;
  maxFiles: number;
  maxDepth: number;
}

export interface WalkOutcome {
  files: WalkedFile[];
  skippedTooLarge: number;
  truncated: boolean;
  errors: Array<{ path: string; message: string }>;
  /** Relative POSIX dirs ('' for the folder) holding a project marker: the grouping units. */
  projectDirs: Set<string>;
}

// Dependencies, virtualenvs, VCS data, build output and caches: never the customer's own agent
// code, and often most of the bytes.
const SKIP_DIRS = new Set([
  'node_modules', '.git', '.hg', '.svn', 'venv', '.venv', 'virtualenv', 'site-packages',
  '__pycache__', '.mypy_cache', '.pytest_cache', '.ruff_cache', '.tox', '.nox', 'dist', 'build',
  '.next', '.nuxt', '.turbo', '.cache', '.parcel-cache', 'coverage', 'target', 'obj', '.gradle',
  '.idea', '.vscode', '.terraform', 'bower_components', 'vendor',
]);

const LOCKFILES = new Set([
  'package-lock.json', 'yarn.lock', 'pnpm-lock.yaml', 'bun.lockb', 'poetry.lock', 'uv.lock',
  'Pipfile.lock', 'composer.lock', 'packages.lock.json',
]);

const MANIFEST_NAMES = new Set([
  'package.json', 'pyproject.toml', 'setup.py', 'setup.cfg', 'Pipfile', 'pom.xml',
  'build.gradle', 'build.gradle.kts', 'environment.yml',
]);

/** Files that mark a project root (the grouping unit); manifests plus framework project files. */
export const PROJECT_MARKERS = new Set([...MANIFEST_NAMES, 'requirements.txt', 'langgraph.json', 'go.mod', 'Cargo.toml']);

export function classify(fileName: string): FileKind | null {
  if (LOCKFILES.has(fileName) || /\.min\.js$/.test(fileName)) return null;
  if (MANIFEST_NAMES.has(fileName) || /^requirements[\w.-]*\.(?:txt|in)$/.test(fileName) || /\.(?:csproj|fsproj|vbproj)$/.test(fileName)) {
    return 'manifest';
  }
  if (fileName === '.env' || /^\.env\.[\w.-]+$/.test(fileName) || /\.env$/.test(fileName)) return 'env';
  const ext = path.extname(fileName).toLowerCase();
  switch (ext) {
    case '.py':
    case '.ipynb':
      return 'python';
    case '.ts': case '.tsx': case '.mts': case '.cts': case '.js': case '.jsx': case '.mjs': case '.cjs':
      return fileName.endsWith('.d.ts') ? null : 'js';
    case '.cs':
      return 'csharp';
    case '.java': case '.kt': case '.kts':
      return 'java';
    case '.yaml': case '.yml': case '.json': case '.toml':
      return 'config';
    default:
      return /^OAI_CONFIG_LIST$/.test(fileName) ? 'config' : null;
  }
}

function isInside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

export async function walkFolder(folder: string, limits: WalkLimits): Promise<WalkOutcome> {
  const outcome: WalkOutcome = { files: [], skippedTooLarge: 0, truncated: false, errors: [], projectDirs: new Set() };
  const root = await realpath(folder);
  const seenDirs = new Set<string>([root]);
  const seenFiles = new Set<string>();
  // Depth-first with an explicit stack: no recursion limit, deterministic order after sorting.
  const stack: Array<{ real: string; rel: string; depth: number }> = [{ real: root, rel: '', depth: 0 }];

  while (stack.length > 0) {
    const dir = stack.pop()!;
    let names: string[];
    try {
      names = [];
      for await (const entry of await opendir(dir.real)) names.push(entry.name);
    } catch (err) {
      outcome.errors.push({ path: dir.rel || '.', message: (err as Error).message });
      continue;
    }
    // A virtualenv under any name (env/, .direnv/python-3.12/, ...) holds only dependencies.
    if (dir.depth > 0 && names.includes('pyvenv.cfg')) continue;
    names.sort();
    if (names.some((n) => PROJECT_MARKERS.has(n) || /\.(?:csproj|fsproj|sln)$/.test(n))) outcome.projectDirs.add(dir.rel);
    const subdirs: Array<{ real: string; rel: string; depth: number }> = [];
    for (const name of names) {
      const abs = path.join(dir.real, name);
      const rel = dir.rel ? `${dir.rel}/${name}` : name;
      let info = await lstat(abs).catch(() => null);
      let real = abs;
      if (info?.isSymbolicLink()) {
        real = await realpath(abs).catch(() => '');
        if (!real || !isInside(root, real)) continue;
        info = await stat(real).catch(() => null);
      }
      if (!info) continue;
      if (info.isDirectory()) {
        if (SKIP_DIRS.has(name) || dir.depth + 1 > limits.maxDepth || seenDirs.has(real)) continue;
        seenDirs.add(real);
        subdirs.push({ real, rel, depth: dir.depth + 1 });
        continue;
      }
      if (!info.isFile() || seenFiles.has(real)) continue;
      const kind = classify(name);
      if (!kind) continue;
      if (info.size > limits.maxFileBytes) {
        outcome.skippedTooLarge += 1;
        continue;
      }
      if (outcome.files.length >= limits.maxFiles) {
        outcome.truncated = true;
        return outcome;
      }
      seenFiles.add(real);
      outcome.files.push({ absPath: real, relPath: rel, kind, size: info.size });
    }
    // Reverse so the stack pops subdirectories in name order.
    for (let i = subdirs.length - 1; i >= 0; i--) stack.push(subdirs[i]!);
  }
  return outcome;
}
