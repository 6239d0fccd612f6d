// Text the APIs return was written by people and other models: it may hide instructions from the
// person reading along. Every string of an answer loses the characters that render as nothing
// (invisible, format and control characters, ANSI escapes), and Markdown/HTML that would render
// hidden or fetch something is escaped so that it shows as the text it is. Visible text is kept.
// What is stripped and why: docs/security.md.

/**
 * Anything that may need work, in a string or in its JSON text: default-ignorable, format and control
 * characters (tab, LF and CR too: the slow path keeps them), and the openings of Markdown/HTML
 * constructs. No `u` flag: one native scan of plain ranges, for the common answer with nothing to do.
 */
const SUSPECT_CHARS =
  "[\\0-\\x08\\x0B-\\x1F\\x7F-\\x9F\\xAD\\u034F\\u061C\\u115F\\u1160\\u17B4\\u17B5\\u180B-\\u180F\\u200B-\\u200F\\u202A-\\u202E\\u2060-\\u206F\\u3164\\uFE00-\\uFE0F\\uFEFF\\uFFA0\\uFFF0-\\uFFFB]|\\uD80D[\\uDC30-\\uDC3F]|\\uD82F[\\uDCA0-\\uDCA3]|\\uD834[\\uDD73-\\uDD7A]|[\\uDB40-\\uDB43][\\uDC00-\\uDFFF]";
const SUSPECT_MARKUP = "<[!?/A-Za-z]|\\]\\(|\\]\\[|\\]:|```|~~~|&(?:#|[A-Za-z][A-Za-z0-9]{1,31};)";
const SUSPECT = new RegExp(`${SUSPECT_CHARS}|${SUSPECT_MARKUP}`);
/** The same in JSON text, where a hidden character may also be written as an escape. */
const SUSPECT_IN_JSON = new RegExp(`${SUSPECT_CHARS}|${SUSPECT_MARKUP}|\\\\[ubfr]`);
const MARKUP = new RegExp(SUSPECT_MARKUP);

/** Characters that render as nothing: Unicode's default-ignorable list, format and control characters. */
const HIDDEN = /[\p{Default_Ignorable_Code_Point}\p{Cf}\p{Cc}]/gu;
const HIDDEN_CHAR = /^[\p{Default_Ignorable_Code_Point}\p{Cf}\p{Cc}]$/u;
/** Format characters that show a visible sign (Arabic and Syriac number marks): kept. */
const VISIBLE_FORMAT = /^[\u0600-\u0605\u06DD\u070F\u0890\u0891\u08E2\u{110BD}\u{110CD}]$/u;
/** Scripts whose spelling needs ZWJ / ZWNJ between letters (Arabic and Persian, Syriac, Indic, Mongolian). */
const JOINING_SCRIPT =
  /^[\p{Script=Arabic}\p{Script=Syriac}\p{Script=Nko}\p{Script=Mongolian}\p{Script=Devanagari}\p{Script=Bengali}\p{Script=Gurmukhi}\p{Script=Gujarati}\p{Script=Oriya}\p{Script=Tamil}\p{Script=Telugu}\p{Script=Kannada}\p{Script=Malayalam}\p{Script=Sinhala}]$/u;
const PICTOGRAPHIC = /^\p{Extended_Pictographic}$/u;
const EMOJI_BASE = /^\p{Emoji}$/u;
const HAN = /^\p{Script=Han}$/u;
/** The three subdivision flags Unicode recommends (England, Scotland, Wales): the only tag sequences kept. */
const TAG_FLAG =
  /\u{1F3F4}\u{E0067}\u{E0062}(?:\u{E0065}\u{E006E}\u{E0067}|\u{E0073}\u{E0063}\u{E0074}|\u{E0077}\u{E006C}\u{E0073})\u{E007F}/gu;
/** Terminal escapes: CSI, OSC and string commands with their terminator, two-byte escapes, 8-bit CSI. */
const ANSI =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: terminal escapes begin with control characters
  /\x1B\[[0-?]*[ -/]*[@-~]|\x1B\][^\x07\x1B]*(?:\x07|\x1B\\)|\x1B[PX^_][^\x1B]*\x1B\\|\x1B[@-Z\\-_]|\x9B[0-?]*[ -/]*[@-~]/g;

