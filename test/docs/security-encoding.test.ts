// docs/security.md restates the encoding: its table of twins is the code's (src/tools/inert.ts), and its
// before/after example is what the sanitizer makes of the text before.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { INERT } from "../../src/tools/inert.js";
import { sanitizeText } from "../../src/tools/sanitize.js";

const DOC = readFileSync(new URL("../../docs/security.md", import.meta.url), "utf8");
const section = DOC.slice(
  DOC.indexOf("## What is written as its twin"),
  DOC.indexOf("## Every way text leaves"),
);

describe("docs/security.md on the encoding", () => {
  it("lists every character the code makes inert, written as the code writes it", () => {
    const rows = [...section.matchAll(/^\| (`+) ?(.+?) ?\1 \| `(.)` \(U\+([0-9A-F]{4})\) \|/gm)].map(
      ([, , char, twin, code]) => [
        (char as string).replace(/^\\(?=\|)/, ""),
        twin,
        String.fromCodePoint(Number.parseInt(code as string, 16)),
      ],
    );
    expect(rows.map(([char, twin]) => [char, twin])).toEqual(Object.entries(INERT));
    for (const [, twin, fromCode] of rows) expect(twin).toBe(fromCode);
  });

  it("shows as after what the sanitizer makes of before", () => {
    const blocks = [...section.matchAll(/^````text\n([\s\S]*?)\n````$/gm)].map((match) => match[1] as string);
    expect(blocks).toHaveLength(2);
    expect(sanitizeText(blocks[0] as string).text).toBe(blocks[1]);
  });
});
