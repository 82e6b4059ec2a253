// Wall-clock arithmetic in the instance's time zone: business hours (the "within 2 business
// hours" promise of alerts) and the ISO week of the weekly report. Only Intl is used, so time
// zone rules come from the ICU data that ships with Node, daylight saving included.

export interface BusinessHours {
  /** Hour of the day business starts (0-23), local time. */
  startHour: number;
  /** Hour of the day business ends (1-24), exclusive. */
  endHour: number;
  /** ISO weekdays: 1 = Monday ... 7 = Sunday. */
  days: readonly number[];
  timeZone: string;
}

export interface ZonedParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  /** ISO weekday: 1 = Monday ... 7 = Sunday. */
  weekday: number;
}

const WEEKDAYS: Record<string, number> = { Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6, Sun: 7 };
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone, hourCycle: 'h23', weekday: 'short', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

export function isValidTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
}

export function zonedParts(at: Date, timeZone: string): ZonedParts {
  const parts: Record<string, string> = {};
  for (const p of formatterFor(timeZone).formatToParts(at)) parts[p.type] = p.value;
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    weekday: WEEKDAYS[parts.weekday!]!,
  };
}

export function isBusinessTime(at: Date, hours: BusinessHours): boolean {
  const p = zonedParts(at, hours.timeZone);
  return hours.days.includes(p.weekday) && p.hour >= hours.startHour && p.hour < hours.endHour;
}

const MINUTE = 60_000;
const QUARTER = 15 * MINUTE;
// No real schedule needs more: 2 business hours are reached within days, and a schedule with no
// business time at all (impossible through the settings API) must not loop for ever.
const SEARCH_LIMIT_MS = 62 * 24 * 3600 * 1000;

/**
 * The instant at which `hours` business hours have passed since `from`, counting only time
 * inside business hours. Outside them the walk jumps by UTC quarter hours: every real zone's
 * offset is a multiple of 15 minutes, so a local whole hour always starts on one.
 */
export function addBusinessHours(from: Date, businessHours: number, hours: BusinessHours): Date {
  let remaining = businessHours * 60;
  let t = Math.ceil(from.getTime() / MINUTE) * MINUTE;
  const limit = t + SEARCH_LIMIT_MS;
  while (remaining > 0 && t < limit) {
    if (isBusinessTime(new Date(t), hours)) {
      t += MINUTE;
      remaining -= 1;
    } else {
      t = (Math.floor(t / QUARTER) + 1) * QUARTER;
    }
  }
  return new Date(t);
}

/** ISO 8601 week of a calendar date, e.g. `2026-W47` (weeks start on Monday). */
export function isoWeek(year: number, month: number, day: number): string {
  const date = new Date(Date.UTC(year, month - 1, day));
  const weekday = date.getUTCDay() || 7;
  // The Thursday of this week decides the week's year.
  date.setUTCDate(date.getUTCDate() + 4 - weekday);
  const weekYear = date.getUTCFullYear();
  const week = Math.ceil(((date.getTime() - Date.UTC(weekYear, 0, 1)) / 86_400_000 + 1) / 7);
  return `${weekYear}-W${String(week).padStart(2, '0')}`;
}