const ZWNJ = 0x200c;
const ZWJ = 0x200d;

/** What sanitizing one string did. */
export interface TextChanges {
  /** Hidden characters (code points) removed. */
  removed: number;
  /** Markdown/HTML constructs made visible (escaped) or fence info strings dropped. */
  escaped: number;
}

/** The code point that ends just before `offset`, if any. */
function codePointBefore(text: string, offset: number): number | undefined {
  if (offset <= 0) return undefined;
  const low = text.charCodeAt(offset - 1);
  if (low >= 0xdc00 && low <= 0xdfff && offset >= 2) {
    const high = text.charCodeAt(offset - 2);
    if (high >= 0xd800 && high <= 0xdbff) return text.codePointAt(offset - 2);
  }
  return low;
}

const is = (pattern: RegExp, point: number | undefined) =>
  point !== undefined && pattern.test(String.fromCodePoint(point));

/**
 * Whether the hidden character `char` at `offset` does a visible job there and stays. `before` is the
 * code point the answer has just before it once the characters before it are removed, so that a
 * second pass keeps exactly what the first kept.
 */
function keepsItsPlace(
  char: string,
  offset: number,
  text: string,
  flags: readonly [number, number][],
  before: number | undefined,
): boolean {
  const point = char.codePointAt(0) as number;
  if (char === "\t" || char === "\n") return true;
  if (char === "\r") return text.charCodeAt(offset + 1) === 0x0a;
  if (VISIBLE_FORMAT.test(char)) return true;
  const after = text.codePointAt(offset + char.length);
  if (point === ZWJ || point === ZWNJ) {
    if (is(JOINING_SCRIPT, before) && is(JOINING_SCRIPT, after)) return true;
    // An emoji ZWJ sequence: 👩‍💻, 👨‍👩‍👧, 🏳️‍🌈 (after a presentation selector or a skin tone).
    const emojiBefore =
      is(PICTOGRAPHIC, before) ||
      before === 0xfe0f ||
      (before !== undefined && before >= 0x1f3fb && before <= 0x1f3ff);
    return point === ZWJ && emojiBefore && is(PICTOGRAPHIC, after);
  }
  // One presentation selector after an emoji (❤️, 1️⃣); one ideographic variation selector after a Han character.
  if (point === 0xfe0e || point === 0xfe0f) return is(EMOJI_BASE, before);
  if (point >= 0xe0100 && point <= 0xe01ef) return is(HAN, before);
  if (point >= 0xe0020 && point <= 0xe007f)
    return flags.some(([start, end]) => offset >= start && offset < end);
  return false;
}

/**
 * `text` with each hidden character that has no visible job where it stands replaced by `shown(char)`,
 * and how many there were. A character so replaced counts as gone for the ones after it: whether a
 * joiner joins is judged by what stays before it.
 */
export function replaceHidden(
  text: string,
  shown: (char: string) => string,
): { text: string; count: number } {
  const flags: [number, number][] = [];
  if (text.includes("\u{1F3F4}")) {
    for (const match of text.matchAll(TAG_FLAG)) flags.push([match.index, match.index + match[0].length]);
  }
  // What the cleaned text has so far ends with: the text before a hidden character, where there is
  // some since the previous one, else the last hidden character kept.
  let previousEnd = 0;
  let lastKept: number | undefined;
  let count = 0;
  const out = text.replace(HIDDEN, (char, offset: number, whole: string) => {
    const before = offset > previousEnd ? codePointBefore(whole, offset) : lastKept;
    previousEnd = offset + char.length;
    if (keepsItsPlace(char, offset, whole, flags, before)) {
      lastKept = char.codePointAt(0);
      return char;
    }
    lastKept = before;
    count += 1;
    return shown(char);
  });
  return { text: out, count };
}

/** `text` without its terminal escapes and hidden characters (those with no visible job), counted. */
function removeHidden(text: string, changes: TextChanges): string {
  const out =
    text.includes("\x1B") || text.includes("\x9B")
      ? text.replace(ANSI, (sequence) => {
          changes.removed += sequence.length;
          return "";
        })
      : text;
  const { text: cleaned, count } = replaceHidden(out, () => "");
  changes.removed += count;
  return cleaned;
}

// ---------------------------------------------------------------- Markdown and HTML

