// The report view draws text as text, so it shows what a Markdown reader of the answer sees: backslash
// escapes and character references undone once, never into a character a person cannot see, and the
// sanitizer's inert characters as they are.
import { describe, expect, it } from "vitest";
import { ATTACKS, ATTACKS_SANITIZED, BENIGN, MARKDOWN } from "../../src/sandbox/hostile-text.js";
import { sanitizeText } from "../../src/tools/sanitize.js";
import { tableOf } from "../../view/model.js";
import { shownText } from "../../view/shown.js";
import { hasUnseen, readAs } from "../markdown-judge.js";

describe("shownText", () => {
  it.each([
    ["Status !\\[](https://e.example/p.png)", "Status ![](https://e.example/p.png)"],
    ["&lt;span>x&lt;/span>", "<span>x</span>"],
    ["a \\\\ b \\* c", "a \\ b * c"],
    ["&amp;lt; once", "&lt; once"],
    ["&#65;&#x42; &quot;q&quot; &apos;", 'AB "q" \''],
    ["\\a \\é & &nope; &#xZZ;", "\\a \\é & &nope; &#xZZ;"],
    ["plain text, untouched", "plain text, untouched"],
  ])("%j shows as %j", (text, shown) => {
    expect(shownText(text)).toBe(shown);
  });

  it("never decodes a reference into a character a person cannot see", () => {
    for (const text of [
      "&#8203;",
      "&#x200B;",
      "&#xE0041;",
      "&#0;",
      "&#x110000;",
      "&#xD800;",
      "&#7;",
      "&#xFEFF;",
    ]) {
      expect(shownText(text)).toBe(text);
    }
  });

  it("shows the markup attacks of the corpus as a Markdown reader sees them: their inert characters as they are", () => {
    for (const key of ["htmlComment", "htmlTag", "image", "hiddenLinks"] as const) {
      expect(shownText(ATTACKS_SANITIZED[key]), key).toBe(ATTACKS_SANITIZED[key]);
      expect(shownText(ATTACKS_SANITIZED[key]), key).toBe(readAs(ATTACKS_SANITIZED[key]));
    }
  });

  it("shows every sanitized line of the corpus as a CommonMark reader reads it, with nothing unseen", () => {
    let compared = 0;
    for (const text of [...Object.values(ATTACKS), ...Object.values(MARKDOWN), ...Object.values(BENIGN)]) {
      const sanitized = sanitizeText(text).text;
      const shown = shownText(sanitized);
      expect(hasUnseen(shown), JSON.stringify(text)).toBe(false);
      // An attack on one line, without code spans: the view's text and the reader's are the same string
      // (benign links and autolinks show their labels in a reader, their Markdown in the view).
      if (
        !Object.values(ATTACKS).includes(text as never) ||
        sanitized.includes("\n") ||
        sanitized.includes("`")
      )
        continue;
      expect(shown, JSON.stringify(text)).toBe(readAs(sanitized));
      compared++;
    }
    expect(compared).toBeGreaterThanOrEqual(12);
  });
});

describe("tableOf", () => {
  it("gives the view column names and cells as they are shown, numbers and nulls as they are", () => {
    expect(
      tableOf({
        data: {
          columns: ["name", "visibility\\_score"],
          rows: [
            ["&lt;b>Acme&lt;/b> !\\[logo](https://e.example/l.png)", 0.5],
            [null, 1],
          ],
        },
      }),
    ).toEqual({
      columns: ["name", "visibility_score"],
      rows: [
        ["<b>Acme</b> ![logo](https://e.example/l.png)", 0.5],
        [null, 1],
      ],
    });
  });
});
