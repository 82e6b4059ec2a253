import { describe, expect, it } from 'vitest';
import { AppError } from '../lib/errors.ts';
import { CURRENCY_CODES, isCurrencyCode, parseDisplayCurrency } from '../lib/pricing/currency.ts';

function paths(code: unknown, rate: unknown): string[] {
  try {
    parseDisplayCurrency(code, rate);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    expect(error.status).toBe(422);
    return (error.errors ?? []).map((e) => e.path);
  }
  throw new Error('expected a validation error');
}

describe('display currency', () => {
  it('accepts an active ISO 4217 code with a positive rate', () => {
    expect(parseDisplayCurrency('EUR', 0.92)).toEqual({ code: 'EUR', usd_rate: 0.92 });
    expect(parseDisplayCurrency('JPY', 151.3)).toEqual({ code: 'JPY', usd_rate: 151.3 });
    expect(parseDisplayCurrency('USD', 1)).toEqual({ code: 'USD', usd_rate: 1 });
  });

  it('knows the circulating codes and not the fund, metal or test codes', () => {
    for (const code of ['USD', 'EUR', 'GBP', 'CHF', 'INR', 'BRL', 'XOF', 'XCG', 'ZWG']) expect(isCurrencyCode(code)).toBe(true);
    for (const code of ['XAU', 'XTS', 'XXX', 'XDR', 'USN', 'CHE', 'HRK', 'ABC', 'usd', 'US', 42]) expect(isCurrencyCode(code)).toBe(false);
    expect(CURRENCY_CODES.size).toBeGreaterThan(150);
  });

  it('rejects malformed and unknown codes', () => {
    expect(paths('eur', 1)).toEqual(['/display_currency']);
    expect(paths('EURO', 1)).toEqual(['/display_currency']);
    expect(paths('XAU', 1)).toEqual(['/display_currency']);
    expect(paths(undefined, 1)).toEqual(['/display_currency']);
  });

  it('rejects a rate that is not a positive finite number', () => {
    for (const rate of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, '0.9', null]) {
      expect(paths('EUR', rate)).toEqual(['/usd_rate']);
    }
  });

  it('requires rate 1 for USD and reports every broken field at once', () => {
    expect(paths('USD', 0.9)).toEqual(['/usd_rate']);
    expect(paths('ZZZ', -2)).toEqual(['/display_currency', '/usd_rate']);
  });
});
