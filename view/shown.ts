// Text in answers is sanitized for readers that render Markdown: a character that would open a construct
// is written as its fullwidth twin (`!［x］(…)`, `＜b>`), which a Markdown view shows as it is, and so does
// the report view, which draws text as text (textContent, SVG text). Text may still hold what a Markdown
// reader decodes: backslash escapes of ASCII punctuation and character references, decoded here once.

import { decodeNamedCharacterReference } from "decode-named-character-reference";

const ESCAPE_OR_REFERENCE =
  /\\([!-/:-@[-`{-~])|&(?:#(\d{1,7})|#[xX]([0-9A-Fa-f]{1,6})|([A-Za-z][A-Za-z0-9]{1,31}));/g;
/** What a reference must not decode to: characters a reader cannot see (the sanitizer removed them). */
const UNSEEN = /^[\p{Cc}\p{Cf}\p{Cs}\p{Cn}\p{Co}\p{Default_Ignorable_Code_Point}]$/u;

function fromCodePoint(code: number): string | undefined {
  if (code === 0 || code > 0x10ffff) return undefined;
  const char = String.fromCodePoint(code);
  // Tab and line breaks are whitespace a reader sees as such, not hidden characters.
  return char !== "\t" && char !== "\n" && char !== "\r" && UNSEEN.test(char) ? undefined : char;
}

/** `text` as a Markdown reader sees it (for the escapes above); other text is returned as is. */
export function shownText(text: string): string {
  if (!text.includes("\\") && !text.includes("&")) return text;
  return text.replace(ESCAPE_OR_REFERENCE, (whole, punctuation, decimal, hex, name) => {
    if (punctuation !== undefined) return punctuation;
    if (name !== undefined) {
      const named = decodeNamedCharacterReference(name);
      return named === false || [...named].some((char) => UNSEEN.test(char)) ? whole : named;
    }
    return fromCodePoint(decimal !== undefined ? Number(decimal) : Number.parseInt(hex, 16)) ?? whole;
  });
}
