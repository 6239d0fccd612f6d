// Answers sized for a model's context: the concise form of each tool's answer, and the token budget no
// answer exceeds. Over budget, whole rows go from the end and the answer says how to get them.
// Figures and the reasons behind each choice: docs/context-cost.md.
import { z } from "zod";
import type { UpstreamSettings } from "../config/types.js";
import { emptyPage, statedRange } from "./answer-range.js";
import { comparedMeasures, withChanges } from "./measure-changes.js";
import { estimateTokens, fitsTokens } from "./tokens.js";

export type ResponseFormat = "concise" | "full";

/** Token budget of a concise answer unless MCP_MAX_RESULT_TOKENS says otherwise. */
export const DEFAULT_MAX_RESULT_TOKENS = 8000;
/** A full answer may always be this large (more when MCP_MAX_RESULT_TOKENS is larger). */
export const FULL_RESULT_TOKENS = 20_000;
/** Free text of a concise answer is cut to this many characters. */
export const TEXT_LIMIT = 300;

/** The argument every tool takes (published once, by register.ts); never sent upstream. */
export const responseFormatArgument = z
  .enum(["concise", "full"])
  .optional()
  .describe("concise (see above; the default) or full: the API's answer as is.");

/** The output field `truncated`, as every outputSchema with rows describes it. */
export const TRUNCATED =
  "Present when rows were left out over the token budget: how many, and next_call, the arguments that get them.";

/** How rows left out over the budget are fetched: which arguments page the list. */
export type Paging =
  /** A cursor page whose size is at `size` (a dotted path of the arguments). */
  | { cursor: string; size: string; max: number }
  /** Offset and limit under `pagination`, as every analytics listing pages. */
  | "offset"
  /** No paging: nothing but a larger budget or narrower arguments brings more rows. */
  | "none";

/** An endpoint's concise form, as data: which list holds the rows and what of each row is kept. */
export interface ConciseForm {
  /** The key of the body's row list (`items`, `data`, `projects`). */
  rows: string;
  /** Row fields kept, in this order; all of them when absent. */
  keep?: readonly string[];
  /** Rows as `{columns, rows}`: each key once, not once per row. */
  table?: boolean;
  /** Keys of free text (at any depth) cut to TEXT_LIMIT characters. */
  cut?: readonly string[];
  /** Lists beside `rows` that get the same row shaping (the parents of a task page). */
  alsoRows?: readonly string[];
  paging: Paging;
  /**
   * An analytics listing: the answer states its range (answer-range.ts), an empty page says what
   * produced it, and with a comparison range each row gains its changes (measure-changes.ts).
   */
  dated?: boolean;
}

/** An endpoint's concise form, or a function of the call's arguments that picks one. */
export type ConciseSpec = ConciseForm | ((args: Record<string, unknown>) => ConciseForm | undefined);

export interface AnswerSettings {
  format: ResponseFormat;
  budget: number;
}

/** The form and budget of one call: its own choice, else the server's. */
export function answerSettings(
  settings: UpstreamSettings,
  chosen: ResponseFormat | undefined,
): AnswerSettings {
  const format = chosen ?? settings.responseFormat ?? "concise";
  const concise = settings.maxResultTokens ?? DEFAULT_MAX_RESULT_TOKENS;
  return { format, budget: format === "concise" ? concise : Math.max(FULL_RESULT_TOKENS, concise) };
}

/** An answer: the body for structuredContent and its JSON text; or why none fits. */
export type Answer = { body: Record<string, unknown>; text: string } | { error: string };

type Row = Record<string, unknown>;
/** A JSON object: not null, not an array. */
export const isObject = (value: unknown): value is Row =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/** `text` cut to TEXT_LIMIT with a marker that says how much is missing; never inside a surrogate pair. */
function cutText(text: string): string {
  if (text.length <= TEXT_LIMIT) return text;
  const high = text.charCodeAt(TEXT_LIMIT - 1);
  const end = high >= 0xd800 && high <= 0xdbff ? TEXT_LIMIT - 1 : TEXT_LIMIT;
  return `${text.slice(0, end)}… [${text.length - end} more characters: response_format full]`;
}

