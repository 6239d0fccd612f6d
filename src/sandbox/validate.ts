// Minimal FastAPI/pydantic-style validation: checks push issues with a precise
// `loc` instead of throwing, so one 422 can report every fault of a request,
// the way the real service does.

export type Loc = Array<string | number>;

export interface Issue {
  type: string;
  loc: Loc;
  msg: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {
    super(`HTTP ${status}`);
  }
}

export function fail(status: number, detail: unknown): never {
  throw new HttpError(status, { detail });
}

export function notFound(what: string): never {
  fail(404, `${what} not found`);
}

export function reject(issues: Issue[]): never {
  throw new HttpError(422, { detail: issues });
}

export const INVALID: unique symbol = Symbol("invalid");
export type Invalid = typeof INVALID;
export type Check<T> = (value: unknown, loc: Loc, issues: Issue[]) => T | Invalid;

export function issue(
  type: string,
  loc: Loc,
  msg: string,
  input: unknown,
  ctx?: Record<string, unknown>,
): Issue {
  return ctx ? { type, loc, msg, input, ctx } : { type, loc, msg, input };
}

/** pydantic's wording for errors raised by custom validators. */
export function valueError(loc: Loc, message: string, input: unknown): Issue {
  return issue("value_error", loc, `Value error, ${message}`, input, { error: message });
}

export function missing(loc: Loc, input: unknown): Issue {
  return issue("missing", loc, "Field required", input);
}

function bad(issues: Issue[], found: Issue): Invalid {
  issues.push(found);
  return INVALID;
}

export function str(limits: { min?: number; max?: number } = {}): Check<string> {
  return (v, loc, issues) => {
    if (typeof v !== "string")
      return bad(issues, issue("string_type", loc, "Input should be a valid string", v));
    if (limits.min !== undefined && v.length < limits.min) {
      const unit = limits.min === 1 ? "character" : "characters";
      return bad(
        issues,
        issue("string_too_short", loc, `String should have at least ${limits.min} ${unit}`, v, {
          min_length: limits.min,
        }),
      );
    }
    if (limits.max !== undefined && v.length > limits.max) {
      return bad(
        issues,
        issue("string_too_long", loc, `String should have at most ${limits.max} characters`, v, {
          max_length: limits.max,
        }),
      );
    }
    return v;
  };
}

/** "'a', 'b' or 'c'", as pydantic lists expected literals. */
export function expectedList(values: readonly string[]): string {
  const quoted = values.map((v) => `'${v}'`);
  if (quoted.length <= 1) return quoted.join("");
  return `${quoted.slice(0, -1).join(", ")} or ${quoted[quoted.length - 1]}`;
}

export function oneOf<const T extends string>(values: readonly T[]): Check<T> {
  const expected = expectedList(values);
  return (v, loc, issues) => {
    if (typeof v === "string" && (values as readonly string[]).includes(v)) return v as T;
    return bad(issues, issue("literal_error", loc, `Input should be ${expected}`, v, { expected }));
  };
}

export function int(limits: { ge?: number; le?: number } = {}): Check<number> {
  return (v, loc, issues) => {
    if (typeof v !== "number" || !Number.isFinite(v)) {
      return bad(issues, issue("int_type", loc, "Input should be a valid integer", v));
    }
    if (!Number.isInteger(v)) {
      return bad(
        issues,
        issue(
          "int_from_float",
          loc,
          "Input should be a valid integer, got a number with a fractional part",
          v,
        ),
      );
    }
    if (limits.ge !== undefined && v < limits.ge) {
      const msg = `Input should be greater than or equal to ${limits.ge}`;
      return bad(issues, issue("greater_than_equal", loc, msg, v, { ge: limits.ge }));
    }
    if (limits.le !== undefined && v > limits.le) {
      const msg = `Input should be less than or equal to ${limits.le}`;
      return bad(issues, issue("less_than_equal", loc, msg, v, { le: limits.le }));
    }
    return v;
  };
}

export const num: Check<number> = (v, loc, issues) =>
  typeof v === "number" && Number.isFinite(v)
    ? v
    : bad(issues, issue("float_type", loc, "Input should be a valid number", v));

export const bool: Check<boolean> = (v, loc, issues) =>
  typeof v === "boolean" ? v : bad(issues, issue("bool_type", loc, "Input should be a valid boolean", v));

export const anyValue: Check<unknown> = (v) => v;

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Why a string is not a uuid, worded like the Rust uuid crate pydantic uses. */
function uuidProblem(text: string): string {
  const badChar = [...text].findIndex((c) => !/[0-9a-fA-F-]/.test(c));
  if (badChar >= 0) {
    return `invalid character: expected an optional prefix of \`urn:uuid:\` followed by [0-9a-fA-F-], found \`${text[badChar]}\` at ${badChar + 1}`;
  }
  if (!text.includes("-"))
    return `invalid length: expected length 32 for simple format, found ${text.length}`;
  return "invalid group count or group length";
}

export const uuid: Check<string> = (v, loc, issues) => {
  if (typeof v !== "string") {
    return bad(issues, issue("uuid_type", loc, "UUID input should be a string, bytes or UUID object", v));
  }
  if (UUID_RE.test(v)) return v.toLowerCase();
  const problem = uuidProblem(v);
  return bad(
    issues,
    issue("uuid_parsing", loc, `Input should be a valid UUID, ${problem}`, v, { error: problem }),
  );
};

