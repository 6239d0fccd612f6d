// What the report view draws, without a browser: rows to a table, each column's kind, the chart the
// kinds call for (whatever the columns are named), and the controls a tool's input schema allows.
import { describe, expect, it } from "vitest";
import { controlsFor, namedValues } from "../../view/controls.js";
import { kindOf, markCount, nameOf, planChart, shortLabel, tableOf } from "../../view/model.js";

const ID = "3cfa68c3-d729-4c88-88e7-9f9fd0512f0c";

describe("tableOf", () => {
  it("reads a change column's exact decimal text as the number it draws; other text stays text", () => {
    const body = {
      data: {
        columns: ["name", "visits_change", "visits_change_pct", "note"],
        rows: [["a", "999999999999999999997", "2e308", "12"]],
      },
    };
    expect(tableOf(body)?.rows).toEqual([["a", 1e21, Number.POSITIVE_INFINITY, "12"]]);
    // Beyond the largest double, a change is no measure: the chart draws the one that is.
    const table = tableOf(body) as NonNullable<ReturnType<typeof tableOf>>;
    expect(planChart(table, { measure: "visits_change_pct" })).toMatchObject({
      kind: "bars",
      measure: "visits_change",
      measures: ["visits_change"],
    });
  });

  it("reads a concise table, full rows, tasks_query groups and a task page", () => {
    expect(tableOf({ data: { columns: ["a", "b"], rows: [[1, 2]] } })).toEqual({
      columns: ["a", "b"],
      rows: [[1, 2]],
    });
    expect(tableOf({ data: [{ a: 1 }, { b: "x" }] })).toEqual({
      columns: ["a", "b"],
      rows: [
        [1, undefined],
        [undefined, "x"],
      ],
    });
    expect(
      tableOf({
        total: 3,
        group_by: "status",
        groups: [
          { key: "todo", count: 2 },
          { key: null, count: 1 },
        ],
      }),
    ).toEqual({
      columns: ["status", "count"],
      rows: [
        ["todo", 2],
        ["(none)", 1],
      ],
    });
    expect(tableOf({ items: [{ id: ID }] })).toEqual({ columns: ["id"], rows: [[ID]] });
    expect(tableOf({ projects: [] })).toBeUndefined();
    expect(tableOf("text")).toBeUndefined();
  });
});

describe("kindOf", () => {
  it.each([
    [[1, 2.5, null], "number"],
    [["2025-10-13", "2026-01-15T23:59:59.999Z", null], "date"],
    [["ChatGPT", "", true], "category"],
    [[["a"], { b: 1 }], "other"],
    [[null, undefined, ""], "other"],
    [[1, "2"], "other"],
  ] as const)("%j is %s", (values, kind) => {
    expect(kindOf([...values])).toBe(kind);
  });
});

describe("planChart: the chart comes from the column kinds, not their names", () => {
  it("a date column with a value per date: one line", () => {
    const plan = planChart({
      columns: ["when", "score"],
      rows: [
        ["2025-10-20", 3],
        ["2025-10-13", 5],
      ],
    });
    expect(plan).toMatchObject({
      kind: "lines",
      x: "when",
      measure: "score",
      labels: ["2025-10-13", "2025-10-20"],
    });
    expect(plan.series).toEqual([{ name: "score", values: [5, 3] }]);
  });

  it("a date and a category: a line per category value, gaps as null", () => {
    const plan = planChart({
      columns: ["bucket", "engine", "hits"],
      rows: [
        ["2025-10-13", "A", 1],
        ["2025-10-13", "B", 2],
        ["2025-10-20", "A", 3],
      ],
    });
    expect(plan).toMatchObject({ kind: "lines", x: "bucket", split: "engine" });
    expect(plan.series).toEqual([
      { name: "A", values: [1, 3] },
      { name: "B", values: [2, null] },
    ]);
    expect(markCount(plan)).toBe(3);
  });

  it("a category with one row per value: bars, uuid columns never the label, the chosen measure", () => {
    const table = {
      columns: ["id", "label", "created", "first", "second", "list"],
      rows: [
        [ID, "x", "2025-01-01", 1, 10, ["a"]],
        ["6b9e0a0e-1111-4c88-88e7-9f9fd0512f0c", "y", "2025-01-01", 2, null, []],
      ],
    };
    expect(planChart(table)).toMatchObject({
      kind: "bars",
      x: "label",
      measure: "first",
      measures: ["first", "second"],
      labels: ["x", "y"],
    });
    const second = planChart(table, { measure: "second" });
    expect(second.series).toEqual([{ name: "second", values: [10, null] }]);
    expect(markCount(second)).toBe(1);
  });

  it("two categories: grouped bars, stacked when chosen", () => {
    const table = {
      columns: ["p", "q", "n"],
      rows: [
        ["a", "u", 1],
        ["a", "v", 2],
        ["b", "u", 3],
      ],
    };
    expect(planChart(table)).toMatchObject({ kind: "grouped-bars", x: "p", split: "q", labels: ["a", "b"] });
    expect(planChart(table, { stacked: true }).kind).toBe("stacked-bars");
    expect(planChart(table).series).toEqual([
      { name: "u", values: [1, 3] },
      { name: "v", values: [2, null] },
    ]);
  });

  it("nothing to chart: no rows, no numbers, or nothing to label rows with", () => {
    expect(planChart({ columns: ["n"], rows: [] })).toMatchObject({
      kind: "none",
      reason: "The answer has no rows.",
    });
    expect(planChart({ columns: ["name"], rows: [["a"]] })).toMatchObject({
      kind: "none",
      reason: "No numeric column to chart.",
    });
    expect(planChart({ columns: ["id", "n"], rows: [[ID, 1]] })).toMatchObject({
      kind: "none",
      reason: "No column to label the rows with.",
    });
  });
});

