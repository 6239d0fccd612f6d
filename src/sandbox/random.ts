// Deterministic building blocks for the sandbox seed: a tiny PRNG, uuid and
// time helpers. Nothing here reads the real clock, so every start is identical.

/** Fixed "now" of the seeded world; all seeded timestamps are derived from it. */
export const EPOCH_MS = Date.UTC(2026, 0, 15, 9, 0, 0);
/** The seeded world's today (UTC), as a date: its data runs up to here. */
export const SANDBOX_TODAY = new Date(EPOCH_MS).toISOString().slice(0, 10);
export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** mulberry32: small, fast and good enough for fake data. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Two lowercase hex digits for each byte value. */
const HEX_BYTES = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));

export class Rng {
  private readonly next: () => number;

  constructor(seed: number) {
    this.next = mulberry32(seed);
  }

  float(): number {
    return this.next();
  }

  /** Integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new Error("pick from an empty list");
    return item;
  }

  /** Pick by weight; entries are [value, weight]. */
  weighted<T>(entries: ReadonlyArray<readonly [T, number]>): T {
    let total = 0;
    for (const entry of entries) total += entry[1];
    let roll = this.next() * total;
    for (const [value, weight] of entries) {
      roll -= weight;
      if (roll < 0) return value;
    }
    const last = entries[entries.length - 1];
    if (!last) throw new Error("weighted pick from an empty list");
    return last[0];
  }

  /**
   * Up to `count` distinct items, in a random order: each draw takes one of the items not yet drawn, in
   * their list order. Drawn positions are mapped past the ones already taken (kept ascending), so the
   * list is not copied.
   */
  sample<T>(items: readonly T[], count: number): T[] {
    const taken: number[] = [];
    const out: T[] = [];
    while (out.length < count && taken.length < items.length) {
      let index = Math.floor(this.next() * (items.length - taken.length));
      let at = 0;
      for (; at < taken.length && taken[at]! <= index; at++) index++;
      taken.splice(at, 0, index);
      out.push(items[index] as T);
    }
    return out;
  }

  hex(length: number): string {
    let out = "";
    while (out.length < length) out += Math.floor(this.next() * 16).toString(16);
    return out;
  }

  /** RFC 4122 version-4 shaped uuid made from PRNG bytes. */
  uuid(): string {
    let out = "";
    for (let i = 0; i < 16; i++) {
      let byte = this.int(0, 255);
      if (i === 6) byte = (byte & 0x0f) | 0x40;
      if (i === 8) byte = (byte & 0x3f) | 0x80;
      if (i === 4 || i === 6 || i === 8 || i === 10) out += "-";
      out += HEX_BYTES[byte];
    }
    return out;
  }
}

/** Two digits for 0..99, three for 0..999: the fields of a printed timestamp. */
const PAD2 = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, "0"));
const PAD3 = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, "0"));
/** 10000-01-01T00:00:00Z: from here on (and before 1970) Date prints the whole timestamp. */
const YEAR_10000 = 253_402_300_800_000;

/**
 * YYYY-MM-DD of a day counted from 1970-01-01, as Date prints it, remembered: seeding prints thousands
 * of timestamps on a few hundred days. The memory is emptied when it holds a few years.
 */
const dayTexts = new Map<number, string>();
function dayText(days: number): string {
  let text = dayTexts.get(days);
  if (text === undefined) {
    if (dayTexts.size >= 2048) dayTexts.clear();
    text = new Date(days * DAY).toISOString().slice(0, 10);
    dayTexts.set(days, text);
  }
  return text;
}

/**
 * ISO timestamp; whole seconds are printed without the ".000" noise. The same text as
 * `toISOString().replace(".000Z", "Z")`: the day's from Date, the time of day from arithmetic.
 */
export function iso(ms: number): string {
  if (!(ms >= 0 && ms < YEAR_10000)) return new Date(ms).toISOString().replace(".000Z", "Z");
  const whole = Math.floor(ms); // Date drops a fraction of a millisecond
  const days = Math.floor(whole / DAY);
  let rest = whole - days * DAY;
  const hours = Math.floor(rest / HOUR);
  rest -= hours * HOUR;
  const minutes = Math.floor(rest / MINUTE);
  rest -= minutes * MINUTE;
  const secs = Math.floor(rest / 1000);
  const millis = rest - secs * 1000;
  const time = `${PAD2[hours]}:${PAD2[minutes]}:${PAD2[secs]}`;
  return `${dayText(days)}T${time}${millis === 0 ? "Z" : `.${PAD3[millis]}Z`}`;
}

/** YYYY-MM-DD of a timestamp (UTC); the same text as `toISOString().slice(0, 10)`. */
export function isoDate(ms: number): string {
  if (!(ms >= 0 && ms < YEAR_10000)) return new Date(ms).toISOString().slice(0, 10);
  return dayText(Math.floor(ms / DAY));
}

/** Sorted random whole-second instants in [from, to]. */
export function instants(rng: Rng, count: number, from: number, to: number): number[] {
  return Array.from({ length: count }, () => seconds(from + rng.float() * Math.max(0, to - from))).sort(
    (a, b) => a - b,
  );
}

/** Rounds down to whole seconds so seeded timestamps print cleanly. */
export function seconds(ms: number): number {
  return Math.floor(ms / 1000) * 1000;
}

/** FNV-1a, used to bind cursors to the query that produced them. */
export function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}

/** JSON with object keys sorted, so equal queries hash equally. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
