// Trend of a check's daily pass rate (decisions §7), kept pure so it is tested on its own.
//
// For a day D with runs: baseline = the mean of the daily pass rates of the days in
// [D-7, D-1] that have runs (each day weighs the same, whatever its number of runs; days
// without runs are skipped, not counted as 0). DEGRADING when D's rate is at least 5
// percentage points below the baseline, IMPROVING when at least 5 above, else STABLE.
// No run in the 7 days before D: STABLE (nothing to compare with).
import { addDays } from './time.ts';

export type Trend = 'DEGRADING' | 'IMPROVING' | 'STABLE';

export const TREND_THRESHOLD = 0.05;
export const TREND_LOOKBACK_DAYS = 7;
// Pass rates are ratios of integers; 0.95 - 0.9 is 0.0499999... in binary floating point, so
// "at least 5 points" compares with a tolerance far below any real difference of rates.
const EPSILON = 1e-9;

export interface DailyRate {
  /** YYYY-MM-DD */
  day: string;
  rate: number;
}

export function classifyTrend(rate: number, baseline: number | undefined): Trend {
  if (baseline === undefined) return 'STABLE';
  const diff = rate - baseline;
  if (diff <= -TREND_THRESHOLD + EPSILON) return 'DEGRADING';
  if (diff >= TREND_THRESHOLD - EPSILON) return 'IMPROVING';
  return 'STABLE';
}

/** Mean of the rates of days in [day-7, day-1]; `series` may be in any order. */
export function baselineFor(series: readonly DailyRate[], day: string): number | undefined {
  const from = addDays(day, -TREND_LOOKBACK_DAYS);
  let sum = 0;
  let n = 0;
  for (const point of series) {
    if (point.day >= from && point.day < day) {
      sum += point.rate;
      n++;
    }
  }
  return n === 0 ? undefined : sum / n;
}

export function trendOf(series: readonly DailyRate[], day: string, rate: number): Trend {
  return classifyTrend(rate, baselineFor(series, day));
}
