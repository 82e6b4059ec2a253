// Models and providers: which model names belong to which provider, what a provider prefix
// (`openai:gpt-4o`, `anthropic/claude-...`) means, which client classes and packages point at a
// provider, and which API-key variables belong to one. Providers are upper snake case like
// frameworks.

/** Runtimes on the customer's own machines: using them is not an external LLM call. */
export const LOCAL_PROVIDERS: ReadonlySet<string> = new Set(['OLLAMA', 'LM_STUDIO', 'VLLM', 'LOCAL']);

// Model families by name. Anchored on the whole (unprefixed) model id.
const MODEL_FAMILIES: ReadonlyArray<{ provider: string; pattern: RegExp }> = [
  { provider: 'OPENAI', pattern: /^(?:gpt-[345](?:\.\d+)?(?:[a-z0-9.-]*)|gpt-4o[\w.-]*|chatgpt-[\w.-]+|o[1345](?:-mini|-preview|-pro)?(?:-\d{4}-\d{2}-\d{2})?|gpt-oss-[\w.-]+)$/i },
  { provider: 'ANTHROPIC', pattern: /^claude-[\w.@-]+$/i },
  { provider: 'GOOGLE', pattern: /^(?:models\/)?gemini-[\w.-]+$/i },
  { provider: 'MISTRAL', pattern: /^(?:open-)?(?:mistral|mixtral|codestral|ministral|pixtral|magistral|devstral)-[\w.-]+$/i },
  { provider: 'COHERE', pattern: /^command(?:-(?:r|a|light|nightly)[\w.-]*)?$/i },
  { provider: 'DEEPSEEK', pattern: /^deepseek-(?:chat|reasoner|coder|r1|v3)[\w.-]*$/i },
  { provider: 'XAI', pattern: /^grok-[\w.-]+$/i },
  { provider: 'META', pattern: /^llama-?[234][\w.:-]*$/i },
  { provider: 'HUGGINGFACE', pattern: /^(?:meta-llama|mistralai|Qwen|deepseek-ai|HuggingFaceH4|HuggingFaceTB|microsoft|tiiuae|bigcode|google)\/[\w.-]+$/ },
];

/** Provider prefixes used by PydanticAI (`openai:`), LiteLLM/CrewAI (`openai/`), Mastra, etc. */
const PREFIXES: Record<string, string> = {
  openai: 'OPENAI',
  anthropic: 'ANTHROPIC',
  google: 'GOOGLE',
  'google-gla': 'GOOGLE',
  'google-vertex': 'GOOGLE',
  gemini: 'GOOGLE',
  vertex_ai: 'GOOGLE',
  azure: 'AZURE_OPENAI',
  mistral: 'MISTRAL',
  groq: 'GROQ',
  cohere: 'COHERE',
  bedrock: 'AWS_BEDROCK',
  deepseek: 'DEEPSEEK',
  xai: 'XAI',
  ollama: 'OLLAMA',
  ollama_chat: 'OLLAMA',
  openrouter: 'OPENROUTER',
  together_ai: 'TOGETHER',
  huggingface: 'HUGGINGFACE',
};

