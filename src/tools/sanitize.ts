// Text the APIs return was written by people and other models: it may hide instructions from the
// person reading along. Every string of an answer loses the characters that render as nothing
// (hidden.ts), and every character that could open or close Markdown/HTML in any renderer is written
// as its fullwidth twin (inert.ts). Visible text is kept. What is changed and why: docs/security.md.
import { removeHidden } from "./hidden.js";
import { inertMarkup, WIDE_BLANK } from "./inert.js";

export { replaceHidden } from "./hidden.js";
export { inertJson } from "./inert.js";

/**
 * Anything that may need work, in a string or in its JSON text: the hidden characters of hidden.ts
 * (and tab, LF and CR: the slow path keeps them), private-use characters, noncharacters and lone
 * surrogates, and the openings of Markdown/HTML constructs. No `u` flag: one native scan of plain
 * ranges, for the common answer with nothing to do.
 */
const SUSPECT_CHARS = [
  "[\\0-\\x08\\x0B-\\x1F\\x7F-\\x9F\\xAD\\u034F\\u061C\\u115F\\u1160\\u17B4\\u17B5\\u180B-\\u180F\\u200B-\\u200F\\u2028-\\u202E\\u2060-\\u206F\\u2800\\u3164\\uE000-\\uF8FF\\uFDD0-\\uFDEF\\uFE00-\\uFE0F\\uFEFF\\uFFA0\\uFFF0-\\uFFFF]",
  // Egyptian and shorthand format controls, the null notehead and musical format controls, tags and
  // variation selectors (planes 14), private use (planes 15 and 16), the noncharacters ending in FFFE/FFFF.
  "\\uD80D[\\uDC30-\\uDC3F]|\\uD82F[\\uDCA0-\\uDCA3]|\\uD834[\\uDD59\\uDD73-\\uDD7A]|[\\uDB40-\\uDB43\\uDB80-\\uDBFF][\\uDC00-\\uDFFF]|[\\uD800-\\uDBFF][\\uDFFE\\uDFFF]",
  // Lone surrogates.
  "[\\uD800-\\uDBFF](?![\\uDC00-\\uDFFF])|(?<![\\uD800-\\uDBFF])[\\uDC00-\\uDFFF]",
].join("|");
/**
 * Where inert.ts may have work: a tag's opening, an image's, a closing bracket before `(`, `[`, `:` or
 * at the end, a pipe, a fence, a character reference, a percent escape of a control, a space or a
 * non-ASCII byte, a punycode label. In JSON text, a string's end is a `"`.
 */
const markupStart = (slash: string) =>
  `<[!?A-Za-z]|<${slash}|!\\[|\\||\`\`|~~~|&[#A-Za-z]|%(?:[01C-Fc-f][0-9A-Fa-f]|7[Ff]|20)|[Xx][Nn]--|[${WIDE_BLANK}]`;
const MARKUP_START = markupStart("/");
/** A backtick at either end of the string or of a line. */
const SUSPECT_MARKUP = `${MARKUP_START}|^\`|\`$|\\n\`|\`\\r?\\n|\\][(\\[:]|\\]$`;
const SUSPECT = new RegExp(`${SUSPECT_CHARS}|${SUSPECT_MARKUP}`);
/**
 * The same in JSON text, where a character may also be written as an escape: `\u` (any character),
 * `\b`, `\f`, `\r` (controls) are suspect in themselves; `\n` and `\t` matter only next to a backtick;
 * of the escapes that spell a printable character, `\"` ends nothing here, `\\` is the slash rule's,
 * and `\/` (PHP's json_encode writes every `/` so) is spelled out where the patterns hold a `/`.
 */
const SUSPECT_IN_JSON = new RegExp(
  `${SUSPECT_CHARS}|${markupStart("\\\\?/")}|"\`|\`"|\\\\n\`|\`\\\\[rn]|\\][(\\[:"]|\\\\[ubfr]`,
);
const MARKUP = new RegExp(SUSPECT_MARKUP);
/** A backslash in a word with an `@` (inert.ts): two scans, never a lookaround over the word. */
const slashAt = (text: string) => text.includes("\\") && text.includes("@");
const suspect = (text: string) => SUSPECT.test(text) || slashAt(text);

/** What sanitizing one string did. */
export interface TextChanges {
  /** Hidden characters (code points) removed. */
  removed: number;
  /** Places where Markdown/HTML characters were written as their inert twins. */
  escaped: number;
}

/** One string sanitized, with what was changed; the same string when nothing was. */
export function sanitizeText(text: string): { text: string } & TextChanges {
  const changes: TextChanges = { removed: 0, escaped: 0 };
  if (!suspect(text)) return { text, ...changes };
  let out = removeHidden(text, changes);
  if (MARKUP.test(out) || slashAt(out)) {
    const shown = inertMarkup(out);
    out = shown.text;
    changes.escaped += shown.escaped;
  }
  return { text: changes.removed + changes.escaped === 0 ? text : out, ...changes };
}

// ---------------------------------------------------------------- answers

/** Fields named in the note at most; the rest are counted. */
const NOTE_FIELDS = 5;
const NOTE_PATH_CHARS = 60;
/** An answer nested deeper than this is refused rather than passed on partly unchecked. */
export const MAX_ANSWER_DEPTH = 256;