/** Free text under the keys of `cut`, at any depth, cut to TEXT_LIMIT. */
function cutFreeText(value: unknown, cut: ReadonlySet<string>, depth = 0): unknown {
  if (depth > 16) return value;
  if (Array.isArray(value)) return value.map((item) => cutFreeText(item, cut, depth + 1));
  if (!isObject(value)) return value;
  const out: Row = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] = typeof item === "string" && cut.has(key) ? cutText(item) : cutFreeText(item, cut, depth + 1);
  }
  return out;
}

/** One row of a concise list: the kept fields that have a value, free text cut. */
function conciseRow(row: unknown, form: ConciseForm, cut: ReadonlySet<string>): unknown {
  if (!isObject(row)) return row;
  const out: Row = {};
  // A kept measure keeps its comparison value beside it.
  const keys = form.keep ? form.keep.flatMap((key) => [key, `previous_${key}`]) : Object.keys(row);
  for (const key of keys) {
    if (row[key] !== null && row[key] !== undefined) out[key] = row[key];
  }
  return cut.size > 0 ? cutFreeText(out, cut) : out;
}

/** Whether the call asked for a comparison range (under either of the spec's names). */
const compares = (args: Row) =>
  Boolean(
    (args.comparison_start_date ?? args.previous_from) && (args.comparison_end_date ?? args.previous_to),
  );

/** Rows as a table: the columns once (first-seen order), then one array of values per row. */
function asTable(rows: unknown[]): { columns: string[]; rows: unknown[][] } {
  const columns: string[] = [];
  const seen = new Set<string>();
  for (const row of rows) {
    if (!isObject(row)) continue;
    for (const key of Object.keys(row)) {
      if (seen.has(key)) continue;
      seen.add(key);
      columns.push(key);
    }
  }
  return {
    columns,
    rows: rows.map((row) => columns.map((key) => (isObject(row) ? (row[key] ?? null) : row))),
  };
}

/** The concise body: rows shaped per the endpoint's form; a body without its row list only has text cut. */
function conciseBody(body: Row, form: ConciseForm, args: Row): Row {
  const cut = new Set(form.cut ?? []);
  const rowLists = new Set([form.rows, ...(form.alsoRows ?? [])]);
  const shaped: Row = {};
  if (form.dated) {
    const range = statedRange(body, args);
    shaped.range = range;
    const rows = body[form.rows];
    if (Array.isArray(rows) && rows.length === 0) shaped.empty = emptyPage(body, args, range);
  }
  for (const [key, value] of Object.entries(body)) {
    if (rowLists.has(key) && Array.isArray(value)) {
      let kept = value.map((row) => conciseRow(row, form, cut));
      const measures = form.dated && compares(args) ? comparedMeasures(kept) : [];
      if (measures.length > 0) kept = kept.map((row) => (isObject(row) ? withChanges(row, measures) : row));
      shaped[key] = form.table ? asTable(kept) : kept;
    } else if (cut.size === 0) {
      shaped[key] = value; // nothing to cut: the value is shared, not copied
    } else {
      shaped[key] = typeof value === "string" && cut.has(key) ? cutText(value) : cutFreeText(value, cut, 1);
    }
  }
  return shaped;
}

/** The row list of a (shaped) body, whether plain or a table. */
function rowsOf(body: Row, key: string): unknown[] | undefined {
  const list = body[key];
  if (Array.isArray(list)) return list;
  if (isObject(list) && Array.isArray(list.rows) && Array.isArray(list.columns)) return list.rows;
  return undefined;
}

function withRows(body: Row, key: string, rows: unknown[]): Row {
  const list = body[key];
  return { ...body, [key]: Array.isArray(list) ? rows : { ...(list as Row), rows } };
}

/** A copy of `args` with `value` at the dotted `path`. */
function setPath(args: Row, path: string, value: unknown): Row {
  const [head, ...rest] = path.split(".") as [string, ...string[]];
  if (rest.length === 0) return { ...args, [head]: value };
  const inner = isObject(args[head]) ? (args[head] as Row) : {};
  return { ...args, [head]: setPath(inner, rest.join("."), value) };
}

