// The parts of README.md and docs/*.md that restate the code (tools table, per-tool reference, error
// texts, every figure `npm run tool-size` prints) are written by `npm run docs` (scripts/gen-docs.mjs):
// run on the sources here, it must give the files as committed.
import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { generatedDocs } from "../scripts/gen-docs.mjs";
import * as clientErrors from "../src/clients/errors.js";
import * as retry from "../src/clients/retry.js";
import * as config from "../src/config.js";
import { setLogLevel } from "../src/log.js";
import * as answers from "../src/tools/answers.js";
import * as contextCost from "../src/tools/context-cost.js";
import * as errors from "../src/tools/errors.js";
import * as register from "../src/tools/register.js";
import * as schemas from "../src/tools/schemas.js";
import * as selection from "../src/tools/selection.js";
import * as tokens from "../src/tools/tokens.js";

const ROOT = new URL("../", import.meta.url);
const FILES = ["README.md", "docs/tools.md", "docs/context-cost.md", "docs/failure-behaviour.md"];
const modules = {
  register,
  answers,
  errors,
  clientErrors,
  config,
  retry,
  contextCost,
  selection,
  schemas,
  tokens,
};

describe("generated docs", () => {
  let docs: Record<string, string>;

  beforeAll(async () => {
    setLogLevel("error");
    docs = await generatedDocs(modules);
  });

  it("cover the files that restate the code", () => {
    expect(Object.keys(docs).sort()).toEqual(FILES.slice().sort());
  });

  for (const file of FILES) {
    it(`${file} is as \`npm run docs\` writes it`, () => {
      const committed = readFileSync(new URL(file, ROOT), "utf8");
      expect(committed === docs[file], `${file} differs from the code: run \`npm run docs\``).toBe(true);
    });
  }
});
