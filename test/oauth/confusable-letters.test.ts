// The look-alike table the consent page folds names with is what Unicode's data derives (confusables,
// and the names of Latin letters), not a hand-kept list: regenerate with node scripts/confusable-letters.mjs.
import { describe, expect, it } from "vitest";
import { confusableLettersModule } from "../../scripts/confusable-letters.mjs";
import { CONFUSABLE_LETTERS } from "../../src/oauth/confusable-letters.js";

describe("the confusable letters table", () => {
  it("is what scripts/confusable-letters.mjs derives from the Unicode data packages", async () => {
    const expected = await confusableLettersModule();
    expect(expected).toContain(`export const CONFUSABLE_LETTERS = ${JSON.stringify(CONFUSABLE_LETTERS)};`);
  });

  it("holds the letters that pass for Latin ones: other scripts', strokes, hooks, small capitals", () => {
    const folds = new Map(
      CONFUSABLE_LETTERS.split("\n").map((entry) => [[...entry][0], [...entry].slice(1).join("")]),
    );
    expect(
      [
        "\u0421",
        "\u0430",
        "\u13df",
        "\ua4da",
        "\u0142",
        "\u0111",
        "\u1d04",
        "\u029f",
        "\u1d00",
        "\u0188",
        "\ua785",
      ].map((char) => folds.get(char)),
    ).toEqual(["c", "a", "c", "c", "l", "d", "c", "l", "a", "c", "s"]);
  });
});