/** An answer too deeply nested to be checked: the call fails with a message saying so. */
export class AnswerTooDeepError extends Error {
  constructor() {
    super(`the answer is nested more than ${MAX_ANSWER_DEPTH} levels deep, too deep to check its text`);
  }
}

interface Walk extends TextChanges {
  fields: string[];
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

function sanitizeKey(key: string, path: string, walk: Walk): string {
  const result = sanitizeText(key);
  if (result.text === key) return key;
  walk.removed += result.removed;
  walk.escaped += result.escaped;
  walk.fields.push(`${path ? `${path}.` : ""}${result.text} (key)`);
  return result.text;
}

/** `value` with every string and key sanitized, at any depth; the same object wherever nothing changed. */
function sanitizeValue(value: unknown, path: string, walk: Walk, depth: number): unknown {
  if (typeof value === "string") {
    if (!suspect(value)) return value;
    const result = sanitizeText(value);
    if (result.text === value) return value;
    walk.removed += result.removed;
    walk.escaped += result.escaped;
    walk.fields.push(path || "(answer)");
    return result.text;
  }
  if (value === null || typeof value !== "object") return value;
  if (depth >= MAX_ANSWER_DEPTH) throw new AnswerTooDeepError();
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item, index) => {
      const clean = sanitizeValue(item, `${path}[${index}]`, walk, depth + 1);
      if (clean !== item) {
        copy ??= [...value];
        copy[index] = clean;
      }
    });
    return copy ?? value;
  }
  const entries = Object.entries(value);
  let changed = false;
  for (const entry of entries) {
    const [key, item] = entry;
    // A key is text from the API too: cleaned like a value, and named as a key in the note.
    const name = suspect(key) ? sanitizeKey(key, path, walk) : key;
    const clean = sanitizeValue(item, path ? `${path}.${name}` : name, walk, depth + 1);
    if (clean !== item || name !== key) {
      changed = true;
      entry[0] = name;
      entry[1] = clean;
    }
  }
  return changed ? Object.fromEntries(entries) : value;
}

/** How much sanitizing changed: "3 hidden characters removed, Markdown/HTML made inert in 1 place". */
function amount({ removed, escaped }: TextChanges): string {
  return [
    removed > 0 ? `${removed} hidden character${removed === 1 ? "" : "s"} removed` : "",
    escaped > 0 ? `Markdown/HTML made inert in ${escaped} place${escaped === 1 ? "" : "s"}` : "",
  ]
    .filter(Boolean)
    .join(", ");
}

/** `text` cut to `max` UTF-16 units with an ellipsis, never inside a surrogate pair. */
function cutShort(text: string, max: number): string {
  if (text.length <= max) return text;
  const high = text.charCodeAt(max - 1);
  return `${text.slice(0, high >= 0xd800 && high <= 0xdbff ? max - 1 : max)}…`;
}

/**
 * The one line an answer carries when sanitizing changed it: how much, and where. The paths hold keys
 * from the API: cut first, then the whole line sanitized, so that no cut or join of keys forms markup.
 */
function noteOf(walk: Walk): string {
  const named = walk.fields.slice(0, NOTE_FIELDS).map((field) => cutShort(field, NOTE_PATH_CHARS));
  const more = walk.fields.length > NOTE_FIELDS ? ` and ${walk.fields.length - NOTE_FIELDS} more fields` : "";
  return sanitizeText(`${amount(walk)} in ${named.join(", ")}${more}`).text;
}

/**
 * An answer (body and its JSON text) with every string sanitized. An answer with nothing suspect in
 * its text is returned as is, byte for byte. Otherwise its text is the JSON of the body as checked,
 * never the API's own bytes (which may hold what the parsed body does not, under a duplicate key);
 * changed, the body gets `sanitized`, the line that says what and where (also `note`). Throws
 * AnswerTooDeepError for an answer nested deeper than MAX_ANSWER_DEPTH.
 */
export function sanitizeAnswer(
  body: Record<string, unknown>,
  text: string,
): { body: Record<string, unknown>; text: string; note?: string } {
  // In JSON text a backslash is written `\\`.
  if (!SUSPECT_IN_JSON.test(text) && !(text.includes("\\\\") && text.includes("@"))) return { body, text };
  const walk: Walk = { removed: 0, escaped: 0, fields: [] };
  const clean = sanitizeValue(body, "", walk, 0);
  if (clean === body || !isRecord(clean)) return { body, text: JSON.stringify(body) };
  const note = noteOf(walk);
  const noted = { ...clean, sanitized: note };
  return { body: noted, text: JSON.stringify(noted), note };
}

/** A body with every string sanitized, nothing added. */
export function sanitizeBody(body: Record<string, unknown>): Record<string, unknown> {
  const clean = sanitizeValue(body, "", { removed: 0, escaped: 0, fields: [] }, 0);
  return isRecord(clean) ? clean : body;
}

/** A message that quotes upstream text, sanitized, ending with a note when it was changed. */
export function sanitizeMessage(message: string): string {
  const result = sanitizeText(message);
  if (result.text === message) return message;
  // Nothing the sanitized text ends with can join the note into markup (inert.ts writes a closing
  // bracket or a fence at the end as inert too).
  return `${result.text} (sanitized: ${amount(result)})`;
}