const getPath = (args: Row, path: string): unknown =>
  path.split(".").reduce<unknown>((value, key) => (isObject(value) ? value[key] : undefined), args);

/** What the answer says when rows were left out: how many, and the exact call that gets them. */
function truncationNote(paging: Paging, args: Row, shown: number, leftOut: number, budget: number): Row {
  const note: Row = { shown, left_out: leftOut, budget_tokens: budget };
  if (paging === "offset") {
    const offset = Number(getPath(args, "pagination.offset") ?? 0);
    note.next_call = setPath(args, "pagination", { offset: offset + shown, limit: Math.min(leftOut, 100) });
    note.note = `The ${leftOut} rows after these did not fit the budget: call again with next_call for them (info.total_rows counts them all).`;
  } else if (paging === "none") {
    note.note = `The last ${leftOut} rows did not fit the budget and this list has no paging: narrow the arguments, or ask the server's operator for a larger MCP_MAX_RESULT_TOKENS.`;
  } else {
    note.next_call = setPath(args, paging.size, Math.max(1, Math.min(shown, paging.max)));
    note.note = `The last ${leftOut} rows of this page did not fit the budget, so next_cursor is withheld (it would skip them). Call again with next_call: a page of ${Math.max(1, shown)} that ends where this one is cut; its next_cursor goes on from there.`;
  }
  return note;
}

/** Whole rows from the end until the text fits `budget`; undefined when not even the frame fits. */
function fitRows(body: Row, form: ConciseForm, args: Row, settings: AnswerSettings): Answer | undefined {
  const rows = rowsOf(body, form.rows);
  if (!rows) return undefined;
  const cursorPaged = typeof form.paging === "object";
  const frame = (kept: unknown[]): Row => {
    const trimmed = withRows(body, form.rows, kept);
    if (cursorPaged) delete trimmed.next_cursor;
    trimmed.truncated = truncationNote(
      form.paging,
      args,
      kept.length,
      rows.length - kept.length,
      settings.budget,
    );
    return trimmed;
  };
  const room = settings.budget - estimateTokens(JSON.stringify(frame([])));
  let count = 0;
  for (let used = 0; count < rows.length; count++) {
    used += estimateTokens(JSON.stringify(rows[count])) + 1;
    if (used > room) break;
  }
  // The estimate of the whole is checked too: the sum of the parts is close to it, not bound by it.
  for (; count >= 0; count--) {
    const trimmed = frame(rows.slice(0, count));
    const text = JSON.stringify(trimmed);
    if (fitsTokens(text, settings.budget)) return { body: trimmed, text };
  }
  return undefined;
}

function fits(body: Row, text: string, budget: number): Answer | undefined {
  return fitsTokens(text, budget) ? { body, text } : undefined;
}

/**
 * The answer of one call in the chosen form, within its budget: the upstream body unchanged (its own
 * JSON text) when full and it fits; otherwise shaped, rows dropped from the end with a note.
 */
export function shapeAnswer(
  definition: { name: string; concise?: ConciseSpec },
  body: Row,
  /** The upstream's own JSON text of `body`, when it kept one. */
  text: string | undefined,
  args: Row,
  settings: AnswerSettings,
): Answer {
  const form = typeof definition.concise === "function" ? definition.concise(args) : definition.concise;
  if (settings.format === "full") {
    const whole = fits(body, text ?? JSON.stringify(body), settings.budget);
    const answer = whole ?? (form ? fitRows(body, form, args, settings) : undefined);
    if (answer) return answer;
  } else {
    const shaped = form ? conciseBody(body, form, args) : body;
    const shapedText = shaped === body ? (text ?? JSON.stringify(body)) : JSON.stringify(shaped);
    const answer =
      fits(shaped, shapedText, settings.budget) ?? (form ? fitRows(shaped, form, args, settings) : undefined);
    if (answer) return answer;
  }
  return {
    error: `${definition.name}: the answer is larger than the ${settings.budget}-token budget even without its rows, so nothing is shown. ${settings.format === "full" ? "Try response_format concise, or n" : "N"}arrow the arguments; the server's operator can raise MCP_MAX_RESULT_TOKENS.`,
  };
}
