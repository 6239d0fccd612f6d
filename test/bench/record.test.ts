// The figures of record in docs/performance.md are written from bench/record.json (bench/record.ts):
// what the section says of the lines follows the run's own verdicts, and only a full run is a record.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { RECORD_FILE, recordSection } from "../../bench/record.js";
import type { Results } from "../../bench/report.js";

const record: Results = JSON.parse(readFileSync(new URL(`../../${RECORD_FILE}`, import.meta.url), "utf8"));
const lastLine = (text: string) => text.split("\n").at(-1);

describe("the run of record", () => {
  it("is a full run, started and ended, with every judged line's verdict", () => {
    expect(record.quick).toBe(false);
    expect(Date.parse(record.date)).toBeGreaterThan(Date.parse(record.startedAt ?? ""));
    expect(record.targets.filter((row) => row.pass !== undefined)).toHaveLength(12);
  });

  it("says which lines a run missed, with the figure and the line", () => {
    const targets = record.targets.map((row) =>
      row.measure.startsWith("HTTP 2025 sessions tool call throughput") && row.pass !== undefined
        ? { ...row, figure: "2000/s = 0.80× bare SDK v2 (2500/s)", ofLine: 1.125, pass: false }
        : row,
    );
    expect(lastLine(recordSection({ ...record, targets }))).toMatch(
      /^11 of the 12 lines pass; missed: HTTP 2025 sessions tool call throughput, 16 in flight, vs bare SDK v2: 2000\/s = 0\.80× bare SDK v2 \(2500\/s\), line >= 0\.9×\./,
    );
    const passing = record.targets.map((row) =>
      row.pass === undefined ? row : { ...row, pass: true, ofLine: 0.5 },
    );
    expect(lastLine(recordSection({ ...record, targets: passing }))).toBe(
      "Every one of the 12 lines passes.",
    );
  });

  it("is never a --quick run", () => {
    expect(() => recordSection({ ...record, quick: true })).toThrow(/a record is a full run/);
  });
});
