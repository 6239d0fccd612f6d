// The sandbox's timestamp printers (each day's text remembered, the time of day from arithmetic): the
// same text as Date's own, over the seeded years and beyond.
import { describe, expect, it } from "vitest";
import { DAY, iso, isoDate, Rng } from "../../src/sandbox/random.js";

const dateIso = (ms: number) => new Date(ms).toISOString().replace(".000Z", "Z");
const dateDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

describe("iso and isoDate", () => {
  it("print days as Date does: each of 2020 to 2030, every 997th to 9999, and each year's Feb 28 to Mar 1", () => {
    const days: number[] = [];
    for (let day = 18_262; day < 21_916; day++) days.push(day);
    for (let day = 0; day < 2_932_897; day += 997) days.push(day);
    for (let year = 1970; year <= 9999; year++) {
      const feb28 = Date.UTC(year, 1, 28) / DAY;
      days.push(feb28, feb28 + 1, feb28 + 2);
    }
    const misses: string[] = [];
    for (const day of days) {
      for (const ms of [day * DAY, (day + 1) * DAY - 1]) {
        if (iso(ms) !== dateIso(ms) || isoDate(ms) !== dateDay(ms)) misses.push(`${ms}: ${iso(ms)}`);
      }
    }
    expect(misses).toEqual([]);
  });

  it("print random instants up to year 9999 as Date does, fractions of a millisecond dropped", () => {
    const rng = new Rng(7);
    const misses: string[] = [];
    for (let i = 0; i < 5_000; i++) {
      const ms = rng.float() * 253_402_300_800_000;
      for (const at of [ms, Math.floor(ms), Math.floor(ms / 1000) * 1000]) {
        if (iso(at) !== dateIso(at) || isoDate(at) !== dateDay(at)) misses.push(`${at}: ${iso(at)}`);
      }
    }
    expect(misses).toEqual([]);
  });

  it("print whole seconds without milliseconds, and the rest with them", () => {
    expect(iso(Date.UTC(2026, 0, 15, 9))).toBe("2026-01-15T09:00:00Z");
    expect(iso(Date.UTC(2024, 1, 29, 23, 59, 59, 7))).toBe("2024-02-29T23:59:59.007Z");
    expect(isoDate(Date.UTC(2000, 11, 31, 23, 59, 59, 999))).toBe("2000-12-31");
  });

  it("leave instants before 1970 and from year 10000 on to Date, errors included", () => {
    for (const ms of [-1, -DAY * 800_000, 253_402_300_800_000, 8.64e15, -8.64e15]) {
      expect(iso(ms)).toBe(dateIso(ms));
      expect(isoDate(ms)).toBe(dateDay(ms));
    }
    for (const ms of [Number.NaN, Number.POSITIVE_INFINITY, 8.64e15 + 1]) {
      expect(() => iso(ms)).toThrow(RangeError);
      expect(() => isoDate(ms)).toThrow(RangeError);
    }
  });
});
