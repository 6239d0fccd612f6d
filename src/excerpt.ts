// Client input quoted back in a message or a log line is cut to a short excerpt: a hostile name or
// header must not come back (or reach stderr) whole, and a long paste may hold a secret.

/** How much of a client's text any message or log line quotes. */
export const MAX_QUOTED_CHARS = 100;

/** `text` as is when short, else its first MAX_QUOTED_CHARS characters, an ellipsis and the full length. */
export function excerpt(text: string, max = MAX_QUOTED_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`;
}
