// The model price table shipped with the service (decisions.md §6). USD per million tokens.
// These are public list prices (standard tier, no batch/flex discount) as we know them on
// PRICE_TABLE_AS_OF. Prices change: the operator corrects or extends them with overrides,
// which always win over this table (see pricing.ts).
//
// Simplifications, chosen so one event prices from (input, output, cached) alone:
// - Tiered long-context prices (Gemini 2.5/3 Pro above 200k, Sonnet 4.x above 200k) use the
//   lower tier: an event does not carry its prompt length.
// - `cached_input` is the price of a cache *read* (OpenAI "cached input", Anthropic "cache
//   read", Google "context caching", DeepSeek "cache hit"). Anthropic cache *writes* (1.25x
//   input) are billed as plain input; storage fees (Gemini cache storage) are not modelled.
// - Meta Llama has no first-party list price; the Llama rows use Together AI's serverless
//   prices, a common host. Operators on another host override them.
// - Preview/experimental variants price as their GA model (`gemini-2.5-flash-preview-05-20`
//   as `gemini-2.5-flash`), because the matcher strips `-preview…` suffixes.

export interface PriceEntry {
  /** Canonical model id, lower case (`gpt-4o`, `claude-3-5-sonnet`). */
  model: string;
  provider: string;
  /** USD per million uncached input tokens. */
  input: number;
  /** USD per million output tokens (reasoning tokens included, as providers bill them). */
  output: number;
  /** USD per million cached input tokens; null = no cached price, cached tokens cost `input`. */
  cached_input: number | null;
}

/** The date the shipped prices were checked against the providers' public price pages. */
export const PRICE_TABLE_AS_OF = '2025-12-15';

type Row = readonly [model: string, input: number, output: number, cached: number | null];

const OPENAI: readonly Row[] = [
  ['gpt-5.2', 1.75, 14, 0.175],
  ['gpt-5.1', 1.25, 10, 0.125],
  ['gpt-5.1-chat', 1.25, 10, 0.125],
  ['gpt-5.1-codex', 1.25, 10, 0.125],
  ['gpt-5.1-codex-mini', 0.25, 2, 0.025],
  ['gpt-5', 1.25, 10, 0.125],
  ['gpt-5-chat', 1.25, 10, 0.125],
  ['gpt-5-codex', 1.25, 10, 0.125],
  ['gpt-5-mini', 0.25, 2, 0.025],
  ['gpt-5-nano', 0.05, 0.4, 0.005],
  ['gpt-5-pro', 15, 120, null],
  ['gpt-4.1', 2, 8, 0.5],
  ['gpt-4.1-mini', 0.4, 1.6, 0.1],
  ['gpt-4.1-nano', 0.1, 0.4, 0.025],
  ['gpt-4.5-preview', 75, 150, 37.5],
  ['gpt-4o', 2.5, 10, 1.25],
  // The first gpt-4o snapshot kept its launch price; an exact id beats its base.
  ['gpt-4o-2024-05-13', 5, 15, null],
  ['chatgpt-4o-latest', 5, 15, null],
  ['gpt-4o-mini', 0.15, 0.6, 0.075],
  ['o1', 15, 60, 7.5],
  ['o1-mini', 1.1, 4.4, 0.55],
  ['o1-pro', 150, 600, null],
  ['o3', 2, 8, 0.5],
  ['o3-mini', 1.1, 4.4, 0.55],
  ['o3-pro', 20, 80, null],
  ['o4-mini', 1.1, 4.4, 0.275],
  ['gpt-4-turbo', 10, 30, null],
  ['gpt-4', 30, 60, null],
  ['gpt-4-32k', 60, 120, null],
  ['gpt-3.5-turbo', 0.5, 1.5, null],
  ['gpt-3.5-turbo-1106', 1, 2, null],
  ['gpt-3.5-turbo-instruct', 1.5, 2, null],
  ['text-embedding-3-small', 0.02, 0, null],
  ['text-embedding-3-large', 0.13, 0, null],
  ['text-embedding-ada-002', 0.1, 0, null],
];