/** Marks a code region while the prose around it is worked on; NUL cannot remain after removeHidden. */
const PLACEHOLDER = /\0(\d+)\0/g;
const FENCE = /^((?: {0,3}>)* {0,3})(`{3,}|~{3,})(.*)$/;
/** An info string that is a language name (`ts`, `c++`, `objective-c`): anything else is hidden text. */
const LANGUAGE = /^[A-Za-z0-9_+#.-]{1,32}$/;
const CODE_SPAN = /(?<!`)(`+)(?!`)[\s\S]*?(?<!`)\1(?!`)/g;

/** Fenced code blocks and code spans replaced by placeholders (their info strings checked); the code kept aside. */
function maskCode(text: string, code: string[], changes: TextChanges): string {
  const lines = text.split("\n");
  let fence: { char: string; length: number } | undefined;
  let block: string[] = [];
  const out: string[] = [];
  const closeBlock = () => {
    code.push(block.join("\n"));
    out.push(`\0${code.length - 1}\0`);
    block = [];
  };
  for (const line of lines) {
    const match = FENCE.exec(line);
    if (fence) {
      block.push(line);
      const [, , marks = "", rest = ""] = match ?? [];
      if (match && marks[0] === fence.char && marks.length >= fence.length && rest.trim() === "") {
        fence = undefined;
        closeBlock();
      }
      continue;
    }
    const [, prefix = "", marks = "", info = ""] = match ?? [];
    if (!match || (marks[0] === "`" && info.includes("`"))) {
      out.push(line);
      continue;
    }
    fence = { char: marks[0] as string, length: marks.length };
    const trimmed = info.replace(/\r$/, "").trim();
    if (trimmed === "" || LANGUAGE.test(trimmed)) block.push(line);
    else {
      changes.escaped += 1;
      block.push(`${prefix}${marks}${info.endsWith("\r") ? "\r" : ""}`);
    }
  }
  if (fence) closeBlock(); // an unclosed fence runs to the end, as CommonMark reads it
  return out.join("\n").replace(CODE_SPAN, (span) => {
    code.push(span);
    return `\0${code.length - 1}\0`;
  });
}

/** Character references that render as a hidden character. */
const ENTITY =
  /&#(?:[xX]([0-9A-Fa-f]{1,6})|(\d{1,7}));|&(?:shy|lrm|rlm|zwj|zwnj|ZeroWidthSpace|NegativeVeryThinSpace|NegativeThinSpace|NegativeMediumSpace|NegativeThickSpace|NoBreak|ApplyFunction|af|InvisibleTimes|it|InvisibleComma|ic);/g;
