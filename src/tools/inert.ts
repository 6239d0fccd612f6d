// Text from the APIs made inert for every Markdown renderer, wherever an assistant puts it: each
// character that could open or close a construct that hides, fetches, runs or links is written as its
// fullwidth twin, which no renderer reads as syntax and which shows the same in prose, code spans and
// fences alike. No parsing: one scan, the same for every renderer and context. Which and why:
// docs/security.md.
import { decodeNamedCharacterReference } from "decode-named-character-reference";
import { hiddenAlone } from "./hidden.js";

/** Each character the encoding replaces, and what it is written as (docs/security.md lists them). */
export const INERT = {
  "<": "\uFF1C",
  "[": "\uFF3B",
  "]": "\uFF3D",
  "|": "\uFF5C",
  "`": "\uFF40",
  "~": "\uFF5E",
  "&": "\uFF06",
  "%": "\uFF05",
  "-": "\uFF0D",
  "\\": "\uFF3C",
} as const;

/**
 * Where a construct can open or close, in any renderer and after any join: each alternative is one
 * rule, and the whole match is rewritten (the last three only when what they decode to is hidden).
 */
const ACTIVE = new RegExp(
  [
    "<(?=[A-Za-z!?/])", // a tag, comment, declaration, processing instruction or autolink
    "(?<=!)\\[", // an image
    "\\](?=[(\\[:])", // a link, image, reference or definition
    // At the end, after a line that opens with `[`: joined by `: `, a definition, which shows nothing.
    "\\]$(?<=(?:^|\\n)[ \\t>*+\\-\\d.)]*\\[[^]*)",
    "\\|", // a table cell
    // Backticks the assistant's own code span could make a fence of (its one backtick next to them,
    // at a line's start): every run of two or more, and one at either end of the string or of a line.
    "`{2,}|^`|`$|(?<=\\n)`|`(?=\\r?\\n)",
    // A tilde fence, open or closed (one left open would swallow the assistant's reply after it).
    "~{3,}",
    // A character reference (and `&shy`, which browsers decode without its `;`).
    "&(?:#[0-9]{1,7};|#[Xx][0-9A-Fa-f]{1,6};|[A-Za-z][A-Za-z0-9]{0,31};|shy)",
    "(?:%[0-9A-Fa-f]{2})+", // percent escapes, which a linkifier decodes in the link's text
    "[Xx][Nn]--", // a punycode label, which a linkifier shows as Unicode look-alikes
  ].join("|"),
  "g",
);

const anyHidden = (text: string) => [...text].some(hiddenAlone);
const bytes = new TextDecoder("utf-8");

/** What a character reference decodes to wherever a renderer decodes one, or false for none. */
function referenced(match: string): string | false {
  if (match.startsWith("&#")) {
    const hex = match[2] === "x" || match[2] === "X";
    const point = Number.parseInt(match.slice(hex ? 3 : 2, -1), hex ? 16 : 10);
    // Renderers turn 0, surrogates and what lies past Unicode into U+FFFD; hidden counts them too.
    return point > 0 && point <= 0x10ffff && (point < 0xd800 || point > 0xdfff)
      ? String.fromCodePoint(point)
      : "\u0000";
  }
  if (match === "&shy") return "\u00AD";
  const name = match.slice(1, -1);
  // Browsers decode a legacy name at the start of a longer one (`&shyx;`): only `shy` is hidden.
  return decodeNamedCharacterReference(name) || (name.startsWith("shy") ? "\u00AD" : false);
}

/** `match` (one alternative of ACTIVE) written inert, or undefined where it decodes to visible text. */
function inert(match: string): string | undefined {
  const first = match[0] as keyof typeof INERT | "X" | "x";
  switch (first) {
    case "&": {
      const decoded = referenced(match);
      return decoded === false || !anyHidden(decoded) ? undefined : INERT["&"] + match.slice(1);
    }
    case "%": {
      const values = match.slice(1).split("%");
      const decoded = bytes.decode(Uint8Array.from(values, (hex) => Number.parseInt(hex, 16)));
      return anyHidden(decoded) ? match.replaceAll("%", INERT["%"]) : undefined;
    }
    case "X":
    case "x":
      return match.slice(0, 2) + INERT["-"].repeat(2);
    default:
      // One character, or a run of backticks or tildes.
      return INERT[first].repeat(match.length);
  }
}

/**
 * `text` (hidden characters already removed) with every character that could open or close a
 * construct written as its INERT twin, and how many places that took. Linear in the text; the result
 * comes back the same from a second pass.
 */
export function inertMarkup(text: string): { text: string; escaped: number } {
  let escaped = 0;
  const count = () => {
    escaped += 1;
  };
  const words = inertWords(text, count);
  const out = words.replace(ACTIVE, (match) => {
    const written = inert(match);
    if (written === undefined) return match;
    escaped += 1;
    return written;
  });
  return { text: escaped === 0 ? text : out, escaped };
}

