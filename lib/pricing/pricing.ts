// Turns (model, token counts) into USD (decisions.md §6). Built once at start from the shipped
// table plus the operator's overrides, then used on the ingest hot path: lookups are memoised
// and never touch a store.
//
// Cached input tokens are a SUBSET of input tokens (OpenAI, Google and DeepSeek count them
// that way): cost = ((input - cached) * input_price + cached * cached_price
//                    + output * output_price) / 1e6.
// Anthropic reports cache reads apart from input_tokens, so an Anthropic caller sends
// input_tokens = input_tokens + cache_read_input_tokens + cache_creation_input_tokens and
// cached_input_tokens = cache_read_input_tokens. Cached tokens above input are rejected (422).

import { validationFailed, type FieldError } from '../errors.ts';
import { modelCandidates } from './match.ts';
import { MODEL_ALIASES, PRICE_TABLE, type PriceEntry } from './price-table.ts';

export { PRICE_TABLE_AS_OF, type PriceEntry } from './price-table.ts';

export interface TokenUsage {
  input_tokens: number;
  output_tokens: number;
  /** Part of input_tokens served from the provider's prompt cache. Default 0. */
  cached_input_tokens?: number;
}

export interface CostResult {
  /** Rounded to 10 decimal places; 0 when unpriced. */
  cost_usd: number;
  /** false: the model is unknown; the operator should add a price for it. */
  priced: boolean;
  price: PriceEntry | null;
}

export interface Pricer {
  /** The entry a model name prices as. `provider` lets an operator entry `azure/gpt-4o` win. */
  price(model: string, provider?: string): PriceEntry | undefined;
  cost(model: string, usage: TokenUsage, provider?: string): CostResult;
  /** Every effective entry (table with overrides applied, plus added models), sorted. */
  entries(): PriceEntry[];
}

// Distinct model names in a fleet are few; the bound only guards against a client that
// sends a new name on every event.
const MEMO_LIMIT = 2048;

/** Overrides win over the table entry of the same model (case-insensitive); later ones win. */
export function createPricer(overrides: readonly PriceEntry[] = []): Pricer {
  const byModel = new Map<string, PriceEntry>();
  for (const entry of PRICE_TABLE) byModel.set(entry.model, entry);
  for (const entry of validateOverrides(overrides)) byModel.set(entry.model, entry);
  const memo = new Map<string, PriceEntry | null>();

  const resolve = (name: string): PriceEntry | null => {
    for (const id of modelCandidates(name)) {
      const alias = MODEL_ALIASES[id];
      const hit = byModel.get(id) ?? (alias === undefined ? undefined : byModel.get(alias));
      if (hit) return hit;
    }
    return null;
  };

  const price = (model: string, provider?: string): PriceEntry | undefined => {
    const name = provider?.trim() ? `${provider.trim()}/${model}` : model;
    let found = memo.get(name);
    if (found === undefined) {
      found = resolve(name);
      if (memo.size >= MEMO_LIMIT) memo.clear();
      memo.set(name, found);
    }
    return found ?? undefined;
  };

  const cost = (model: string, usage: TokenUsage, provider?: string): CostResult => {
    const { input, output, cached } = checkUsage(usage);
    const entry = price(model, provider);
    if (!entry) return { cost_usd: 0, priced: false, price: null };
    const cachedPrice = entry.cached_input ?? entry.input;
    const micro = (input - cached) * entry.input + cached * cachedPrice + output * entry.output;
    return { cost_usd: roundUsd(micro / 1e6), priced: true, price: entry };
  };

  const entries = (): PriceEntry[] =>
    [...byModel.values()].sort((a, b) => a.provider.localeCompare(b.provider) || a.model.localeCompare(b.model));

  return { price, cost, entries };
}

/** 10 decimal places: exact enough for a single cheap call, and free of float noise. */
export function roundUsd(value: number): number {
  return Number(value.toFixed(10));
}

/**
 * cost_display = cost_usd x rate, rounded to 8 decimal places. Per-event costs are
 * fractions of a cent, so rounding to the currency's minor unit would turn most of them into
 * 0; 8 places is far below any minor unit (ISO 4217 has at most 4) yet keeps a 10-token call
 * visible. Totals should convert the summed USD, not sum per-event display values.
 * `usdRate` is the validated rate from currency.ts (units of the display currency per USD).
 */
export function toDisplay(costUsd: number, usdRate: number): number {
  if (!Number.isFinite(usdRate) || usdRate <= 0) throw new RangeError(`invalid USD rate: ${usdRate}`);
  return Number((costUsd * usdRate).toFixed(8));
}

function checkUsage(usage: TokenUsage): { input: number; output: number; cached: number } {
  const errors: FieldError[] = [];
  const count = (field: keyof TokenUsage, value: number | undefined): number => {
    const n = value ?? 0;
    if (!Number.isSafeInteger(n) || n < 0) errors.push({ path: `/${field}`, message: 'must be a non-negative integer' });
    return n;
  };
  const input = count('input_tokens', usage.input_tokens);
  const output = count('output_tokens', usage.output_tokens);
  const cached = count('cached_input_tokens', usage.cached_input_tokens);
  if (errors.length === 0 && cached > input) {
    errors.push({ path: '/cached_input_tokens', message: 'must not exceed input_tokens (cached tokens are part of input)' });
  }
  if (errors.length > 0) throw validationFailed(errors);
  return { input, output, cached };
}

const isPrice = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;

/** A bad override fails start (or the settings write) with every broken field named. */
function validateOverrides(overrides: readonly PriceEntry[]): PriceEntry[] {
  const errors: FieldError[] = [];
  const valid = overrides.map((o, i) => {
    const at = (field: string): string => `/${i}/${field}`;
    const model = typeof o?.model === 'string' ? o.model.trim().toLowerCase() : '';
    if (!model || model.length > 200) errors.push({ path: at('model'), message: 'must be a non-empty string of at most 200 characters' });
    if (typeof o?.provider !== 'string' || !o.provider.trim()) errors.push({ path: at('provider'), message: 'must be a non-empty string' });
    if (!isPrice(o?.input)) errors.push({ path: at('input'), message: 'must be a number >= 0 (USD per million tokens)' });
    if (!isPrice(o?.output)) errors.push({ path: at('output'), message: 'must be a number >= 0 (USD per million tokens)' });
    const cached = o?.cached_input ?? null;
    if (cached !== null && !isPrice(cached)) errors.push({ path: at('cached_input'), message: 'must be null or a number >= 0' });
    return Object.freeze({ model, provider: String(o?.provider ?? '').trim().toLowerCase(), input: o?.input, output: o?.output, cached_input: cached });
  });
  if (errors.length > 0) throw validationFailed(errors);
  return valid;
}
