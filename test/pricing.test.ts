import { describe, expect, it } from 'vitest';
import { AppError } from '../lib/errors.ts';
import { PRICE_TABLE } from '../lib/pricing/price-table.ts';
import { createPricer, PRICE_TABLE_AS_OF, roundUsd, toDisplay, type PriceEntry } from '../lib/pricing/pricing.ts';

const pricer = createPricer([]);
const modelOf = (name: string, provider?: string): string | undefined => pricer.price(name, provider)?.model;

function thrown(fn: () => unknown): AppError {
  try {
    fn();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected an AppError');
}

describe('shipped price table', () => {
  it('carries an ISO date and sane, unique, lower-case entries', () => {
    expect(PRICE_TABLE_AS_OF).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const models = PRICE_TABLE.map((e) => e.model);
    expect(new Set(models).size).toBe(models.length);
    for (const e of PRICE_TABLE) {
      expect(e.model).toBe(e.model.toLowerCase());
      expect(e.input).toBeGreaterThanOrEqual(0);
      expect(e.output).toBeGreaterThanOrEqual(0);
      if (e.cached_input !== null) expect(e.cached_input).toBeLessThanOrEqual(e.input);
    }
    for (const provider of ['openai', 'anthropic', 'google', 'mistral', 'meta', 'deepseek']) {
      expect(PRICE_TABLE.some((e) => e.provider === provider)).toBe(true);
    }
  });

  it('prices every table model as itself (no suffix rule reroutes a canonical id)', () => {
    for (const e of PRICE_TABLE) expect(modelOf(e.model)).toBe(e.model);
  });
});

describe('matching', () => {
  it('matches exactly, case-insensitively', () => {
    expect(pricer.price('gpt-4o')).toMatchObject({ model: 'gpt-4o', provider: 'openai', input: 2.5, output: 10, cached_input: 1.25 });
    expect(modelOf('GPT-4o')).toBe('gpt-4o');
    expect(modelOf('  deepseek-reasoner ')).toBe('deepseek-reasoner');
  });

  it.each([
    ['gpt-4o-2024-08-06', 'gpt-4o'],
    ['gpt-3.5-turbo-0125', 'gpt-3.5-turbo'],
    ['o1-2024-12-17', 'o1'],
    ['gpt-5-2025-08-07', 'gpt-5'],
    ['gpt-5-chat-latest', 'gpt-5-chat'],
    ['claude-3-5-sonnet-20241022', 'claude-3-5-sonnet'],
    ['claude-3-5-sonnet-latest', 'claude-3-5-sonnet'],
    ['claude-sonnet-4-20250514', 'claude-sonnet-4'],
    ['claude-sonnet-4-0', 'claude-sonnet-4'],
    ['claude-opus-4-1-20250805', 'claude-opus-4-1'],
    ['claude-haiku-4-5-20251001', 'claude-haiku-4-5'],
    ['claude-3-5-sonnet-v2@20241022', 'claude-3-5-sonnet'],
    ['us.anthropic.claude-3-7-sonnet-20250219-v1:0', 'claude-3-7-sonnet'],
    ['gemini-1.5-pro-002', 'gemini-1.5-pro'],
    ['gemini-2.5-flash-preview-05-20', 'gemini-2.5-flash'],
    ['gemini-3-pro-preview', 'gemini-3-pro'],
    ['mistral-large-2411', 'mistral-large'],
    ['mistral-large-latest', 'mistral-large'],
    ['codestral-2501', 'codestral'],
    ['ministral-8b-latest', 'ministral-8b'],
    ['gpt-4-1106-preview', 'gpt-4-turbo'],
  ])('prices dated/alias variant %s as %s', (name, expected) => {
    expect(modelOf(name)).toBe(expected);
  });

  it('prefers the longest base that matches', () => {
    expect(modelOf('gpt-4o-mini-2024-07-18')).toBe('gpt-4o-mini');
    expect(modelOf('gpt-4.1-nano-2025-04-14')).toBe('gpt-4.1-nano');
    expect(modelOf('o3-mini-2025-01-31')).toBe('o3-mini');
    expect(modelOf('gemini-2.0-flash-lite-001')).toBe('gemini-2.0-flash-lite');
    expect(modelOf('gemini-2.5-flash-lite-preview-06-17')).toBe('gemini-2.5-flash-lite');
  });

  it('lets an exact dated id beat its base when the table prices it differently', () => {
    expect(pricer.price('gpt-4o-2024-05-13')).toMatchObject({ model: 'gpt-4o-2024-05-13', input: 5, output: 15 });
  });

  it.each([
    ['openai/gpt-4o-mini', 'gpt-4o-mini'],
    ['anthropic/claude-3.5-sonnet', 'claude-3-5-sonnet'],
    ['anthropic/claude-sonnet-4.5', 'claude-sonnet-4-5'],
    ['models/gemini-1.5-pro-latest', 'gemini-1.5-pro'],
    ['google/gemini-2.5-pro', 'gemini-2.5-pro'],
    ['meta-llama/Llama-3.3-70B-Instruct-Turbo', 'llama-3.3-70b'],
    ['meta-llama/Meta-Llama-3.1-8B-Instruct', 'llama-3.1-8b'],
    ['meta-llama/llama-4-maverick-17b-128e-instruct', 'llama-4-maverick'],
    ['meta.llama3-1-70b-instruct-v1:0', 'llama-3.1-70b'],
    ['accounts/fireworks/models/llama-v3p1-405b-instruct', 'llama-3.1-405b'],
    ['deepseek/deepseek-chat', 'deepseek-chat'],
    ['mistralai/mistral-small-2503', 'mistral-small'],
  ])('strips the provider prefix of %s', (name, expected) => {
    expect(modelOf(name)).toBe(expected);
  });

  it('leaves unrecognised tails unpriced instead of pricing them as a shorter model', () => {
    expect(pricer.price('gpt-4o-realtime-preview')).toBeUndefined();
    expect(pricer.price('llama-3-70b')).toBeUndefined();
    expect(pricer.price('')).toBeUndefined();
  });
});

describe('overrides', () => {
  const cheap4o: PriceEntry = { model: 'GPT-4o', provider: 'openai', input: 1, output: 2, cached_input: null };

  it('win over the table, dated variants included, without touching other pricers', () => {
    const custom = createPricer([cheap4o]);
    expect(custom.price('gpt-4o-2024-11-20')).toMatchObject({ model: 'gpt-4o', input: 1, output: 2, cached_input: null });
    expect(custom.cost('gpt-4o', { input_tokens: 1_000_000, output_tokens: 1_000_000 }).cost_usd).toBe(3);
    expect(pricer.price('gpt-4o')?.input).toBe(2.5);
    const listed = custom.entries().filter((e) => e.model === 'gpt-4o');
    expect(listed).toEqual([{ model: 'gpt-4o', provider: 'openai', input: 1, output: 2, cached_input: null }]);
  });

  it('add new models, including provider-qualified ones', () => {
    const custom = createPricer([
      { model: 'acme-ft-v7', provider: 'acme', input: 4, output: 8, cached_input: 1 },
      { model: 'azure/gpt-4o', provider: 'azure', input: 3, output: 12, cached_input: null },
    ]);
    expect(custom.cost('acme-ft-v7', { input_tokens: 500_000, output_tokens: 250_000 })).toMatchObject({ cost_usd: 4, priced: true });
    expect(custom.price('gpt-4o', 'azure')?.input).toBe(3);
    expect(custom.price('gpt-4o-2024-08-06', 'Azure')?.input).toBe(3);
    expect(custom.price('gpt-4o', 'openai')?.input).toBe(2.5);
    expect(custom.entries().map((e) => e.model)).toContain('acme-ft-v7');
    expect(pricer.price('acme-ft-v7')).toBeUndefined();
  });

  it('reject broken entries, naming each field', () => {
    const bad = [{ model: '', provider: 'x', input: -1, output: Number.NaN, cached_input: 'cheap' }] as unknown as PriceEntry[];
    const error = thrown(() => createPricer(bad));
    expect(error.status).toBe(422);
    expect(error.errors?.map((e) => e.path).sort()).toEqual(['/0/cached_input', '/0/input', '/0/model', '/0/output']);
  });
});

describe('cost', () => {
  it('is 0 and unpriced for an unknown model', () => {
    expect(pricer.cost('acme-secret-model', { input_tokens: 1000, output_tokens: 1000 })).toEqual({ cost_usd: 0, priced: false, price: null });
  });

  it('bills cached tokens as a subset of input at the cached price', () => {
    // gpt-4o: 600 uncached x $2.50 + 400 cached x $1.25 + 500 out x $10 = 7000 micro-USD.
    const result = pricer.cost('gpt-4o-2024-08-06', { input_tokens: 1000, cached_input_tokens: 400, output_tokens: 500 });
    expect(result).toMatchObject({ cost_usd: 0.007, priced: true });
    expect(result.price?.model).toBe('gpt-4o');
    // deepseek-chat: 100k x $0.28 + 900k x $0.028 + 100k x $0.42 = 95,200 micro-USD.
    const ds = pricer.cost('deepseek-chat', { input_tokens: 1_000_000, cached_input_tokens: 900_000, output_tokens: 100_000 });
    expect(ds.cost_usd).toBe(0.0952);
  });

  it('bills cached tokens at the input price when the model has no cached price', () => {
    // claude-3-sonnet has no cached price: 1000 x $3 = 3000 micro-USD, whatever the cached share.
    expect(pricer.cost('claude-3-sonnet-20240229', { input_tokens: 1000, cached_input_tokens: 400, output_tokens: 0 }).cost_usd).toBe(0.003);
  });

  it('rounds away float noise to 10 decimal places', () => {
    // 7 x 0.05 is 0.35000000000000003 in binary floating point.
    expect(pricer.cost('gpt-5-nano', { input_tokens: 7, output_tokens: 0 }).cost_usd).toBe(0.00000035);
    expect(roundUsd(0.1 + 0.2)).toBe(0.3);
    expect(roundUsd(1.23456789012345)).toBe(1.2345678901);
  });

  it('rejects cached tokens above input and negative or fractional counts', () => {
    const over = thrown(() => pricer.cost('gpt-4o', { input_tokens: 10, cached_input_tokens: 11, output_tokens: 0 }));
    expect(over).toMatchObject({ status: 422, code: 'validation_failed' });
    expect(over.errors?.[0]?.path).toBe('/cached_input_tokens');
    const bad = thrown(() => pricer.cost('unknown-model', { input_tokens: -1, output_tokens: 1.5 }));
    expect(bad.errors?.map((e) => e.path)).toEqual(['/input_tokens', '/output_tokens']);
  });
});

describe('toDisplay', () => {
  it('converts with the USD rate and rounds to 8 decimal places', () => {
    expect(toDisplay(0.007, 0.92)).toBe(0.00644);
    expect(toDisplay(12.5, 150.25)).toBe(1878.125);
    expect(toDisplay(0.000000123456, 1)).toBe(0.00000012);
    expect(toDisplay(0, 0.8)).toBe(0);
  });

  it('refuses a rate that is not a positive number', () => {
    expect(() => toDisplay(1, 0)).toThrow(RangeError);
    expect(() => toDisplay(1, Number.NaN)).toThrow(RangeError);
  });
});
