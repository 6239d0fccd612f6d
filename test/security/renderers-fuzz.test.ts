// A grammar of the constructs that hide, fetch, run or link, in every renderer: strings built from it,
// sanitized, show nothing hidden alone, in each of the assistant's constructs, or joined in pairs.
// Seeded and bounded in `npm test`; `npm run test:security` runs it long (FUZZ_RUNS, FUZZ_SEED).
// What it finds becomes a case of renderers.test.ts.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sanitizeText } from "../../src/tools/sanitize.js";
import { hiddenInContexts, hiddenInJoins } from "../markdown-judge.js";

const RUNS = Number(process.env.FUZZ_RUNS ?? 30);
const SEED = Number(process.env.FUZZ_SEED ?? 37);
/** About 25 ms a run on one core, with room for a loaded machine. */
const TIMEOUT = 20_000 + RUNS * 100;

const piece = fc.constantFrom(
  ...[
    "<",
    ">",
    "<!--",
    "-->",
    "<div>",
    "</div>",
    "<img src=x onerror=y>",
    "<style",
    "<?x",
    "<![CDATA[",
    "<!X",
  ],
  ...["<a href='x'>", "<https://e.example>", "<javascript:x>", "<a@e.example>", "/>", "<b\u00a0"],
  ...["[", "]", "(", ")", "![", "](", "]:", "][", "[^1]", "[x]", "(/settings)", "(?export=1)", "(../admin)"],
  ...["`", "``", "```", "````", "~~~", "\\", "*", "_", "|", "-", "#", ":", "!", '"t"', "'t'"],
  ...["&#x200B;", "&#58;", "&#32;", "&nbsp;", "&#x&#x200B;200B;", "&#9;", "&lt;", "&amp;", "&caps;", "&shy"],
  ...["&lvertneqq;", "&ZeroWidthSpace;", "&", "#x200B;", "caps;"],
  ...["javascript:", "java\tscript:", "https://e.example/p", "ftp://files.example/pub", "//e.example"],
  ...["mailto:a@e.example", "www.e.example", "a_b.e.example", "xn--80ak6aa92e.com", "%E2%80%AE", "%20"],
  ...[" ", "\t", "a", "b c", "IGNORE", "\u2800", "\u200b", "\u00a0", "\u202e", "😀", "ش", "\u200d"],
);
const prefix = fc.constantFrom(
  "",
  "",
  "> ",
  "- ",
  "1. ",
  "    ",
  ">\t",
  "\t> ",
  "- - \t",
  "* ",
  "```",
  "~~~ ",
  "# ",
);
const line = fc
  .tuple(prefix, fc.array(piece, { maxLength: 8 }))
  .map(([start, parts]) => start + parts.join(""));
const markdown = fc
  .array(fc.oneof(line, line, fc.constant("")), { minLength: 1, maxLength: 5 })
  .map((lines) => lines.join("\n"));

const clean = (text: string) => sanitizeText(text).text;

describe("sanitized text from a grammar of hostile Markdown, in every renderer", () => {
  it(
    "shows nothing hidden alone or in any of the assistant's constructs, and is stable",
    () => {
      fc.assert(
        fc.property(markdown, (text) => {
          const once = clean(text);
          expect(hiddenInContexts(once), JSON.stringify(once)).toEqual([]);
          expect(clean(once)).toBe(once);
        }),
        { numRuns: RUNS, seed: SEED },
      );
    },
    TIMEOUT,
  );

  it(
    "shows nothing hidden where two strings are joined",
    () => {
      fc.assert(
        fc.property(markdown, markdown, (a, b) => {
          expect(hiddenInJoins(clean(a), clean(b)), JSON.stringify([clean(a), clean(b)])).toEqual([]);
        }),
        { numRuns: RUNS, seed: SEED + 1 },
      );
    },
    TIMEOUT,
  );
});
