// A token count that errs high, for the answer budget: one pass over the text, no vocabulary, cheap
// enough for every call. It follows o200k's split of text into words, numbers and punctuation runs,
// then charges each piece at least what o200k does (held by test/tools/tokens.test.ts against the real
// tokenizer on answers and random JSON). Why not a tokenizer at run time: docs/context-cost.md.

const isLetter = (code: number) => (code >= 97 && code <= 122) || (code >= 65 && code <= 90);
const isLower = (code: number) => code >= 97 && code <= 122;
const isDigit = (code: number) => code >= 48 && code <= 57;
const isAlphanumeric = (code: number) => isLetter(code) || isDigit(code);
const isPunctuation = (code: number) => code > 32 && code < 127 && !isAlphanumeric(code);
const VOWELS = "aeiouyAEIOUY";

/** The punctuation runs of compact JSON, at what o200k charges for them. */
const JSON_RUNS = new Map(
  Object.entries({
    '":"': 1,
    '","': 1,
    '":': 1,
    '",': 1,
    ',"': 1,
    '{"': 1,
    '"}': 1,
    '},{"': 1,
    '"},{"': 1,
    '":{"': 1,
    '":["': 1,
    '["': 1,
    '"]': 1,
    '},"': 1,
    '],"': 1,
    '":[': 1,
  }),
);

/** Lower case or Capitalized, never three consonants in a row: how words look, unlike ids and codes. */
function wordlike(text: string, start: number, end: number): boolean {
  let consonants = 0;
  for (let i = start; i < end; i++) {
    if (i > start && text.charCodeAt(i) < 97) return false;
    consonants = VOWELS.includes(text[i] as string) ? 0 : consonants + 1;
    if (consonants > 2) return false;
  }
  return true;
}

/** Letters and digits: numbers go by three digits, a word is about one, an id one per 1.6 characters. */
function runCost(text: string, start: number, end: number, digits: number): number {
  const length = end - start;
  if (digits === length) return Math.ceil(length / 3);
  if (digits > 0) return Math.ceil(length / 1.35);
  if (!wordlike(text, start, end)) return Math.ceil(length / 1.8);
  return length <= 8 ? 1 : Math.ceil(length / 6);
}

/** A punctuation run: known JSON runs at their price, others at one token per two characters and one. */
function punctuationCost(run: string): number {
  return JSON_RUNS.get(run) ?? Math.ceil(run.length / 2) + (run.length >= 4 ? 1 : 0);
}

/** Beyond ASCII: its UTF-8 bytes, which no byte-level tokenizer exceeds. */
const wideCost = (code: number) => (code < 0x800 ? 2 : code >= 0xd800 && code <= 0xdfff ? 2 : 3);

/** A few tokens over, for the short strings whose pieces o200k splits finer than a word. */
const SLACK = 8;

/** An upper bound on the o200k tokens of `text` (Claude's count is close: see docs/context-cost.md). */
export function estimateTokens(text: string): number {
  let tokens = 0;
  let i = 0;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    const start = i;
    if (code >= 0x80) {
      tokens += wideCost(code);
      i++;
    } else if (isAlphanumeric(code)) {
      let digits = 0;
      while (i < text.length && isAlphanumeric(text.charCodeAt(i))) {
        if (isDigit(text.charCodeAt(i++))) digits++;
      }
      tokens += runCost(text, start, i, digits);
    } else if (isPunctuation(code)) {
      while (i < text.length && isPunctuation(text.charCodeAt(i))) i++;
      // One sign before a lower-case word joins it (`_id`, `/compare`, `-guide`), unless a space already
      // joined the sign; before a capital o200k mostly keeps the sign apart (`#A`, `]Ff`).
      const joinsWord = i - start === 1 && isLower(text.charCodeAt(i)) && text.charCodeAt(start - 1) !== 32;
      if (!joinsWord) tokens += punctuationCost(text.slice(start, i));
    } else {
      // A space before a word or a sign joins it; other spaces and control characters count one.
      i++;
      if (code !== 32 || text.charCodeAt(i) === 32 || i === text.length) tokens++;
    }
  }
  return tokens + SLACK;
}

/**
 * Whether `text` fits `budget` tokens. A byte-level tokenizer (o200k, Claude's) never makes more tokens
 * than the text has UTF-8 bytes, so a text that short (most answers) needs no estimate.
 */
export function fitsTokens(text: string, budget: number): boolean {
  return Buffer.byteLength(text) <= budget || estimateTokens(text) <= budget;
}
