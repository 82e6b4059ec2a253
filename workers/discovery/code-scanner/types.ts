// Shapes shared by the code scanner's parts and by the scan orchestration that persists them.

/** Upper snake case, as the registry stores `framework`. */
export type FrameworkId =
  | 'LANGCHAIN'
  | 'LANGGRAPH'
  | 'CREWAI'
  | 'AUTOGEN'
  | 'LLAMAINDEX'
  | 'OPENAI_AGENTS'
  | 'SEMANTIC_KERNEL'
  | 'HAYSTACK'
  | 'PYDANTIC_AI'
  | 'MASTRA'
  | 'VERCEL_AI_SDK'
  | 'GOOGLE_ADK'
  | 'SMOLAGENTS';

export type EvidenceKind = 'framework' | 'dependency' | 'agent_name' | 'model' | 'provider' | 'api_key' | 'pii';

export interface Evidence {
  kind: EvidenceKind;
  /**
   * What the match means: the framework id (framework, dependency), the agent name, the model
   * name (unprefixed), the provider, the key variable's name, or the personal-data category.
   */
  value: string;
  /** POSIX path relative to the scanned folder. */
  file: string;
  /** 1-based line of the match. */
  line: number;
  /** The matched text (one line at most, secrets redacted; API keys by name only). */
  match: string;
}

export interface FoundCodeAgent {
  /** `code:<scanned folder name>/<project path>`; the same project gives the same id on every scan. */
  external_id: string;
  /** Agent(name=...) / role=... when the code names it, else the project folder's name. */
  name: string;
  /** Most specific framework found (LANGGRAPH over LANGCHAIN, MASTRA over VERCEL_AI_SDK, ...). */
  framework: FrameworkId;
  /** Every framework found, `framework` first. */
  frameworks: FrameworkId[];
  /** Every other name= / role= found in the project (a crew or a team has several). */
  agent_names: string[];
  /** Distinct model names without provider prefixes (`openai:gpt-4o` gives `gpt-4o`), most used first. */
  models: string[];
  primary_model: string | null;
  /** Upper snake case (OPENAI, ANTHROPIC, GOOGLE, AZURE_OPENAI, MISTRAL, COHERE, HUGGINGFACE, ...). */
  model_provider: string | null;
  providers: string[];
  /** Names of API-key environment variables referenced; never their values. */
  api_key_env_vars: string[];
  /** Categories of personal data the code mentions: email, ssn, date_of_birth, phone, address, ... */
  pii_hints: string[];
  contains_pii: boolean;
  /** True when the project calls a hosted LLM provider (anything but a local runtime such as Ollama). */
  external_llm_calls: boolean;
  /** The folder that was scanned, as given (resolved to an absolute path). */
  source_folder: string;
  /** Project folder relative to `source_folder` (POSIX, `.` for the folder itself). */
  project_path: string;
  evidence: Evidence[];
}

export interface ScanOptions {
  /** Files larger than this are skipped (default 1 MiB). */
  maxFileBytes?: number;
  /** Stop walking a folder after this many candidate files (default 20,000). */
  maxFiles?: number;
  /** Directory depth bound below each folder (default 32). */
  maxDepth?: number;
  /** Evidence items kept per agent (default 200); the rest are counted, not kept. */
  maxEvidencePerAgent?: number;
}

export interface ScanStats {
  folders: number;
  files_scanned: number;
  files_skipped_too_large: number;
  /** True when a folder hit `maxFiles` and the rest of it was not read. */
  truncated: boolean;
  /** Folders or files that could not be read; the scan goes on without them. */
  errors: Array<{ path: string; message: string }>;
}

export interface ScanResult {
  agents: FoundCodeAgent[];
  stats: ScanStats;
}

/** What one file contributes; grouping merges these per project. */
export interface FileFindings {
  /** POSIX path relative to the scanned folder. */
  file: string;
  evidence: Evidence[];
  /** Framework per `framework` / `dependency` evidence item, same order. */
  frameworkHits: Array<{ framework: FrameworkId; strong: boolean }>;
  agentNames: string[];
  /** Model name (unprefixed) with the provider its name or prefix implies, if any. */
  models: Array<{ model: string; provider: string | null }>;
  providers: string[];
  apiKeys: string[];
  pii: string[];
}
