// Text in answers is sanitized for readers that render Markdown: a construct that would hide or fetch
// something is escaped (`!\[x](…)`, `&lt;b>`), and a Markdown view shows it as typed. The report view
// draws text as text (textContent, SVG text), so it undoes those escapes itself and shows what a
// Markdown reader sees: backslash escapes of ASCII punctuation and character references, decoded once.

const ESCAPE_OR_REFERENCE =
  /\\([!-/:-@[-`{-~])|&(?:#(\d{1,7})|#[xX]([0-9A-Fa-f]{1,6})|(lt|gt|amp|quot|apos));/g;
const NAMED: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };
/** What a reference must not decode to: characters a reader cannot see (the sanitizer removed them). */
const UNSEEN = /^[\p{Cc}\p{Cf}\p{Cs}\p{Cn}\p{Co}\p{Default_Ignorable_Code_Point}]$/u;

function fromCodePoint(code: number): string | undefined {
  if (code === 0 || code > 0x10ffff) return undefined;
  const char = String.fromCodePoint(code);
  return UNSEEN.test(char) ? undefined : char;
}

/** `text` as a Markdown reader sees it (for the escapes above); other text is returned as is. */
export function shownText(text: string): string {
  if (!text.includes("\\") && !text.includes("&")) return text;
  return text.replace(ESCAPE_OR_REFERENCE, (whole, punctuation, decimal, hex, name) => {
    if (punctuation !== undefined) return punctuation;
    if (name !== undefined) return NAMED[name] ?? whole;
    return fromCodePoint(decimal !== undefined ? Number(decimal) : Number.parseInt(hex, 16)) ?? whole;
  });
}
