// What the report view draws, as data (no DOM): the answer's rows as a table, each column's kind, and
// the chart those kinds call for. The chart is chosen from the kinds alone (date-like, numeric,
// categorical), never from field names, so rows the spec does not describe chart as well.
import { shownText } from "./shown.js";

export interface Table {
  columns: string[];
  rows: unknown[][];
}

export type ColumnKind = "date" | "number" | "category" | "other";

export type ChartKind = "lines" | "bars" | "grouped-bars" | "stacked-bars" | "none";

/** One chart: x labels, one series per name, values aligned with the labels (null: no row). */
export interface ChartPlan {
  kind: ChartKind;
  /** Why there is no chart, when kind is none. */
  reason?: string;
  x?: string;
  /** The column whose values split the rows into series, if any. */
  split?: string;
  measure?: string;
  /** Numeric columns the measure can be switched to. */
  measures: string[];
  labels: string[];
  series: { name: string; values: (number | null)[] }[];
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/** Objects as a table: each key once, in first-seen order. */
function tableOfObjects(items: unknown[]): Table {
  const columns: string[] = [];
  for (const item of items) {
    if (!isObject(item)) continue;
    for (const key of Object.keys(item)) if (!columns.includes(key)) columns.push(key);
  }
  return { columns, rows: items.map((item) => columns.map((key) => (isObject(item) ? item[key] : null))) };
}

/**
 * The rows of an answer, their text as a reader of the answer sees it (shown.ts). Undefined when the
 * answer holds no rows.
 */
export function tableOf(body: unknown): Table | undefined {
  const table = rowsOf(body);
  if (!table) return undefined;
  const shown = (value: unknown) => (typeof value === "string" ? shownText(value) : value);
  const changes = table.columns.map((name) => CHANGE.test(name));
  return {
    columns: table.columns.map(shownText),
    rows: table.rows.map((row) => row.map((value, at) => (changes[at] ? changeValue(value) : shown(value)))),
  };
}

/** The server's change columns (m_change, m_change_pct): a change too long for a JSON number is its exact decimal text. */
const CHANGE = /_change(?:_pct)?$/;
const DECIMAL = /^-?\d+(?:\.\d+)?(?:e[+-]?\d+)?$/;

/** A change as the chart draws it: the decimal text as the nearest number (beyond the scale: not drawn, see drawable). */
const changeValue = (value: unknown) =>
  typeof value === "string" && DECIMAL.test(value) ? Number(value) : value;

/**
 * The rows of an answer: a listing's `data` (concise `{columns, rows}` or full objects), the groups of
 * tasks_query counts, or a task page's items.
 */
function rowsOf(body: unknown): Table | undefined {
  if (!isObject(body)) return undefined;
  const { data, groups, items } = body;
  if (isObject(data) && Array.isArray(data.columns) && Array.isArray(data.rows)) {
    return {
      columns: data.columns.map(String),
      rows: data.rows.map((row) => (Array.isArray(row) ? row : [])),
    };
  }
  if (Array.isArray(data)) return tableOfObjects(data);
  if (Array.isArray(groups)) {
    const by = typeof body.group_by === "string" ? body.group_by : "group";
    return {
      columns: [by, "count"],
      rows: groups.map((group) =>
        isObject(group) ? [group.key ?? "(none)", group.count ?? null] : [null, null],
      ),
    };
  }
  if (Array.isArray(items)) return tableOfObjects(items);
  return undefined;
}

const DATE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A column's kind from its values (nulls and empty strings aside). */
export function kindOf(values: unknown[]): ColumnKind {
  const present = values.filter((value) => value !== null && value !== undefined && value !== "");
  if (present.length === 0) return "other";
  if (present.every((value) => typeof value === "number" && Number.isFinite(value))) return "number";
  if (present.every((value) => typeof value === "string" && DATE.test(value))) return "date";
  if (present.every((value) => typeof value === "string" || typeof value === "boolean")) return "category";
  return "other";
}

export const column = (table: Table, name: string): unknown[] => {
  const index = table.columns.indexOf(name);
  return table.rows.map((row) => row[index]);
};

export const kindsOf = (table: Table): Map<string, ColumnKind> =>
  new Map(table.columns.map((name) => [name, kindOf(column(table, name))]));

const text = (value: unknown) => (value === null || value === undefined ? "(none)" : String(value));
const distinct = (values: unknown[]) => [...new Set(values.map(text))];
const unique = (values: unknown[]) => distinct(values).length === values.length;

export interface ChartChoice {
  measure?: string;
  stacked?: boolean;
}

/**
 * The chart for a table:
 * - a date column, and no category column with one row per value: lines over time (a line per
 *   value of a category column, if there is one);
 * - a category column with one row per value: bars;
 * - two category columns (rows per pair): grouped bars, or stacked when chosen;
 * - no numeric column, or nothing to label the rows with: no chart (the table still shows).
 */
export function planChart(table: Table, choice: ChartChoice = {}): ChartPlan {
  return drawable(planOf(table, choice));
}

function planOf(table: Table, choice: ChartChoice): ChartPlan {
  const kinds = kindsOf(table);
  const of = (kind: ColumnKind) => table.columns.filter((name) => kinds.get(name) === kind);
  const measures = of("number");
  const none = (reason: string): ChartPlan => ({ kind: "none", reason, measures, labels: [], series: [] });
  if (table.rows.length === 0) return none("The answer has no rows.");
  if (measures.length === 0) return none("No numeric column to chart.");
  const measure = choice.measure && measures.includes(choice.measure) ? choice.measure : measures[0]!;
  // Identifiers label nothing a reader can use.
  const categories = of("category").filter((name) => !column(table, name).every((v) => UUID.test(String(v))));
  const date = of("date")[0];
  const labelling = categories.find((name) => unique(column(table, name)));
  const values = column(table, measure).map((value) => (typeof value === "number" ? value : null));

  // Rows that each name a thing of their own (a unique label) are things, whatever dates they carry.
  if (date !== undefined && labelling === undefined) {
    const split = categories.find((name) => name !== date);
    return pivot(table, "lines", date, split, measure, measures, true);
  }
  if (labelling !== undefined) {
    return {
      kind: "bars",
      x: labelling,
      measure,
      measures,
      labels: column(table, labelling).map(text),
      series: [{ name: measure, values }],
    };
  }
  if (categories.length >= 2) {
    const [x, split] = categories as [string, string];
    return pivot(table, choice.stacked ? "stacked-bars" : "grouped-bars", x, split, measure, measures, false);
  }
  if (categories.length === 1) {
    // Several rows per value and nothing to split them by: their sum per value.
    return pivot(table, "bars", categories[0]!, undefined, measure, measures, false);
  }
  return none("No column to label the rows with.");
}

/** Rows as series: one label per value of `x`, one series per value of `split` (or the measure alone). */
function pivot(
  table: Table,
  kind: ChartKind,
  x: string,
  split: string | undefined,
  measure: string,
  measures: string[],
  sortLabels: boolean,
): ChartPlan {
  const xs = column(table, x).map(text);
  const splits = split ? column(table, split).map(text) : xs.map(() => measure);
  const ms = column(table, measure);
  const labels = distinct(xs);
  if (sortLabels) labels.sort();
  const names = distinct(splits);
  const series = names.map((name) => ({ name, values: labels.map((): number | null => null) }));
  xs.forEach((label, row) => {
    const value = ms[row];
    if (typeof value !== "number") return;
    const values = series[names.indexOf(splits[row]!)]!.values;
    const at = labels.indexOf(label);
    values[at] = (values[at] ?? 0) + value;
  });
  return { kind, x, ...(split && { split }), measure, measures, labels, series };
}

/** How many marks the chart draws: a bar or a point per value present. */
export const markCount = (plan: ChartPlan): number =>
  plan.series.reduce((sum, { values }) => sum + values.filter((value) => value !== null).length, 0);

/**
 * A column's name in words, for headings, the chart's title and the measure list: `mentions_count` is
 * "Mentions", `share_of_voice` "Share of voice". The column's own name stays the value the tool takes.
 */
export function nameOf(column: string): string {
  const words = column
    .replace(/_count$/, "")
    .replace(/[_-]+/g, " ")
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .trim()
    .toLowerCase();
  return words ? words.charAt(0).toUpperCase() + words.slice(1) : column;
}

/** Longest label drawn whole on an axis; a longer one ends in an ellipsis there (hover shows it whole). */
export const AXIS_LABEL_CHARS = 22;

/** A label as an axis shows it: whole, or cut at a word where one is near and ended with "…". */
export function shortLabel(label: string, chars = AXIS_LABEL_CHARS): string {
  const characters = [...label];
  if (characters.length <= chars) return label;
  const cut = characters.slice(0, chars - 1).join("");
  const space = cut.lastIndexOf(" ");
  return `${(space >= chars / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/**
 * Beyond this, a chart's scale (max minus min, and the ticks between) overflows a double: values near
 * ±1.8e308, the largest a JSON number can hold, are explained rather than drawn.
 */
export const DRAWABLE_MAGNITUDE = 1e300;

/** The plan, or no chart with the reason, when its values are too large for a scale to span. */
export function drawable(plan: ChartPlan): ChartPlan {
  if (plan.kind === "none") return plan;
  const values = plan.series.flatMap((series) => series.values).filter((value) => value !== null);
  const tooLarge = values.some((value) => !Number.isFinite(value) || Math.abs(value) > DRAWABLE_MAGNITUDE);
  if (!tooLarge) return plan;
  return {
    ...plan,
    kind: "none",
    reason: `Some values of ${nameOf(plan.measure ?? "the measure")} are too large to draw (beyond ±1e300, near the largest number there is).`,
    labels: [],
    series: [],
  };
}
