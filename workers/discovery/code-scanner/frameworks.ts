// Signatures of agent frameworks: how each one shows up in imports (per language), in
// dependency manifests and in its own configuration files. Patterns are line-bound (no match
// spans a newline) so that every match has one evidence line.
import type { FrameworkId } from './types.ts';

export interface FrameworkSignature {
  id: FrameworkId;
  /**
   * Higher wins when a project shows several: frameworks built on top of others (LangGraph
   * imports LangChain, Mastra uses the Vercel AI SDK model providers) rank above them.
   */
  priority: number;
  python: RegExp[];
  js: RegExp[];
  csharp: RegExp[];
  java: RegExp[];
  /** Dependency names in requirements.txt, pyproject.toml, package.json, .csproj, pom.xml, ... */
  dependencies: RegExp[];
  /** Framework-specific configuration files; a match counts like an import. */
  config: ConfigSignature[];
}

export interface ConfigSignature {
  /** Which files it applies to, by base name. */
  fileName: RegExp;
  /** Every one must match somewhere in the file. */
  requireAll: RegExp[];
  /** Where the evidence points (first match). */
  evidence: RegExp;
}

// `from MOD[.sub] import ...` or `import MOD[.sub]`; the optional quote serves notebooks
// (.ipynb keeps source lines as JSON strings).
function py(mod: string): RegExp {
  return new RegExp(
    `^[ \\t]*"?[ \\t]*(?:from[ \\t]+(?:${mod})(?:\\.[\\w.]+)?[ \\t]+import\\b[^\\n]*|import[ \\t]+(?:${mod})(?:\\.[\\w.]+)?(?=[ \\t,;"]|\\\\n|$)[^\\n]*)`,
    'gm',
  );
}

// ES import, re-export, dynamic import or require of PKG or PKG/subpath.
function js(pkg: string): RegExp {
  return new RegExp(
    `(?:\\bfrom[ \\t]*|\\brequire\\([ \\t]*|\\bimport\\([ \\t]*|^[ \\t]*import[ \\t]+)['"](?:${pkg})(?:/[^'"\\n]*)?['"]`,
    'gm',
  );
}

function cs(ns: string): RegExp {
  return new RegExp(`^[ \\t]*(?:global[ \\t]+)?using[ \\t]+(?:static[ \\t]+)?(?:${ns})\\b[^\\n]*`, 'gm');
}

function java(pkg: string): RegExp {
  return new RegExp(`^[ \\t]*import[ \\t]+(?:static[ \\t]+)?(?:${pkg})\\.[^\\n]*`, 'gm');
}

// A pip name in requirements/pyproject/Pipfile/setup.py: at a line start or quoted, followed
// by a version spec, extras, a marker, a quote or the end of the line.
function pip(name: string): RegExp {
  return new RegExp(`(?:^[ \\t]*|["'])(?:${name})(?=[ \\t]*(?:[<>=!~;\\[,"']|$))`, 'gim');
}

// A key in package.json dependencies.
function npm(name: string): RegExp {
  return new RegExp(`"(?:${name})"[ \\t]*:`, 'g');
}

// NuGet PackageReference, Maven/Gradle coordinates.
function pkgRef(name: string): RegExp {
  return new RegExp(`(?:Include="|<artifactId>|<groupId>|['"])(?:${name})`, 'g');
}

