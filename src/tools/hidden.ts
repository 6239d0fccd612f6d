// The characters that render as nothing or as a blank, the one list both the sanitizer (sanitize.ts)
// and the write confirmation (confirm.ts) use: removed from answers, written out in a confirmation.
// Which and why: docs/security.md.

/**
 * Characters that render as nothing or as a blank: Unicode's default-ignorable list, format and control
 * characters, private-use and noncharacters, lone surrogates, the line and paragraph separators, and the
 * letters and symbols fonts draw empty (Braille blank, Hangul filler, object replacement, null notehead).
 */
const HIDDEN_CLASS =
  "[\\p{Default_Ignorable_Code_Point}\\p{Cf}\\p{Cc}\\p{Co}\\p{Cs}\\p{Noncharacter_Code_Point}\\u2028\\u2029\\u2800\\u3164\\uFFFC\\u{1D159}]";
const HIDDEN = new RegExp(HIDDEN_CLASS, "gu");
const HIDDEN_CHAR = new RegExp(`^${HIDDEN_CLASS}$`, "u");
/** Format characters that show a visible sign (Arabic and Syriac number marks): kept. */
const VISIBLE_FORMAT = /^[\u0600-\u0605\u06DD\u070F\u0890\u0891\u08E2\u{110BD}\u{110CD}]$/u;
/** Scripts whose spelling needs ZWJ / ZWNJ between letters (Arabic and Persian, Syriac, Indic, Mongolian). */
const JOINING_SCRIPT =
  /^[\p{Script=Arabic}\p{Script=Syriac}\p{Script=Nko}\p{Script=Mongolian}\p{Script=Devanagari}\p{Script=Bengali}\p{Script=Gurmukhi}\p{Script=Gujarati}\p{Script=Oriya}\p{Script=Tamil}\p{Script=Telugu}\p{Script=Kannada}\p{Script=Malayalam}\p{Script=Sinhala}]$/u;
/** The viramas of those scripts: a joiner right after one picks a form (chillu, khanda ta, eyelash ra). */
const VIRAMA = /^[\u094D\u09CD\u0A4D\u0ACD\u0B4D\u0BCD\u0C4D\u0CCD\u0D3B\u0D3C\u0D4D\u0DCA]$/u;
const PICTOGRAPHIC = /^\p{Extended_Pictographic}$/u;
const EMOJI_BASE = /^\p{Emoji}$/u;
/** The three subdivision flags Unicode recommends (England, Scotland, Wales): the only tag sequences kept. */
const TAG_FLAG =
  /\u{1F3F4}\u{E0067}\u{E0062}(?:\u{E0065}\u{E006E}\u{E0067}|\u{E0073}\u{E0063}\u{E0074}|\u{E0077}\u{E006C}\u{E0073})\u{E007F}/gu;
/** Terminal escapes: CSI, OSC and string commands with their terminator, two-byte escapes, 8-bit CSI. */
const ANSI =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: terminal escapes begin with control characters
  /\x1B\[[0-?]*[ -/]*[@-~]|\x1B\][^\x07\x1B]*(?:\x07|\x1B\\)|\x1B[PX^_][^\x1B]*\x1B\\|\x1B[@-Z\\-_]|\x9B[0-?]*[ -/]*[@-~]/g;

const ZWNJ = 0x200c;
const ZWJ = 0x200d;

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
  inFlag: (offset: number) => boolean,
  before: number | undefined,
): boolean {
  const point = char.codePointAt(0) as number;
  if (char === "\t" || char === "\n") return true;
  if (char === "\r") return text.charCodeAt(offset + 1) === 0x0a;
  if (VISIBLE_FORMAT.test(char)) return true;
  const after = text.codePointAt(offset + char.length);
  if (point === ZWJ || point === ZWNJ) {
    // Between two letters that show: a hidden character after it (U+061C, a Mongolian selector) goes,
    // which would leave the joiner before a space or the end, where a second pass drops it.
    const shownAfter = after !== undefined && !hiddenAlone(String.fromCodePoint(after));
    if (is(JOINING_SCRIPT, before) && is(JOINING_SCRIPT, after) && shownAfter) return true;
    // After a virama, even before a space or at the end: one joiner, the one letter form it asks for.
    if (is(VIRAMA, before)) return true;
    // An emoji ZWJ sequence: 👩‍💻, 👨‍👩‍👧, 🏳️‍🌈 (after a presentation selector or a skin tone).
    const emojiBefore =
      is(PICTOGRAPHIC, before) ||
      before === 0xfe0f ||
      (before !== undefined && before >= 0x1f3fb && before <= 0x1f3ff);
    return point === ZWJ && emojiBefore && is(PICTOGRAPHIC, after);
  }
  // One presentation selector after an emoji (❤️, 1️⃣). Ideographic variation selectors go: one after
  // each Han character would carry a byte, and the base character shows without it.
  if (point === 0xfe0e || point === 0xfe0f) return is(EMOJI_BASE, before);
  if (point >= 0xe0020 && point <= 0xe007f) return inFlag(offset);
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
  // Hidden characters come in order of offset: one cursor over the flags, in step with them.
  let flag = 0;
  const inFlag = (offset: number) => {
    while (flag < flags.length && (flags[flag] as [number, number])[1] <= offset) flag += 1;
    return flag < flags.length && (flags[flag] as [number, number])[0] <= offset;
  };
  // What the cleaned text has so far ends with: the text before a hidden character, where there is
  // some since the previous one, else the last hidden character kept.
  let previousEnd = 0;
  let lastKept: number | undefined;
  let count = 0;
  const out = text.replace(HIDDEN, (char, offset: number, whole: string) => {
    const before = offset > previousEnd ? codePointBefore(whole, offset) : lastKept;
    previousEnd = offset + char.length;
    if (keepsItsPlace(char, offset, whole, inFlag, before)) {
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
export function removeHidden(text: string, changes: { removed: number }): string {
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

/** Whether `char` (one code point) is hidden wherever it stands: what a character reference to it would render. */
export function hiddenAlone(char: string): boolean {
  return HIDDEN_CHAR.test(char) && !VISIBLE_FORMAT.test(char) && char !== "\t" && char !== "\n";
}