describe("controlsFor: only what the tool's schema takes", () => {
  const sentiments = {
    properties: {
      start_date: {},
      end_date: {},
      pagination: {},
      dimensions: { type: "array", items: { type: "string", description: "seen: topic, model" } },
      date_aggregation_interval: { type: "string", description: "Time bucket; seen: week." },
    },
  };

  it("reads the values a schema names: an enum, or the words after seen:", () => {
    expect(namedValues({ enum: ["status", "priority"] })).toEqual(["status", "priority"]);
    expect(namedValues({ type: "array", items: { description: "seen: topic, model" } })).toEqual([
      "topic",
      "model",
    ]);
    expect(namedValues({ description: "Field to sort on; known: a metric name." })).toEqual([]);
  });

  it("a report: range, interval, dimensions (with date, as it has an interval), pages", () => {
    expect(controlsFor(sentiments, { dimensions: ["website"] })).toEqual({
      range: true,
      paging: true,
      interval: ["day", "week", "month"],
      dimension: { argument: "dimensions", values: ["topic", "model", "website", "date"], multiple: true },
    });
  });

  it("tasks_query: group_by only for counts; no range", () => {
    const schema = { properties: { view: {}, group_by: { enum: ["status", "priority"] } } };
    expect(controlsFor(schema, { view: "counts" })).toEqual({
      range: false,
      paging: false,
      dimension: { argument: "group_by", values: ["status", "priority"], multiple: false },
    });
    expect(controlsFor(schema, { view: "list" }).dimension).toBeUndefined();
  });

  it("a listing: its metrics enum", () => {
    const schema = {
      properties: { metrics: { type: "array", items: { enum: ["prompts_count", "prompts"] } } },
    };
    expect(controlsFor(schema, {}).metrics).toEqual(["prompts_count", "prompts"]);
  });
});

describe("words for a reader", () => {
  it("names columns in words: a count by what it counts, underscores as spaces, a capital first", () => {
    expect(
      ["mentions_count", "share_of_voice", "visibility_score", "date", "count", "positiveShare"].map(nameOf),
    ).toEqual(["Mentions", "Share of voice", "Visibility score", "Date", "Count", "Positive share"]);
  });

  it("shortens a long label at a word, with an ellipsis; a short one stays whole", () => {
    expect(shortLabel("agent runs")).toBe("agent runs");
    expect(shortLabel("how do engineering teams compare agent workspace tools")).toBe("how do engineering…");
    expect(shortLabel("averyveryverylongwordwithoutanyspaces")).toBe("averyveryverylongword…");
  });

  it("explains values at the edges of the double range instead of charting them", () => {
    const table = {
      columns: ["name", "score"],
      rows: [
        ["a", Number.MAX_VALUE],
        ["b", -Number.MAX_VALUE],
      ],
    };
    const plan = planChart(table);
    expect([plan.kind, plan.reason, markCount(plan)]).toEqual([
      "none",
      "Some values of Score are too large to draw (beyond ±1e300, near the largest number there is).",
      0,
    ]);
    // Two rows of one category whose sum overflows to Infinity.
    const summed = planChart({
      columns: ["name", "score"],
      rows: [
        ["a", 1e308],
        ["a", 1e308],
        ["b", 1],
      ],
    });
    expect(summed.kind).toBe("none");
    expect(
      planChart({
        columns: ["name", "score"],
        rows: [
          ["a", 1e299],
          ["b", -1e299],
        ],
      }).kind,
    ).toBe("bars");
  });
});