/** Known model names in any string literal. Prefixed forms are split by `splitModel`. */
export const MODEL_LITERAL =
  /(["'`])((?:[a-z_-]+[:/])?(?:gpt-[345][\w.-]*|gpt-oss-[\w.-]+|chatgpt-4o-latest|o[134]-(?:mini|preview|pro)[\w-]*|claude-[\w.@-]+|(?:models\/)?gemini-[\w.-]+|(?:open-)?(?:mistral|mixtral|codestral|ministral|pixtral|magistral|devstral)-[\w.-]+|command-(?:r|a|light)[\w.-]*|deepseek-(?:chat|reasoner|coder|r1|v3)[\w.-]*|grok-[\w.-]+|llama-?[234][\w.:-]*|(?:meta-llama|mistralai|Qwen|deepseek-ai|HuggingFaceH4|HuggingFaceTB|tiiuae|bigcode)\/[\w.-]+))\1/g;

/**
 * Model arguments with any value: `model="..."`, `model_id=`, `modelId:`, `deploymentName:`,
 * dictionary/JSON keys (`"model": "..."`).
 */
export const MODEL_ARGUMENT =
  /(?:\b|["'])(model|model_name|model_id|modelId|modelName|deployment_name|azure_deployment|deploymentName|llm|llm_model|default_model|ai_model_id|ModelId|DeploymentName)["']?[ \t]*(?:=|:)[ \t]*(["'`])([^"'`\n]{1,100})\2/g;

/**
 * `KEY: value` / `KEY=value` lines in YAML, TOML and .env files whose key names a model
 * (`OPENAI_MODEL=`, `AZURE_OPENAI_DEPLOYMENT=`, `model: `); a bare lower-case `deployment:` is
 * Kubernetes, not a model.
 */
export const MODEL_CONFIG_LINE = /^[ \t]*["']?([\w.-]*(?:model|MODEL|deployment_name|DEPLOYMENT)[\w.-]*)["']?[ \t]*[:=][ \t]*["']?([\w./:@-]{2,100})["']?[ \t]*$/gm;

// Family names that local runtimes use without a version (`ollama pull mistral`).
const BARE_FAMILIES = /^(?:mistral|mixtral|llama\d*|phi\d*|gemma\d*|qwen\d*|command)$/i;

/** `openai:gpt-4o` -> { model: 'gpt-4o', provider: 'OPENAI' }; unknown prefixes stay in the name. */
export function splitModel(raw: string): { model: string; provider: string | null } {
  const m = /^([a-z_-]+)[:/](.+)$/.exec(raw);
  if (m) {
    const provider = PREFIXES[m[1]!];
    if (provider) return { model: m[2]!, provider };
  }
  return { model: raw, provider: providerOfModel(raw) };
}

export function providerOfModel(model: string): string | null {
  for (const family of MODEL_FAMILIES) if (family.pattern.test(model)) return family.provider;
  return null;
}

/**
 * Whether the value of a model argument looks like a model id rather than an object name or
 * a sentence: no spaces, no template braces, and either a version-ish character or a known
 * bare family name.
 */
export function looksLikeModel(value: string): boolean {
  if (!/^[\w./:@-]{2,100}$/.test(value)) return false;
  if (/^(?:true|false|none|null|undefined|default|auto)$/i.test(value)) return false;
  if (/^\d+(?:\.\d+)?$/.test(value)) return false;
  // Credentials that ended up in a model-named setting are never reported as a model.
  if (/^(?:sk|pk|rk)[-_]|^(?:AIza|hf_|gsk_|ghp_)/.test(value)) return false;
  if (providerOfModel(splitModel(value).model)) return true;
  return /[\d:/-]/.test(value) || BARE_FAMILIES.test(value);
}

/**
 * Client classes, SDK modules and integration packages that call a provider. `quick` holds
 * lower-case words one of which every match contains: a file without them skips the regex.
 */
export const PROVIDER_HINTS: ReadonlyArray<{ provider: string; quick: string[]; pattern: RegExp }> = [
  { provider: 'AZURE_OPENAI', quick: ['azure'], pattern: /\b(?:AzureChatOpenAI|AzureOpenAI\w*|AzureChatCompletion|AddAzureOpenAIChatCompletion|AzureOpenAIChatGenerator)\b|@ai-sdk\/azure\b/g },
  { provider: 'OPENAI', quick: ['openai'], pattern: /\b(?:langchain_openai|ChatOpenAI|OpenAIChatCompletionClient|OpenAIServerModel|OpenAIChatGenerator|OpenAIChatCompletion|AddOpenAIChatCompletion|OpenAIModel|OpenAIResponsesModel)\b|\bfrom[ \t]+openai[ \t]+import\b|\bimport[ \t]+openai\b|@ai-sdk\/openai\b|['"]openai['"]/g },
  { provider: 'ANTHROPIC', quick: ['anthropic'], pattern: /\b(?:langchain_anthropic|ChatAnthropic|AnthropicModel|AnthropicChatGenerator|AnthropicChatCompletionClient|AnthropicChatCompletion)\b|\bfrom[ \t]+anthropic[ \t]+import\b|\bimport[ \t]+anthropic\b|@ai-sdk\/anthropic\b|@anthropic-ai\/sdk\b/g },
  { provider: 'GOOGLE', quick: ['google', 'gemini', 'vertex'], pattern: /\b(?:langchain_google_genai|ChatGoogleGenerativeAI|ChatVertexAI|GeminiModel|GoogleModel|GoogleAIGeminiChatGenerator|GoogleAIGeminiChatCompletion)\b|\bgoogle\.genai\b|\bgoogle\.generativeai\b|\bfrom[ \t]+google[ \t]+import[ \t]+genai\b|@ai-sdk\/google(?:-vertex)?\b/g },
  { provider: 'MISTRAL', quick: ['mistral'], pattern: /\b(?:langchain_mistralai|ChatMistralAI|MistralModel|MistralAI|MistralChatGenerator)\b|@ai-sdk\/mistral\b/g },
  { provider: 'COHERE', quick: ['cohere'], pattern: /\b(?:langchain_cohere|ChatCohere|CohereChatGenerator|CohereModel)\b|@ai-sdk\/cohere\b/g },
  { provider: 'GROQ', quick: ['groq'], pattern: /\b(?:langchain_groq|ChatGroq|GroqModel)\b|@ai-sdk\/groq\b/g },
  { provider: 'AWS_BEDROCK', quick: ['bedrock', 'langchain_aws'], pattern: /\b(?:ChatBedrock\w*|langchain_aws|BedrockModel|AmazonBedrockChatGenerator)\b|@ai-sdk\/amazon-bedrock\b/g },
  { provider: 'HUGGINGFACE', quick: ['inferenceclient', 'hfapi', 'huggingface'], pattern: /\b(?:InferenceClientModel|HfApiModel|HuggingFaceEndpoint|HuggingFaceAPIChatGenerator|HuggingFaceInferenceAPI)\b/g },
  { provider: 'OLLAMA', quick: ['ollama'], pattern: /\b(?:ChatOllama|langchain_ollama|OllamaChatCompletionClient|OllamaChatGenerator|OllamaModel)\b|ollama-ai-provider/g },
];

/** Names of environment variables that hold credentials; captured by name only. */
export const API_KEY_VAR = /\b(?:[A-Z][A-Z0-9]*_)*(?:API_KEY|API_TOKEN|ACCESS_TOKEN|SECRET_KEY)\b|\b(?:HF_TOKEN|AZURE_OPENAI_KEY|CO_API_KEY|AZURE_AI_INFERENCE_KEY)\b/g;

const KEY_PROVIDERS: ReadonlyArray<[RegExp, string]> = [
  [/^AZURE_OPENAI_/, 'AZURE_OPENAI'],
  [/^OPENAI_/, 'OPENAI'],
  [/^ANTHROPIC_/, 'ANTHROPIC'],
  [/^(?:GOOGLE_API_KEY|GEMINI_API_KEY|GOOGLE_GENAI_API_KEY)$/, 'GOOGLE'],
  [/^MISTRAL_/, 'MISTRAL'],
  [/^(?:COHERE_|CO_API_KEY$)/, 'COHERE'],
  [/^GROQ_/, 'GROQ'],
  [/^DEEPSEEK_/, 'DEEPSEEK'],
  [/^XAI_/, 'XAI'],
  [/^(?:HF_TOKEN$|HUGGINGFACE)/, 'HUGGINGFACE'],
  [/^TOGETHER_/, 'TOGETHER'],
  [/^FIREWORKS_/, 'FIREWORKS'],
  [/^OPENROUTER_/, 'OPENROUTER'],
];

/** The LLM provider an API-key variable belongs to, or null for other services (search, DB). */
export function providerOfKey(name: string): string | null {
  for (const [pattern, provider] of KEY_PROVIDERS) if (pattern.test(name)) return provider;
  return null;
}
