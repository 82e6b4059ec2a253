// How a model name as a client reports it becomes the ids we look up in the price table.
// We strip only suffixes we recognise as versions or snapshots (dates, `-latest`, `-0125`,
// `@20241022`, `-v1:0`, `-preview-05-20`), never arbitrary tails: `gpt-4o-realtime` must
// stay unpriced (and listed for the operator) rather than silently price as `gpt-4o`.

// One version suffix at the end of an id. Applied repeatedly, one at a time, so each shorter
// base is tried after the longer one: `gpt-4o-mini-2024-07-18` tries itself, then
// `gpt-4o-mini`, and never reaches `gpt-4o`.
const VERSION_SUFFIX = new RegExp(
  '(?:' +
    [
      '-latest',
      '@[a-z0-9._-]+', // Vertex AI: claude-3-5-sonnet@20240620, gemini-1.5-pro@002
      '-\\d{4}-\\d{2}-\\d{2}', // OpenAI: -2024-08-06
      '-\\d{8}', // Anthropic: -20241022
      '-\\d{3,4}', // OpenAI -0125, Mistral -2411 (YYMM), Gemini -001
      '-v\\d+(?::\\d+)?', // Bedrock -v1:0, Anthropic "v2" naming
      '-preview(?:-\\d{2}-\\d{2,4})?', // Gemini -preview-05-20, -preview-09-2025
      '-exp(?:-\\d{2}-?\\d{2})?', // Gemini experimental
    ].join('|') +
    ')$',
);

// Bedrock ids carry the vendor (and a cross-region inference profile) as a dotted prefix.
const BEDROCK_PREFIX = /^(?:(?:us|eu|apac|au|jp|global)\.)?(?:anthropic|meta|mistral|deepseek|openai)\./;

// Host spellings of Llama: Meta-Llama-3.1-8B-Instruct-Turbo, llama3-1-70b-instruct-v1:0,
// llama-v3p1-70b-instruct, llama3.1:8b, llama-4-scout-17b-16e-instruct, llama-3.3-70b-versatile.
const LLAMA = /^(?:meta-)?llama-?v?(\d+)(?:[.p-](\d+))?[-:](\d+b|scout|maverick)\b/;

/** `openai/gpt-4o`, `models/gemini-1.5-pro`, `us.anthropic.claude-…` → the bare model id. */
export function stripProviderPrefix(name: string): string {
  return name.slice(name.lastIndexOf('/') + 1).replace(BEDROCK_PREFIX, '');
}

/** Family spellings folded to the table's canonical id; other names come back unchanged. */
function canonicalFamily(name: string): string {
  // OpenRouter and others write claude-3.5-sonnet / claude-sonnet-4.5 with a dot.
  if (name.startsWith('claude-')) return name.replace(/(\d)\.(\d)/g, '$1-$2');
  const llama = LLAMA.exec(name);
  if (llama) return `llama-${llama[1]}${llama[2] === undefined ? '' : `.${llama[2]}`}-${llama[3]}`;
  return name;
}

function addChain(into: Set<string>, name: string): void {
  let current = name;
  while (current) {
    into.add(current);
    const shorter = current.replace(VERSION_SUFFIX, '');
    if (shorter === current) return;
    current = shorter;
  }
}

/**
 * The ids to try, most specific first: the full lower-cased name and its version-stripped
 * bases (so operator entries keyed `azure/gpt-4o` match), then the same without the provider
 * prefix, then the family-canonical spelling. The first id with a price wins.
 */
export function modelCandidates(raw: string): string[] {
  const ids = new Set<string>();
  const full = raw.trim().toLowerCase();
  addChain(ids, full);
  const bare = stripProviderPrefix(full);
  addChain(ids, bare);
  addChain(ids, canonicalFamily(bare));
  return [...ids];
}
