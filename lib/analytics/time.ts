// UTC day and timestamp helpers shared by the analytics reads and inserts. Every day boundary is
// UTC midnight; windows are whole UTC days ending with the day that contains `now`.

const DAY_MS = 86_400_000;

/** ISO 8601 instant -> `YYYY-MM-DD hh:mm:ss.mmm` (UTC), the text DateTime64(3, 'UTC') parses. */
export function toDateTime64(iso: string): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw new RangeError(`not an ISO 8601 instant: ${JSON.stringify(iso)}`);
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
}

/** DateTime64 text as ClickHouse prints it (UTC column) -> ISO 8601 with Z. */
export function fromDateTime64(text: string): string {
  return new Date(`${text.replace(' ', 'T')}Z`).toISOString();
}

/** `YYYY-MM-DD` of the UTC day containing `at`. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

export function addDays(day: string, n: number): string {
  return utcDay(new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS));
}

export interface DayWindow {
  /** First day, inclusive. */
  from: string;
  /** Last day, inclusive: the UTC day of `now`. */
  to: string;
}

/** The last `days` UTC days, today included: days=1 is today only, days=7 is today and the 6 before. */
export function dayWindow(now: Date, days: number): DayWindow {
  if (!Number.isInteger(days) || days < 1) throw new RangeError(`days must be a positive integer, got ${days}`);
  const to = utcDay(now);
  return { from: addDays(to, -(days - 1)), to };
}

/** Every day of the window in order, for zero-filled series. */
export function daysOf(window: DayWindow): string[] {
  const out: string[] = [];
  for (let d = window.from; d <= window.to; d = addDays(d, 1)) out.push(d);
  return out;
}

/** `YYYY-MM-01` of the UTC month containing `at` (the shape of a budget's `month`). */
export function monthStart(at: Date): string {
  return `${at.toISOString().slice(0, 7)}-01`;
}