function validDay(year: number, month: number, day: number): boolean {
  const d = new Date(Date.UTC(year, month - 1, day));
  return d.getUTCFullYear() === year && d.getUTCMonth() === month - 1 && d.getUTCDate() === day;
}

/** Strict calendar date, YYYY-MM-DD. */
export const date: Check<string> = (v, loc, issues) => {
  const m = typeof v === "string" ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(v) : null;
  if (m && validDay(Number(m[1]), Number(m[2]), Number(m[3]))) return v as string;
  return bad(issues, issue("date_parsing", loc, "Input should be a valid date in the format YYYY-MM-DD", v));
};

export interface Instant {
  ms: number;
  dateOnly: boolean;
}

// ISO 8601 in its extended and basic formats, with reduced precision (hours only, or hours and
// minutes) and offsets as Z, ±hh, ±hhmm or ±hh:mm.
const DATETIME_RE =
  /^(\d{4})-?(\d{2})-?(\d{2})(?:[T ](\d{2})(?::?(\d{2})(?::?(\d{2})(?:[.,](\d{1,9}))?)?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

/** ISO 8601 date or date-time; naive times are taken as UTC. */
export const datetime: Check<Instant> = (v, loc, issues) => {
  const m = typeof v === "string" ? DATETIME_RE.exec(v) : null;
  const invalid = (): Invalid =>
    bad(issues, issue("datetime_from_date_parsing", loc, "Input should be a valid datetime or date", v));
  if (!m) return invalid();
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (!validDay(year, month, day)) return invalid();
  if (m[4] === undefined) return { ms: Date.UTC(year, month - 1, day), dateOnly: true };
  const [hour, minute, second] = [Number(m[4]), Number(m[5] ?? 0), Number(m[6] ?? 0)];
  if (hour > 23 || minute > 59 || second > 59) return invalid();
  const millis = Math.floor(Number(`0.${m[7] ?? "0"}`) * 1000);
  let offset = 0;
  const zone = m[8];
  if (zone && zone.toUpperCase() !== "Z") {
    const digits = zone.replace(":", "");
    const minutes = Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5) || 0);
    offset = (zone.startsWith("-") ? -1 : 1) * minutes;
  }
  const ms = Date.UTC(year, month - 1, day, hour, minute, second, millis) - offset * 60_000;
  return { ms, dateOnly: false };
};

export function nullable<T>(check: Check<T>): Check<T | null> {
  return (v, loc, issues) => (v === null ? null : check(v, loc, issues));
}

export function arr<T>(item: Check<T>): Check<T[]> {
  return (v, loc, issues) => {
    if (!Array.isArray(v)) return bad(issues, issue("list_type", loc, "Input should be a valid list", v));
    const out: T[] = [];
    let ok = true;
    v.forEach((element, index) => {
      const parsed = item(element, [...loc, index], issues);
      if (parsed === INVALID) ok = false;
      else out.push(parsed);
    });
    return ok ? out : INVALID;
  };
}

/** A single value or a list of them; always yields a list. */
export function oneOrMany<T>(item: Check<T>): Check<T[]> {
  const list = arr(item);
  return (v, loc, issues) => {
    if (Array.isArray(v)) return list(v, loc, issues);
    const parsed = item(v, loc, issues);
    return parsed === INVALID ? INVALID : [parsed];
  };
}

export interface Field<T, R extends boolean = boolean> {
  readonly check: Check<T>;
  readonly required: R;
}

export function req<T>(check: Check<T>): Field<T, true> {
  return { check, required: true };
}

/** Optional field; an explicit null counts as "not given". */
export function opt<T>(check: Check<T>): Field<T, false> {
  return { check, required: false };
}

type Shape = Record<string, Field<unknown>>;
type ValueOf<F> = F extends Field<infer T> ? T : never;
type Simplify<T> = { [K in keyof T]: T[K] } & {};
export type Parsed<S extends Shape> = Simplify<
  { [K in keyof S as S[K] extends Field<unknown, true> ? K : never]: ValueOf<S[K]> } & {
    [K in keyof S as S[K] extends Field<unknown, true> ? never : K]?: ValueOf<S[K]>;
  }
>;
export type Valid<C> = C extends Check<infer T> ? T : never;

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** An object with a fixed set of fields; unknown fields are rejected. */
export function obj<S extends Shape>(shape: S): Check<Parsed<S>> {
  return (v, loc, issues) => {
    if (!isPlainObject(v)) {
      const msg = "Input should be a valid dictionary or object to extract fields from";
      return bad(issues, issue("model_attributes_type", loc, msg, v));
    }
    let ok = true;
    const out: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(shape)) {
      const raw = v[key];
      if (raw === undefined || (raw === null && !field.required)) {
        if (field.required) {
          issues.push(missing([...loc, key], v));
          ok = false;
        }
        continue;
      }
      const parsed = field.check(raw, [...loc, key], issues);
      if (parsed === INVALID) ok = false;
      else out[key] = parsed;
    }
    for (const key of Object.keys(v)) {
      if (!(key in shape)) {
        issues.push(issue("extra_forbidden", [...loc, key], "Extra inputs are not permitted", v[key]));
        ok = false;
      }
    }
    return ok ? (out as Parsed<S>) : INVALID;
  };
}
