// The JSON text an upstream body was parsed from, kept beside the parsed object: a tool result can
// then carry that text instead of a JSON.stringify of the same object (about 10 µs per 5.5 KB body).
// Only text that is one line is kept, since answers are framed by lines (stdio) and SSE data lines.

const SOURCE_TEXT = new WeakMap<object, string>();
const LINE_BREAK = /[\n\r]/;

/** Remembers `text` as the JSON of `value`, when `value` is an object and `text` has no line break. */
export function rememberJsonText(value: unknown, text: string): void {
  if (value === null || typeof value !== "object") return;
  // One pass over the body for both line breaks; a trailing one (common) is trimmed off first.
  const trimmed = LINE_BREAK.test(text.at(-1) ?? "") ? text.trim() : text;
  if (LINE_BREAK.test(trimmed)) return;
  SOURCE_TEXT.set(value, trimmed);
}

/**
 * JSON text that parses to `value`, when it was parsed from one: not always byte for byte what
 * JSON.stringify would give (spacing, number forms, escapes), but the same value for any reader.
 */
export function knownJsonText(value: object): string | undefined {
  return SOURCE_TEXT.get(value);
}
