// Signatures of agent frameworks: how each one shows up in imports (per language), in
// dependency manifests and in its own configuration files. Patterns are line-bound (no match
// spans a newline) so that every match has one evidence line. Imports are matched on the
// module name that imports.ts reads from each import line: one pass per file, whatever the
// number of frameworks.
import type { FrameworkId } from './types.ts';

export interface FrameworkSignature {
  id: FrameworkId;
  /**
   * Higher wins when a project shows several: frameworks built on top of others (LangGraph
   * imports LangChain, Mastra uses the Vercel AI SDK model providers) rank above them.
   */
  priority: number;
  /** Tested against the module of a Python import (`langchain_openai.chat_models`). */
  python?: RegExp;
  /** When set, the Python import line must also bring in one of these names. */
  pythonNames?: RegExp;
  /** Tested against the specifier of an ES import or require (`@mastra/core/agent`). */
  js?: RegExp;
  /** Tested against the namespace of a C# `using`. */
  csharp?: RegExp;
  /** Tested against the package of a Java/Kotlin import. */
  java?: RegExp;
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

// Module matchers: the name itself or the name followed by a submodule.
function mod(name: string, separator = '\\.'): RegExp {
  return new RegExp(`^(?:${name})(?:${separator}|$)`);
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
    python: mod('langgraph(?:_\\w+)?'),
    js: mod('@langchain/langgraph(?:-[\\w-]+)?', '/'),
    java: mod('org\\.bsc\\.langgraph4j'),
    dependencies: [pip('langgraph(?:-[\\w-]+)?'), npm('@langchain/langgraph')],
    config: [{ fileName: /^langgraph\.json$/, requireAll: [/"graphs"[ \t]*:/], evidence: /"graphs"[ \t]*:/ }],
  },
  {
    id: 'LANGCHAIN',
    priority: 10,
    python: mod('langchain(?:_\\w+)?'),
    js: mod('langchain|@langchain/(?!langgraph)[\\w-]+', '/'),
    csharp: mod('LangChain'),
    java: mod('dev\\.langchain4j'),
    dependencies: [pip('langchain(?:[-_][\\w-]+)?'), npm('langchain|@langchain/core'), pkgRef('langchain4j|LangChain\\.')],
    config: [],
  },
  {
    id: 'CREWAI',
    priority: 50,
    python: mod('crewai(?:_tools)?'),
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
    python: mod('autogen(?:_agentchat|_ext|_core)?|ag2'),
    csharp: mod('AutoGen|Microsoft\\.AutoGen'),
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
    python: mod('llama_index'),
    js: mod('llamaindex|@llamaindex/[\\w-]+', '/'),
    dependencies: [pip('llama[-_]index(?:-[\\w-]+)?'), npm('llamaindex')],
    config: [],
  },
  {
    id: 'OPENAI_AGENTS',
    priority: 50,
    // The package `openai-agents` is imported as `agents`; a bare `agents` module is common in
    // user code, so it counts only when it brings in the SDK's own names.
    python: mod('agents'),
    pythonNames: /\bimport\b.*\b(?:Agent|Runner|function_tool|handoff|WebSearchTool|ModelSettings)\b/,
    js: mod('@openai/agents(?:-[\\w-]+)?', '/'),
    dependencies: [pip('openai-agents'), npm('@openai/agents')],
    config: [],
  },
  {
    id: 'SEMANTIC_KERNEL',
    priority: 40,
    python: mod('semantic_kernel'),
    csharp: mod('Microsoft\\.SemanticKernel'),
    java: mod('com\\.microsoft\\.semantickernel'),
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
    python: mod('haystack(?:_integrations|_experimental)?'),
    dependencies: [pip('haystack-ai|farm-haystack|[\\w-]+-haystack')],
    // Serialised Haystack pipelines name their component classes.
    config: [{ fileName: /\.ya?ml$/, requireAll: [/type:[ \t]*haystack(?:_integrations)?\./], evidence: /type:[ \t]*haystack(?:_integrations)?\.[^\n]*/ }],
  },
  {
    id: 'PYDANTIC_AI',
    priority: 40,
    python: mod('pydantic_ai'),
    dependencies: [pip('pydantic-ai(?:-slim)?')],
    config: [],
  },
  {
    id: 'MASTRA',
    priority: 50,
    js: mod('@mastra/[\\w-]+|mastra', '/'),
    dependencies: [npm('@mastra/core|mastra')],
    config: [],
  },
  {
    id: 'VERCEL_AI_SDK',
    priority: 20,
    js: mod('ai|@ai-sdk/[\\w-]+', '/'),
    dependencies: [npm('ai|@ai-sdk/[\\w-]+')],
    config: [],
  },
  {
    id: 'GOOGLE_ADK',
    priority: 50,
    python: mod('google\\.adk'),
    js: mod('@google/adk', '/'),
    java: mod('com\\.google\\.adk'),
    dependencies: [pip('google-adk'), npm('@google/adk'), pkgRef('google-adk|com\\.google\\.adk')],
    config: [],
  },
  {
    id: 'SMOLAGENTS',
    priority: 50,
    python: mod('smolagents'),
    dependencies: [pip('smolagents(?:\\[[\\w,-]+\\])?')],
    config: [],
  },
];

export function frameworkPriority(id: FrameworkId): number {
  return FRAMEWORKS.find((f) => f.id === id)?.priority ?? 0;
}
