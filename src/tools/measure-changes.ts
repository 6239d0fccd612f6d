// Period-over-period changes of an analytics answer, computed here rather than left to the assistant:
// for each measure `m` that rows carry with `previous_m`, the columns `m_change` (m − previous_m) and
// `m_change_pct` ((m − previous_m) / |previous_m| × 100, rounded half away from zero to 2 decimals).
// The arithmetic is exact in decimal: each value is taken as the answer shows it (the shortest decimal
// that reads back as that JSON number, so 0.3 − 0.1 is 0.2), held as a scaled BigInt, and the result is
// a JSON number when that number reads back as the exact result, else the exact decimal as a string.

type Row = Record<string, unknown>;

/** A decimal value: digits × 10^exp. */
interface Decimal {
  digits: bigint;
  exp: number;
}

const NUMBER_TEXT = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/;

/** The decimal a finite JSON number is shown as (its shortest round-trip text). */
function decimalOf(value: number): Decimal {
  const match = NUMBER_TEXT.exec(String(value)) as RegExpExecArray;
  const [, sign, whole, fraction = "", exponent = "0"] = match;
  return { digits: BigInt(`${sign}${whole}${fraction}`), exp: Number(exponent) - fraction.length };
}

const TEN = 10n;
const scaled = (value: Decimal, exp: number) => value.digits * TEN ** BigInt(value.exp - exp);
const abs = (value: bigint) => (value < 0n ? -value : value);

/** Beyond this many zeros, a decimal is written with an exponent ("2e308"), still exact. */
const PLAIN_ZEROS = 21;

/** The exact decimal text of a value: no trailing zeros after the point; an exponent only when very large or small. */
export function decimalText(value: Decimal): string {
  let { digits, exp } = value;
  if (digits === 0n) return "0";
  while (digits % TEN === 0n) {
    digits /= TEN;
    exp += 1;
  }
  if (exp > PLAIN_ZEROS || -exp > PLAIN_ZEROS + abs(digits).toString().length) return `${digits}e${exp}`;
  if (exp >= 0) return `${digits}${"0".repeat(exp)}`;
  const sign = digits < 0n ? "-" : "";
  const text = abs(digits)
    .toString()
    .padStart(-exp + 1, "0");
  const point = text.length + exp;
  const fraction = text.slice(point).replace(/0+$/, "");
  return `${sign}${text.slice(0, point)}${fraction ? `.${fraction}` : ""}`;
}

/** The value as a JSON number when one reads back as exactly it; otherwise its exact decimal text. */
function emitted(value: Decimal): number | string {
  const text = decimalText(value);
  const number = Number(text);
  if (!Number.isFinite(number)) return text;
  const back = decimalOf(number);
  const exp = Math.min(back.exp, value.exp);
  return scaled(back, exp) === scaled(value, exp) ? number : text;
}

const PCT_DECIMALS = 2;

/** The change from `previous` to `current`, and its relative change in percent; null where it has none. */
export function changeOf(current: unknown, previous: unknown): { change: unknown; pct: unknown } {
  const finite = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);
  if (!finite(current) || !finite(previous)) return { change: null, pct: null };
  const [now, before] = [decimalOf(current), decimalOf(previous)];
  const exp = Math.min(now.exp, before.exp);
  const difference = scaled(now, exp) - scaled(before, exp);
  const change = emitted({ digits: difference, exp });
  const base = abs(scaled(before, exp));
  if (base === 0n) return { change, pct: null };
  // round(difference × 100 × 10^PCT_DECIMALS / base), half away from zero.
  const numerator = abs(difference) * 100n * TEN ** BigInt(PCT_DECIMALS);
  const rounded = (2n * numerator + base) / (2n * base);
  const pct = emitted({ digits: difference < 0n ? -rounded : rounded, exp: -PCT_DECIMALS });
  return { change, pct };
}

const PREVIOUS = "previous_";

/** The measures some row carries a `previous_` value for, in first-seen order. */
export function comparedMeasures(rows: readonly unknown[]): string[] {
  const measures = new Set<string>();
  for (const row of rows) {
    if (row === null || typeof row !== "object" || Array.isArray(row)) continue;
    for (const key of Object.keys(row)) {
      if (key.startsWith(PREVIOUS) && key.length > PREVIOUS.length) measures.add(key.slice(PREVIOUS.length));
    }
  }
  return [...measures];
}

/**
 * The row with `m_change` and `m_change_pct` after each `previous_m` (or at the end when the row has
 * none: its earlier value is missing, so both are null).
 */
export function withChanges(row: Row, measures: readonly string[]): Row {
  const out: Row = {};
  const placed = new Set<string>();
  const add = (measure: string) => {
    const { change, pct } = changeOf(row[measure], row[`${PREVIOUS}${measure}`]);
    out[`${measure}_change`] = change;
    out[`${measure}_change_pct`] = pct;
    placed.add(measure);
  };
  for (const [key, value] of Object.entries(row)) {
    out[key] = value;
    const measure = key.startsWith(PREVIOUS) ? key.slice(PREVIOUS.length) : undefined;
    if (measure && measures.includes(measure)) add(measure);
  }
  for (const measure of measures) if (!placed.has(measure)) add(measure);
  return out;
}
