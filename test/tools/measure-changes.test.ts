// Changes computed by the server: an upstream whose rows carry previous_ values (missing, null, zero,
// negative, huge, and sums that floating point gets wrong), the concise answer's change columns exact,
// the full answer the upstream's own bytes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { DEFAULT_MAX_RESULT_TOKENS } from "../../src/tools/answers.js";
import { changeOf } from "../../src/tools/measure-changes.js";
import { estimateTokens } from "../../src/tools/tokens.js";
import {
  type InMemoryHarness,
  type RecordedHarness,
  sandboxSettings,
  startInMemory,
  startOnRecorder,
  textOf,
} from "../helpers.js";

const PROJECT = "3f1c2a9e-4b7d-4e21-9a0c-5d6e7f8a9b0c";

// Written as an API might: its own spacing, trailing zeros, a 17-digit integer, 1e308; on one line, as
// the server passes an answer's own text on only then (src/clients/http.ts).
const UPSTREAM = `{"data": [ {"name": "a", "visibility_score": 0.3, "previous_visibility_score": 0.10, "mentions_count": 10, "previous_mentions_count": 0}, {"name": "b", "visibility_score": 5, "mentions_count": 3}, {"name": "c", "visibility_score": -2.5, "previous_visibility_score": -10, "mentions_count": 7, "previous_mentions_count": null}, {"name": "d", "visibility_score": 1e308, "previous_visibility_score": -1e308, "mentions_count": 9007199254740993, "previous_mentions_count": 1}, {"name": "e", "visibility_score": 0.1, "previous_visibility_score": 0.3, "mentions_count": 1e21, "previous_mentions_count": 3}, {"name": "f", "visibility_score": 0.30000000000000004, "previous_visibility_score": 0.3, "mentions_count": 0.7, "previous_mentions_count": 0.1} ], "info": {"total_rows": 6}}`;

const COMPARED = {
  project_id: PROJECT,
  metrics: ["visibility_score", "mentions_count"],
  start_date: "2026-11-01T00:00:00Z",
  end_date: "2026-11-07",
  comparison_start_date: "2026-10-25T00:00:00Z",
  comparison_end_date: "2026-10-31",
};

describe("change columns of a concise analytics answer", () => {
  let mcp: RecordedHarness;
  beforeAll(async () => {
    mcp = await startOnRecorder({ analyticsApiKey: "k-test", responseFormat: "concise" }, () => ({
      body: UPSTREAM,
    }));
  });
  afterAll(() => mcp.close());

  it("add each measure's change and relative change after its previous_ value, exactly", async () => {
    const result = await mcp.call("geo_websites", COMPARED);
    const { data } = result.structuredContent as { data: { columns: string[]; rows: unknown[][] } };
    expect(data.columns).toEqual([
      "name",
      "visibility_score",
      "previous_visibility_score",
      "visibility_score_change",
      "visibility_score_change_pct",
      "mentions_count",
      "previous_mentions_count",
      "mentions_count_change",
      "mentions_count_change_pct",
    ]);
    expect(data.rows).toEqual([
      ["a", 0.3, 0.1, 0.2, 200, 10, 0, 10, null],
      ["b", 5, null, null, null, 3, null, null, null],
      ["c", -2.5, -10, 7.5, 75, 7, null, null, null],
      ["d", 1e308, -1e308, "2e308", 200, 9007199254740992, 1, 9007199254740991, 900719925474099100],
      ["e", 0.1, 0.3, -0.2, -66.67, 1e21, 3, "999999999999999999997", "33333333333333333333233.33"],
      ["f", 0.30000000000000004, 0.3, 4e-17, 0, 0.7, 0.1, 0.6, 600],
    ]);
  });

  it("states the range it was asked for when the API does not echo one", async () => {
    const result = await mcp.call("geo_websites", COMPARED);
    expect((result.structuredContent as { range: unknown }).range).toEqual({
      start_date: "2026-11-01T00:00:00Z",
      end_date: "2026-11-07 (to the end of that day)",
      comparison_start_date: "2026-10-25T00:00:00Z",
      comparison_end_date: "2026-10-31 (to the end of that day)",
      source: "the request, and the API's documented defaults for what it leaves out",
    });
  });

  it("leaves the full form the upstream's answer, byte for byte", async () => {
    const result = await mcp.call("geo_websites", { ...COMPARED, response_format: "full" });
    expect(textOf(result)).toBe(UPSTREAM);
  });

  it("adds no change columns to a call without a comparison range", async () => {
    const { comparison_start_date: _s, comparison_end_date: _e, ...plain } = COMPARED;
    const result = await mcp.call("geo_websites", plain);
    const { data } = result.structuredContent as { data: { columns: string[] } };
    expect(data.columns.filter((column) => column.includes("change"))).toEqual([]);
  });
});

