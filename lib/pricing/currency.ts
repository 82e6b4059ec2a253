// The instance display currency (decisions.md §6): an ISO 4217 code set by the operator with
// its rate against USD. Only currencies in circulation are accepted: fund codes (BOV, CHE,
// CLF, USN…), precious metals, XDR and the test codes are ISO 4217 codes nobody budgets in.

import { validationFailed, type FieldError } from '../errors.ts';

// ISO 4217 list one, circulating currencies. ANG (replaced by XCG in 2025) and BGN (euro from
// 2026) are kept so an instance configured before the changeover still starts.
const CODES =
  'AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BRL BSD BTN ' +
  'BWP BYN BZD CAD CDF CHF CLP CNY COP CRC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD ' +
  'FKP GBP GEL GHS GIP GMD GNF GTQ GYD HKD HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY ' +
  'KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP ' +
  'MRU MUR MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR ' +
  'RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS TMT ' +
  'TND TOP TRY TTD TWD TZS UAH UGX USD UYU UZS VED VES VND VUV WST XAF XCD XCG XOF XPF YER ' +
  'ZAR ZMW ZWG';

export const CURRENCY_CODES: ReadonlySet<string> = new Set(CODES.split(' '));

export interface DisplayCurrency {
  /** ISO 4217 code, upper case. */
  code: string;
  /** Units of `code` per 1 USD: cost_display = cost_usd x usd_rate. */
  usd_rate: number;
}

export const USD: DisplayCurrency = Object.freeze({ code: 'USD', usd_rate: 1 });

export function isCurrencyCode(code: unknown): code is string {
  return typeof code === 'string' && CURRENCY_CODES.has(code);
}

/**
 * Checks an operator's display currency. Codes must already be upper case (we do not guess
 * that `eur` meant EUR in a setting that drives every figure). USD must have rate 1.
 * Throws AppError 422 `validation_failed` naming `/display_currency` and/or `/usd_rate`.
 */
export function parseDisplayCurrency(code: unknown, usdRate: unknown): DisplayCurrency {
  const errors: FieldError[] = [];
  if (typeof code !== 'string' || !/^[A-Z]{3}$/.test(code)) {
    errors.push({ path: '/display_currency', message: 'must be three upper-case letters (ISO 4217)' });
  } else if (!CURRENCY_CODES.has(code)) {
    errors.push({ path: '/display_currency', message: `${code} is not an active ISO 4217 currency` });
  }
  if (typeof usdRate !== 'number' || !Number.isFinite(usdRate) || usdRate <= 0) {
    errors.push({ path: '/usd_rate', message: 'must be a positive number' });
  } else if (code === 'USD' && usdRate !== 1) {
    errors.push({ path: '/usd_rate', message: 'must be 1 when the display currency is USD' });
  }
  if (errors.length > 0) throw validationFailed(errors);
  return { code: code as string, usd_rate: usdRate as number };
}