export const FRAMEWORKS: readonly FrameworkSignature[] = [
  {
    id: 'LANGGRAPH',
    priority: 60,
    python: [py('langgraph(?:_\\w+)?')],
    js: [js('@langchain/langgraph(?:-[\\w-]+)?')],
    csharp: [],
    java: [java('org\\.bsc\\.langgraph4j')],
    dependencies: [pip('langgraph(?:-[\\w-]+)?'), npm('@langchain/langgraph')],
    config: [{ fileName: /^langgraph\.json$/, requireAll: [/"graphs"[ \t]*:/], evidence: /"graphs"[ \t]*:/ }],
  },
  {
    id: 'LANGCHAIN',
    priority: 10,
    python: [py('langchain(?:_\\w+)?')],
    js: [js('langchain'), js('@langchain/(?!langgraph)[\\w-]+')],
    csharp: [cs('LangChain')],
    java: [java('dev\\.langchain4j')],
    dependencies: [pip('langchain(?:[-_][\\w-]+)?'), npm('langchain|@langchain/core'), pkgRef('langchain4j|LangChain\\.')],
    config: [],
  },
  {
    id: 'CREWAI',
    priority: 50,
    python: [py('crewai(?:_tools)?')],
    js: [],
    csharp: [],
    java: [],
    dependencies: [pip('crewai(?:\\[[\\w,]+\\])?|crewai-tools')],
    // CrewAI projects describe agents in config/agents.yaml: role, goal and backstory.
    config: [
      {
        fileName: /\.ya?ml$/,
        requireAll: [/^[ \t]+role:/m, /^[ \t]+goal:/m, /^[ \t]+backstory:/m],
        evidence: /^[ \t]+backstory:/m,
      },
    ],
  },
  {
    id: 'AUTOGEN',
    priority: 50,
    python: [py('autogen(?:_agentchat|_ext|_core)?|ag2')],
    js: [],
    csharp: [cs('AutoGen|Microsoft\\.AutoGen')],
    java: [],
    dependencies: [pip('pyautogen|ag2|autogen-agentchat|autogen-ext|autogen-core|autogen'), pkgRef('AutoGen|Microsoft\\.AutoGen')],
    // AutoGen's OAI_CONFIG_LIST and AutoGen Studio component files.
    config: [
      { fileName: /^OAI_CONFIG_LIST(?:\.json)?$/, requireAll: [/"model"[ \t]*:/], evidence: /"model"[ \t]*:/ },
      { fileName: /\.json$/, requireAll: [/"provider"[ \t]*:[ \t]*"autogen_/], evidence: /"provider"[ \t]*:[ \t]*"autogen_/ },
    ],
  },
  {
    id: 'LLAMAINDEX',
    priority: 40,
    python: [py('llama_index')],
    js: [js('llamaindex|@llamaindex/[\\w-]+')],
    csharp: [],
    java: [],
    dependencies: [pip('llama[-_]index(?:-[\\w-]+)?'), npm('llamaindex')],
    config: [],
  },
  {
    id: 'OPENAI_AGENTS',
    priority: 50,
    // The package `openai-agents` is imported as `agents`; a bare `agents` module is common in
    // user code, so it counts only when it brings in the SDK's own names.
    python: [
      /^[ \t]*"?[ \t]*from[ \t]+agents(?:\.[\w.]+)?[ \t]+import[ \t][^\n]*\b(?:Agent|Runner|function_tool|handoff|WebSearchTool|ModelSettings)\b[^\n]*/gm,
    ],
    js: [js('@openai/agents(?:-[\\w-]+)?')],
    csharp: [],
    java: [],
    dependencies: [pip('openai-agents'), npm('@openai/agents')],
    config: [],
  },
  {
    id: 'SEMANTIC_KERNEL',
    priority: 40,
    python: [py('semantic_kernel')],
    js: [],
    csharp: [cs('Microsoft\\.SemanticKernel')],
    java: [java('com\\.microsoft\\.semantickernel')],
    dependencies: [pip('semantic-kernel'), pkgRef('Microsoft\\.SemanticKernel|semantickernel|semantic-kernel')],
    // Prompt-function config.json / YAML templates carry execution_settings.
    config: [
      { fileName: /\.json$/, requireAll: [/"execution_settings"[ \t]*:/], evidence: /"execution_settings"[ \t]*:/ },
      { fileName: /\.ya?ml$/, requireAll: [/^execution_settings:/m, /^template:/m], evidence: /^execution_settings:/m },
    ],
  },
  {
    id: 'HAYSTACK',
    priority: 40,
    python: [py('haystack(?:_integrations|_experimental)?')],
    js: [],
    csharp: [],
    java: [],
    dependencies: [pip('haystack-ai|farm-haystack|[\\w-]+-haystack')],
    // Serialised Haystack pipelines name their component classes.
    config: [{ fileName: /\.ya?ml$/, requireAll: [/type:[ \t]*haystack(?:_integrations)?\./], evidence: /type:[ \t]*haystack(?:_integrations)?\.[^\n]*/ }],
  },
  {
    id: 'PYDANTIC_AI',
    priority: 40,
    python: [py('pydantic_ai')],
    js: [],
    csharp: [],
    java: [],
    dependencies: [pip('pydantic-ai(?:-slim)?')],
    config: [],
  },
  {
    id: 'MASTRA',
    priority: 50,
    python: [],
    js: [js('@mastra/[\\w-]+|mastra')],
    csharp: [],
    java: [],
    dependencies: [npm('@mastra/core|mastra')],
    config: [],
  },
  {
    id: 'VERCEL_AI_SDK',
    priority: 20,
    python: [],
    js: [js('ai|@ai-sdk/[\\w-]+')],
    csharp: [],
    java: [],
    dependencies: [npm('ai|@ai-sdk/[\\w-]+')],
    config: [],
  },
  {
    id: 'GOOGLE_ADK',
    priority: 50,
    python: [py('google\\.adk')],
    js: [js('@google/adk')],
    csharp: [],
    java: [java('com\\.google\\.adk')],
    dependencies: [pip('google-adk'), npm('@google/adk'), pkgRef('google-adk|com\\.google\\.adk')],
    config: [],
  },
  {
    id: 'SMOLAGENTS',
    priority: 50,
    python: [py('smolagents')],
    js: [],
    csharp: [],
    java: [],
    dependencies: [pip('smolagents(?:\\[[\\w,-]+\\])?')],
    config: [],
  },
];

export function frameworkPriority(id: FrameworkId): number {
  return FRAMEWORKS.find((f) => f.id === id)?.priority ?? 0;
}