const ANTHROPIC: readonly Row[] = [
  ['claude-opus-4-5', 5, 25, 0.5],
  ['claude-opus-4-1', 15, 75, 1.5],
  ['claude-opus-4', 15, 75, 1.5],
  ['claude-sonnet-4-5', 3, 15, 0.3],
  ['claude-sonnet-4', 3, 15, 0.3],
  ['claude-haiku-4-5', 1, 5, 0.1],
  ['claude-3-7-sonnet', 3, 15, 0.3],
  ['claude-3-5-sonnet', 3, 15, 0.3],
  ['claude-3-5-haiku', 0.8, 4, 0.08],
  ['claude-3-opus', 15, 75, 1.5],
  ['claude-3-sonnet', 3, 15, null],
  ['claude-3-haiku', 0.25, 1.25, 0.03],
];

const GOOGLE: readonly Row[] = [
  ['gemini-3-pro', 2, 12, 0.2],
  ['gemini-2.5-pro', 1.25, 10, 0.125],
  ['gemini-2.5-flash', 0.3, 2.5, 0.03],
  ['gemini-2.5-flash-lite', 0.1, 0.4, 0.01],
  ['gemini-2.0-flash', 0.1, 0.4, 0.025],
  ['gemini-2.0-flash-lite', 0.075, 0.3, null],
  ['gemini-1.5-pro', 1.25, 5, 0.3125],
  ['gemini-1.5-flash', 0.075, 0.3, 0.01875],
  ['gemini-1.5-flash-8b', 0.0375, 0.15, 0.01],
  ['gemini-embedding-001', 0.15, 0, null],
];

const MISTRAL: readonly Row[] = [
  ['mistral-large', 2, 6, null],
  ['mistral-medium', 0.4, 2, null],
  ['mistral-small', 0.1, 0.3, null],
  ['codestral', 0.3, 0.9, null],
  ['ministral-8b', 0.1, 0.1, null],
  ['ministral-3b', 0.04, 0.04, null],
  ['open-mistral-nemo', 0.15, 0.15, null],
  ['pixtral-large', 2, 6, null],
  ['magistral-medium', 2, 5, null],
  ['magistral-small', 0.5, 1.5, null],
  ['devstral-medium', 0.4, 2, null],
  ['devstral-small', 0.1, 0.3, null],
  ['mistral-embed', 0.1, 0, null],
];

// Canonical Llama ids are `llama-<major.minor>-<size>`; match.ts folds host spellings
// (`meta-llama/Meta-Llama-3.1-8B-Instruct-Turbo`, `llama3-1-70b-instruct-v1:0`) into them.
const META: readonly Row[] = [
  ['llama-3.1-8b', 0.18, 0.18, null],
  ['llama-3.1-70b', 0.88, 0.88, null],
  ['llama-3.1-405b', 3.5, 3.5, null],
  ['llama-3.3-70b', 0.88, 0.88, null],
  ['llama-4-scout', 0.18, 0.59, null],
  ['llama-4-maverick', 0.27, 0.85, null],
];

// DeepSeek V3.2 prices (both endpoints, since 2025-09-29); "cache hit" is the cached price.
const DEEPSEEK: readonly Row[] = [
  ['deepseek-chat', 0.28, 0.42, 0.028],
  ['deepseek-reasoner', 0.28, 0.42, 0.028],
];

const toEntries = (provider: string, rows: readonly Row[]): PriceEntry[] =>
  rows.map(([model, input, output, cached_input]) => Object.freeze({ model, provider, input, output, cached_input }));

export const PRICE_TABLE: readonly PriceEntry[] = Object.freeze([
  ...toEntries('openai', OPENAI),
  ...toEntries('anthropic', ANTHROPIC),
  ...toEntries('google', GOOGLE),
  ...toEntries('mistral', MISTRAL),
  ...toEntries('meta', META),
  ...toEntries('deepseek', DEEPSEEK),
]);

/**
 * Names that no suffix rule reduces to their canonical id. Keys are already normalised
 * (lower case, provider prefix removed). Looked up after the exact name at each step.
 */
export const MODEL_ALIASES: Readonly<Record<string, string>> = Object.freeze({
  'claude-opus-4-0': 'claude-opus-4',
  'claude-sonnet-4-0': 'claude-sonnet-4',
  'claude-4-opus': 'claude-opus-4',
  'claude-4-sonnet': 'claude-sonnet-4',
  // The gpt-4 "preview" snapshots were GPT-4 Turbo, priced as such, not as gpt-4.
  'gpt-4-1106-preview': 'gpt-4-turbo',
  'gpt-4-0125-preview': 'gpt-4-turbo',
  'gpt-4-vision-preview': 'gpt-4-turbo',
  'mistral-nemo': 'open-mistral-nemo',
});