const URL_START = /:\/\/|www\./i;
const URL_STARTS = /:\/\/|www\./gi;
const PERCENT_RUN = /(?:%[0-9A-Fa-f]{2})+/g;
const REFERENCE = /&(?:#[0-9]{1,7};|#[Xx][0-9A-Fa-f]{1,6};|[A-Za-z][A-Za-z0-9]{0,31};)/g;
/** What a linkifier shows a percent escape as, where it breaks the line or the word: a blank or a control. */
const BLANK = /[\s\p{Cc}]/u;
/** Blanks beyond ASCII's, which some linkifiers (remark's) take into a URL. */
export const WIDE_BLANK = "\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000";
const WIDE_BLANKS = new RegExp(`[${WIDE_BLANK}]`, "g");
const WIDE_BLANK_IN = new RegExp(`[${WIDE_BLANK}]`);

/**
 * Three rules that need the whitespace-delimited word a character stands in, in one pass over the words
 * (only where the text holds what they look for): in a URL (from its `://` or `www.` on) a `|` is
 * written `%7C`, the same target to every linkifier and no table cell; in a word that holds an `@`, a
 * `\` is written as its twin, since a renderer puts it in a link's target as `%5C` (its host is then
 * after the `@`) while a browser reads the text's `\` as `/` (its host is before the `@`); and in a word
 * with a URL start after a percent escape of a blank or a control, that escape's `%` is written as its
 * twin, since a linkifier shows it decoded in the link's text: a second address, not where it goes.
 */
function inertWords(text: string, count: () => void): string {
  const urls = URL_START.test(text);
  const pipes = urls && text.includes("|");
  const slashes = text.includes("\\") && text.includes("@");
  // A pipe rewritten below is a percent escape: the blank rule must see it on the first pass as on a second.
  const percents = urls && (pipes || text.includes("%") || text.includes("&") || WIDE_BLANK_IN.test(text));
  if (!pipes && !slashes && !percents) return text;
  // Words end at ASCII whitespace, where every linkifier ends a URL.
  return text.replace(/[^\t\n\v\f\r ]+/g, (word, offset: number) => {
    let out = word;
    if (slashes && word.includes("\\") && word.includes("@")) {
      out = out.replace(/\\/g, () => {
        count();
        return INERT["\\"];
      });
    }
    // Pipes first: `%20|` at the end becomes `%20%7C`, one run the blank rule then reads whole.
    const start = pipes && out.includes("|") ? out.search(URL_START) : -1;
    if (start >= 0) {
      out =
        out.slice(0, start) +
        out.slice(start).replace(/\|/g, () => {
          count();
          return "%7C";
        });
    }
    return percents ? blanksBeforeUrl(out, offset + word.length === text.length, count) : out;
  });
}

/**
 * `word` with each run of percent escapes that decodes to a blank or control before its last URL start
 * (or at the end of the text, where the assistant's own link target may follow) written inert, and
 * before that URL start each blank beyond ASCII's written as a space, which ends the URL in every
 * linkifier, and each character reference to a blank inert.
 */
function blanksBeforeUrl(word: string, endsText: boolean, count: () => void): string {
  let last = -1;
  for (const match of word.matchAll(URL_STARTS)) last = match.index;
  if (last < 0 && !endsText) return word;
  const spaced =
    last < 0
      ? word
      : word
          .slice(0, last)
          .replace(WIDE_BLANKS, () => {
            count();
            return " ";
          })
          .replace(REFERENCE, (ref) => {
            const decoded = referenced(ref);
            if (decoded === false || !BLANK.test(decoded)) return ref;
            count();
            return INERT["&"] + ref.slice(1);
          }) + word.slice(last);
  if (!spaced.includes("%")) return spaced;
  return spaced.replace(PERCENT_RUN, (run, offset: number) => {
    if (offset + run.length > last && !(endsText && offset + run.length === spaced.length)) return run;
    const decoded = bytes.decode(Uint8Array.from(run.slice(1).split("%"), (hex) => Number.parseInt(hex, 16)));
    if (!BLANK.test(decoded)) return run;
    count();
    return run.replaceAll("%", INERT["%"]);
  });
}

/**
 * In JSON text, what inertMarkup would rewrite: only ever inside strings (JSON's own brackets open
 * nothing). And `@`, so that JSON's own escapes (`\"`) are never in a word with one.
 */
const ACTIVE_IN_JSON = /[<|`~&%@]|(?<=!)\[|\](?=[([:])|(?<=[Xx][Nn])-(?=-)/g;

/**
 * JSON text with every character inertMarkup could rewrite written as a `\u` escape: the same value,
 * which no renderer reads as markup and which a second sanitizing pass leaves as it is (for JSON the
 * assistant is to pass on exactly, such as a call's arguments in a prompt).
 */
export function inertJson(json: string): string {
  return json.replace(
    ACTIVE_IN_JSON,
    (char) => `\\u${(char.codePointAt(0) as number).toString(16).padStart(4, "0")}`,
  );
}