describe("changeOf", () => {
  it("computes on the decimals the answer shows, never on binary floating point", () => {
    expect(changeOf(0.3, 0.1)).toEqual({ change: 0.2, pct: 200 });
    expect(changeOf(1.1, 2.2)).toEqual({ change: -1.1, pct: -50 });
    expect(changeOf(0.7, 0.6)).toEqual({ change: 0.1, pct: 16.67 });
  });

  it("is null where a value is missing, not a number, or the earlier one is zero (change kept)", () => {
    expect(changeOf(1, undefined)).toEqual({ change: null, pct: null });
    expect(changeOf(undefined, 1)).toEqual({ change: null, pct: null });
    expect(changeOf("5", 1)).toEqual({ change: null, pct: null });
    expect(changeOf(4, 0)).toEqual({ change: 4, pct: null });
  });

  it("rounds the relative change half away from zero to two decimals, against the earlier value's size", () => {
    expect(changeOf(1.00005, 1)).toEqual({ change: 0.00005, pct: 0.01 });
    expect(changeOf(0.99995, 1)).toEqual({ change: -0.00005, pct: -0.01 });
    expect(changeOf(-1, -2)).toEqual({ change: 1, pct: 50 });
  });

  it("matches integer arithmetic on every pair of safe integers tried", () => {
    const values = [
      0,
      1,
      -1,
      7,
      -13,
      99_999,
      2 ** 31,
      -(2 ** 40),
      Number.MAX_SAFE_INTEGER,
      Number.MIN_SAFE_INTEGER,
    ];
    for (const a of values) {
      for (const b of values) {
        const exact = BigInt(a) - BigInt(b);
        const { change } = changeOf(a, b);
        expect(typeof change === "number" ? BigInt(change) : BigInt(change as string)).toBe(exact);
      }
    }
  });
});

describe("on the sandbox, concise", () => {
  let sandbox: Sandbox;
  let mcp: InMemoryHarness;
  beforeAll(async () => {
    sandbox = await startSandbox();
    mcp = await startInMemory({ ...sandboxSettings(sandbox), responseFormat: "concise" });
  });
  afterAll(async () => {
    await mcp.close();
    await sandbox.close();
  });

  it("an answer with change columns stays within its token budget, and next_call keeps the comparison", async () => {
    const args = {
      dimensions: ["topic", "model", "date"],
      measures: ["total_keyword_occurrences", "unique_positive_keywords"],
      start_date: "2025-11-15T00:00:00Z",
      end_date: "2026-01-15",
      comparison_start_date: "2025-10-01T00:00:00Z",
      comparison_end_date: "2025-11-14",
    };
    const result = await mcp.call("geo_reports_sentiments", args);
    const body = result.structuredContent as {
      data: { columns: string[] };
      truncated: { next_call: Record<string, unknown> };
    };
    expect(estimateTokens(textOf(result))).toBeLessThanOrEqual(DEFAULT_MAX_RESULT_TOKENS);
    expect(body.data.columns).toEqual(
      expect.arrayContaining(["total_keyword_occurrences_change", "unique_positive_keywords_change_pct"]),
    );
    expect(body.truncated.next_call).toMatchObject({
      comparison_start_date: args.comparison_start_date,
      comparison_end_date: args.comparison_end_date,
    });
  });

  it("an empty page says which filters and range produced it, and whether rows exist before it", async () => {
    const filters = { name: { items: [{ operator: "is", value: "No such model" }] } };
    const none = (await mcp.call("geo_models", { metrics: ["visibility_score"], filters }))
      .structuredContent as {
      range: { start_date: string; end_date: string };
      empty: unknown;
    };
    expect(none.empty).toEqual({
      // As the API applied them (info.query.filters): its default condition written out.
      filters: { name: { condition: "AND", items: filters.name.items } },
      range: `${none.range.start_date} to ${none.range.end_date}`,
      note: `Nothing matches these filters over ${none.range.start_date} to ${none.range.end_date}: widen the range or loosen the filters to see whether data exists.`,
    });
    const past = (await mcp.call("geo_models", { pagination: { limit: 10, offset: 50 } }))
      .structuredContent as {
      empty: { note: string };
    };
    expect(past.empty.note).toBe(
      "This page is empty but 5 rows match: offset 50 is past them; lower pagination.offset.",
    );
  });
});
