// The `period` argument of visibility_report: a few named ranges ending today (UTC), a calendar month or
// an explicit range of days, turned into the analytics body's dates and a comparison range just before.
import { excerpt } from "../excerpt.js";

const DAY_MS = 86_400_000;
const NAMED_DAYS: Record<string, number> = { "last-7-days": 7, "last-30-days": 30, "last-90-days": 90 };
/** How many calendar months the completion offers, the current one first. */
const MONTHS_OFFERED = 12;

export const PERIOD_FORMS =
  "last-7-days, last-30-days, last-90-days, last-month, a month YYYY-MM, or days YYYY-MM-DD..YYYY-MM-DD";

/** The analytics body's date fields for a period and the range before it, and how to name the period. */
export interface PeriodDates {
  start_date: string;
  end_date: string;
  comparison_start_date: string;
  comparison_end_date: string;
  /** e.g. "2025-12-01 to 2025-12-31". */
  label: string;
  comparisonLabel: string;
}

interface DayRange {
  /** UTC midnights, inclusive. */
  first: number;
  last: number;
}

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const utcDay = (date: Date) => Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
const monthRange = (year: number, month: number): DayRange => ({
  first: Date.UTC(year, month, 1),
  last: Date.UTC(year, month + 1, 0),
});

/** A YYYY-MM-DD that names a real day, as its UTC midnight. */
function parseDay(text: string): number | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]) - 1, Number(match[3])];
  const ms = Date.UTC(year, month, day);
  return new Date(ms).getUTCMonth() === month && new Date(ms).getUTCDate() === day ? ms : undefined;
}

/** The range a period names, and the one it is compared with; a string saying what is wrong otherwise. */
function ranges(period: string, today: number): { current: DayRange; previous: DayRange } | string {
  const days = NAMED_DAYS[period];
  if (days !== undefined) {
    const current = { first: today - (days - 1) * DAY_MS, last: today };
    return { current, previous: { first: current.first - days * DAY_MS, last: current.first - DAY_MS } };
  }
  const now = new Date(today);
  const month = period === "last-month" ? [now.getUTCFullYear(), now.getUTCMonth() - 1] : monthOf(period);
  if (month) {
    const [year, index] = month as [number, number];
    const current = monthRange(year, index);
    if (current.first > today) return "is a month that has not begun";
    return { current, previous: monthRange(year, index - 1) };
  }
  const bounds = period.split("..");
  if (bounds.length === 2) {
    const [first, last] = bounds.map(parseDay);
    if (first === undefined || last === undefined) return "names a day that does not exist";
    if (first > last) return "ends before it starts";
    if (first > today) return "starts after today";
    const length = last - first + DAY_MS;
    return { current: { first, last }, previous: { first: first - length, last: first - DAY_MS } };
  }
  return "is not a period";
}

function monthOf(period: string): [number, number] | undefined {
  const match = /^(\d{4})-(\d{2})$/.exec(period);
  const month = match ? Number(match[2]) : 0;
  return match && month >= 1 && month <= 12 ? [Number(match[1]), month - 1] : undefined;
}

/** The dates of `period` as of `now` (UTC days), or an error message naming the accepted forms. */
export function resolvePeriod(period: string, now: Date): PeriodDates | { error: string } {
  const found = ranges(period.trim().toLowerCase(), utcDay(now));
  if (typeof found === "string") {
    return { error: `period "${excerpt(period, 40)}" ${found}; use ${PERIOD_FORMS} (UTC)` };
  }
  const { current, previous } = found;
  return {
    // A date-time start (the spec's type); a date-only end, which the API extends to the day's end.
    start_date: `${isoDay(current.first)}T00:00:00Z`,
    end_date: isoDay(current.last),
    comparison_start_date: `${isoDay(previous.first)}T00:00:00Z`,
    comparison_end_date: isoDay(previous.last),
    label: `${isoDay(current.first)} to ${isoDay(current.last)}`,
    comparisonLabel: `${isoDay(previous.first)} to ${isoDay(previous.last)}`,
  };
}

/** What `period` completes to: the named ranges, then the last months, newest first. */
export function periodChoices(now: Date): string[] {
  const months = Array.from({ length: MONTHS_OFFERED }, (_, back) =>
    new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1)).toISOString().slice(0, 7),
  );
  return [...Object.keys(NAMED_DAYS), "last-month", ...months];
}
