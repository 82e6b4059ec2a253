// Pure rules behind the analytics reads: the accuracy trend (decisions §7) and UTC day windows.
import { describe, expect, it } from 'vitest';
import { baselineFor, classifyTrend, trendOf } from '../lib/analytics/trend.ts';
import { dayWindow, daysOf, fromDateTime64, monthStart, toDateTime64 } from '../lib/analytics/time.ts';

describe('accuracy trend', () => {
  it('is DEGRADING / IMPROVING from exactly 5 percentage points, STABLE inside them', () => {
    expect(classifyTrend(0.85, 0.9)).toBe('DEGRADING');
    expect(classifyTrend(0.95, 0.9)).toBe('IMPROVING'); // 0.95 - 0.9 is 0.04999... in binary
    expect(classifyTrend(0.8501, 0.9)).toBe('STABLE');
    expect(classifyTrend(0.9499, 0.9)).toBe('STABLE');
    expect(classifyTrend(0, 1)).toBe('DEGRADING');
    expect(classifyTrend(1, 0)).toBe('IMPROVING');
  });

  it('is STABLE when no day in the 7 before has runs', () => {
    expect(classifyTrend(0, undefined)).toBe('STABLE');
    expect(trendOf([{ day: '2025-03-01', rate: 1 }], '2025-03-09', 0)).toBe('STABLE');
  });

  it('compares with the mean of daily rates of the days with runs in [D-7, D-1]', () => {
    const series = [
      { day: '2025-03-01', rate: 0 }, // D-8: outside
      { day: '2025-03-02', rate: 0.5 }, // D-7: inside
      { day: '2025-03-08', rate: 1 }, // D-1: inside
      { day: '2025-03-09', rate: 0.2 }, // D itself: not part of its baseline
      { day: '2025-03-10', rate: 0 }, // after D: outside
    ];
    expect(baselineFor(series, '2025-03-09')).toBeCloseTo(0.75, 12);
    expect(trendOf(series, '2025-03-09', 0.2)).toBe('DEGRADING');
    expect(trendOf(series, '2025-03-09', 0.75)).toBe('STABLE');
    expect(trendOf(series, '2025-03-09', 0.8)).toBe('IMPROVING');
  });
});

describe('UTC day windows', () => {
  it('end with the UTC day of now and count it as the first day', () => {
    expect(dayWindow(new Date('2025-03-01T00:30:00+02:00'), 1)).toEqual({ from: '2025-02-28', to: '2025-02-28' });
    expect(dayWindow(new Date('2024-03-01T12:00:00Z'), 3)).toEqual({ from: '2024-02-28', to: '2024-03-01' });
    expect(daysOf(dayWindow(new Date('2024-03-01T12:00:00Z'), 3))).toEqual(['2024-02-28', '2024-02-29', '2024-03-01']);
    expect(() => dayWindow(new Date(), 0)).toThrow(RangeError);
  });

  it('converts instants to and from DateTime64 text in UTC', () => {
    expect(toDateTime64('2025-03-19T01:30:00.5+02:00')).toBe('2025-03-18 23:30:00.500');
    expect(fromDateTime64('2025-03-18 23:30:00.500')).toBe('2025-03-18T23:30:00.500Z');
    expect(monthStart(new Date('2025-03-31T23:59:59.999Z'))).toBe('2025-03-01');
    expect(() => toDateTime64('yesterday')).toThrow(RangeError);
  });
});