/** The opening `<` of an HTML comment, declaration, CDATA, processing instruction or tag. */
const HTML_OPENING = /<(?:!--|!\[CDATA\[|![A-Za-z]|\?|\/?[A-Za-z][A-Za-z0-9-]*(?=[\s/>]|$))/g;
/** A link reference definition at the start of a line (inside block quotes too): it renders as nothing. */
const DEFINITION = /^((?: {0,3}>)* {0,3})\[(?=(?:[^\]\\\n]|\\.){1,999}\]:)/gm;
const SAFE_SCHEME = /^(?:https?:\/\/[^/?#\s]|mailto:[^\s])/i;
const ANY_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]{1,31}:/;

function dropHiddenEntities(text: string, changes: TextChanges): string {
  return text.replace(ENTITY, (reference, hex?: string, decimal?: string) => {
    if (hex !== undefined || decimal !== undefined) {
      const point = hex !== undefined ? Number.parseInt(hex, 16) : Number(decimal);
      if (point > 0x10ffff || point === 0x09 || point === 0x0a) return reference;
      const char = String.fromCodePoint(point);
      if (!HIDDEN_CHAR.test(char) || VISIBLE_FORMAT.test(char)) return reference;
    }
    changes.removed += 1;
    return "";
  });
}

function escapeHtml(text: string, changes: TextChanges): string {
  return text.replace(HTML_OPENING, (opening, offset: number, whole: string) => {
    const tagLike = /^<\/?[A-Za-z]/.test(opening);
    const atLineStart = /(?:^|\n)(?: {0,3}>)* {0,3}$/.test(whole.slice(Math.max(0, offset - 40), offset));
    // Inline, a tag is HTML only when it closes; at the start of a line it opens an HTML block.
    if (tagLike && !atLineStart && !whole.includes(">", offset)) return opening;
    changes.escaped += 1;
    return `&lt;${opening.slice(1)}`;
  });
}

/** The end of the bracketed label opening at `start`, or -1: brackets nest, backslash escapes. */
function labelEnd(text: string, start: number): number {
  let depth = 0;
  for (let i = start; i < text.length && i < start + 2000; i++) {
    const char = text[i];
    if (char === "\\") i++;
    else if (char === "[") depth++;
    else if (char === "]" && --depth === 0) return i;
  }
  return -1;
}

/** An inline link's `(destination "title")` opening at `open`: its end and parts, or undefined. */
function inlineTarget(
  text: string,
  open: number,
): { end: number; destination: string; title: boolean } | undefined {
  let i = open + 1;
  while (text[i] === " " || text[i] === "\t" || text[i] === "\n") i++;
  let destination = "";
  if (text[i] === "<") {
    const close = text.indexOf(">", i);
    if (close < 0 || text.slice(i, close).includes("\n")) return undefined;
    destination = text.slice(i + 1, close);
    i = close + 1;
  } else {
    let depth = 0;
    const from = i;
    for (; i < text.length; i++) {
      const char = text[i] as string;
      if (char === "\\") i++;
      else if (char === "(") depth++;
      else if (char === ")" && depth-- === 0) break;
      else if (/\s/.test(char)) break;
    }
    destination = text.slice(from, i);
  }
  const titleStart = i;
  while (i < text.length && text[i] !== ")") i++;
  if (i >= text.length) return undefined;
  return { end: i, destination, title: text.slice(titleStart, i).trim() !== "" };
}

/** Whether a link label shows anything: more than spaces and emphasis marks. */
const showsText = (label: string) => /[^\s*_~]/.test(label);

/** Whether a link destination is one a person can see and judge: http(s) with a host, mailto, or relative. */
function safeDestination(destination: string): boolean {
  if (destination === "") return false;
  return SAFE_SCHEME.test(destination) || !ANY_SCHEME.test(destination);
}

/** Images, and links whose label shows nothing or whose target is hidden or not http(s)/mailto: escaped. */
function escapeLinks(text: string, changes: TextChanges): string {
  const escapes: number[] = [];
  const skip = new Map<number, number>();
  for (let i = text.indexOf("["); i >= 0 && i < text.length; ) {
    const jump = skip.get(i);
    if (jump !== undefined) {
      i = text.indexOf("[", jump);
      continue;
    }
    let backslashes = 0;
    while (text[i - 1 - backslashes] === "\\") backslashes++;
    const end = backslashes % 2 === 0 ? labelEnd(text, i) : -1;
    const target = end >= 0 && text[end + 1] === "(" ? inlineTarget(text, end + 1) : undefined;
    if (target) {
      const image = text[i - 1] === "!";
      if (
        image ||
        target.title ||
        !showsText(text.slice(i + 1, end)) ||
        !safeDestination(target.destination)
      ) {
        escapes.push(i);
      }
      skip.set(end + 1, target.end + 1);
    }
    i = text.indexOf("[", i + 1);
  }
  if (escapes.length === 0) return text;
  changes.escaped += escapes.length;
  let out = "";
  let copied = 0;
  for (const at of escapes) {
    out += `${text.slice(copied, at)}\\`;
    copied = at;
  }
  return out + text.slice(copied);
}

const MAX_LINK_PASSES = 8;

/** The last resort for brackets nested to reveal one construct per pass: every unescaped `[` escaped. */
function escapeAllBrackets(text: string, changes: TextChanges): string {
  return text.replace(/(?<!\\)((?:\\\\)*)\[/g, (_, backslashes: string) => {
    changes.escaped += 1;
    return `${backslashes}\\[`;
  });
}

function neutralizeMarkup(text: string, changes: TextChanges): string {
  const code: string[] = [];
  let prose = maskCode(text, code, changes);
  prose = dropHiddenEntities(prose, changes);
  prose = escapeHtml(prose, changes);
  prose = prose.replace(DEFINITION, (prefix: string) => {
    changes.escaped += 1;
    return `${prefix.slice(0, -1)}\\[`;
  });
  // Escaping one bracket can complete another construct around it: passes repeat until none is left.
  for (let pass = 0, before = -1; changes.escaped !== before; pass++) {
    before = changes.escaped;
    prose = pass < MAX_LINK_PASSES ? escapeLinks(prose, changes) : escapeAllBrackets(prose, changes);
  }
  return code.length === 0
    ? prose
    : prose.replace(PLACEHOLDER, (_, index: string) => code[Number(index)] as string);
}

/** One string sanitized, with what was changed; the same string when nothing was. */
export function sanitizeText(text: string): { text: string } & TextChanges {
  const changes: TextChanges = { removed: 0, escaped: 0 };
  if (!SUSPECT.test(text)) return { text, ...changes };
  let out = removeHidden(text, changes);
  if (MARKUP.test(out)) out = neutralizeMarkup(out, changes);
  return { text: changes.removed + changes.escaped === 0 ? text : out, ...changes };
}

// ---------------------------------------------------------------- answers

/** Fields named in the note at most; the rest are counted. */
const NOTE_FIELDS = 5;
const NOTE_PATH_CHARS = 60;

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

/** `value` with every string sanitized; the same object wherever nothing changed. */
function sanitizeValue(value: unknown, path: string, walk: Walk, depth: number): unknown {
  if (typeof value === "string") {
    if (!SUSPECT.test(value)) return value;
    const result = sanitizeText(value);
    if (result.text === value) return value;
    walk.removed += result.removed;
    walk.escaped += result.escaped;
    walk.fields.push(path || "(answer)");
    return result.text;
  }
  if (depth > 64 || value === null || typeof value !== "object") return value;
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
    const name = SUSPECT.test(key) ? sanitizeKey(key, path, walk) : key;
    const clean = sanitizeValue(item, path ? `${path}.${name}` : name, walk, depth + 1);
    if (clean !== item || name !== key) {
      changed = true;
      entry[0] = name;
      entry[1] = clean;
    }
  }
  return changed ? Object.fromEntries(entries) : value;
}

/** How much sanitizing changed: "3 hidden characters removed, 1 hidden Markdown/HTML construct escaped". */
function amount({ removed, escaped }: TextChanges): string {
  return [
    removed > 0 ? `${removed} hidden character${removed === 1 ? "" : "s"} removed` : "",
    escaped > 0 ? `${escaped} hidden Markdown/HTML construct${escaped === 1 ? "" : "s"} escaped` : "",
  ]
    .filter(Boolean)
    .join(", ");
}

/** The one line an answer carries when sanitizing changed it: how much, and where. */
function noteOf(walk: Walk): string {
  const named = walk.fields
    .slice(0, NOTE_FIELDS)
    .map((field) => (field.length > NOTE_PATH_CHARS ? `${field.slice(0, NOTE_PATH_CHARS)}…` : field));
  const more = walk.fields.length > NOTE_FIELDS ? ` and ${walk.fields.length - NOTE_FIELDS} more fields` : "";
  return `${amount(walk)} in ${named.join(", ")}${more}`;
}

/**
 * An answer (body and its JSON text) with every string sanitized. Unchanged, it is returned as is,
 * byte for byte; changed, the body gets `sanitized`, the line that says what and where (also `note`).
 */
export function sanitizeAnswer(
  body: Record<string, unknown>,
  text: string,
): { body: Record<string, unknown>; text: string; note?: string } {
  if (!SUSPECT_IN_JSON.test(text)) return { body, text };
  const walk: Walk = { removed: 0, escaped: 0, fields: [] };
  const clean = sanitizeValue(body, "", walk, 0);
  if (clean === body || !isRecord(clean)) return { body, text };
  const note = noteOf(walk);
  const noted = { ...clean, sanitized: note };
  return { body: noted, text: JSON.stringify(noted), note };
}

/** A body with every string sanitized, nothing added. */
export function sanitizeBody(body: Record<string, unknown>): Record<string, unknown> {
  const clean = sanitizeValue(body, "", { removed: 0, escaped: 0, fields: [] }, 0);
  return isRecord(clean) ? clean : body;
}

/** A message that quotes upstream text, sanitized, saying so when it was changed. */
export function sanitizeMessage(message: string): string {
  const result = sanitizeText(message);
  return result.text === message ? message : `${result.text} (sanitized: ${amount(result)})`;
}
