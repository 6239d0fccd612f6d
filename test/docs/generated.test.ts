// The parts of README.md and docs/*.md that restate the code (tools table, per-tool reference, error
// texts, every figure `npm run tool-size` prints) are written by `npm run docs` (scripts/gen-docs.mjs):
// run on the sources here, it must give the files as committed.
import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import * as benchLines from "../../bench/lines.js";
import * as benchRecord from "../../bench/record.js";
import { generatedDocs } from "../../scripts/gen-docs.mjs";
import * as contextCost from "../../src/build/context-cost.js";
import * as workflowExamples from "../../src/build/workflow-examples.js";
import * as clientErrors from "../../src/clients/errors.js";
import * as retry from "../../src/clients/retry.js";
import { defaultText } from "../../src/config/help.js";
import * as config from "../../src/config/settings.js";
import { SETTINGS } from "../../src/config/settings.js";
import { setLogLevel } from "../../src/log.js";
import * as prompts from "../../src/prompts/definitions.js";
import * as answers from "../../src/tools/answers.js";
import * as errors from "../../src/tools/errors.js";
import * as register from "../../src/tools/register.js";
import { ENDPOINTS } from "../../src/tools/register.js";
import * as schemas from "../../src/tools/schemas.js";
import * as selection from "../../src/tools/selection.js";
import * as tokens from "../../src/tools/tokens.js";

const ROOT = new URL("../../", import.meta.url);
const FILES = [
  "README.md",
  "docs/tools.md",
  "docs/context-cost.md",
  "docs/failure-behaviour.md",
  "docs/performance.md",
  "docs/prompts.md",
  "bench/README.md",
];
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
  prompts,
  workflowExamples,
  benchLines,
  benchRecord,
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

/** Each markdown table of a text: its header cells and its rows' cells. */
function tables(text: string): { header: string[]; rows: string[][] }[] {
  const cells = (line: string) =>
    line
      .split(/(?<!\\)\|/)
      .slice(1, -1)
      .map((cell) => cell.trim());
  const found: { header: string[]; rows: string[][] }[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length - 1; i++) {
    if (!lines[i]!.startsWith("|") || !/^\|[-:| ]+\|$/.test(lines[i + 1]!)) continue;
    const table = { header: cells(lines[i]!), rows: [] as string[][] };
    for (i += 2; i < lines.length && lines[i]!.startsWith("|"); i++) table.rows.push(cells(lines[i]!));
    found.push(table);
  }
  return found;
}

describe("hand-written docs", () => {
  it("give each flag the default the settings table gives it, in every table with a default column", () => {
    let checked = 0;
    for (const file of ["hosting.md", "failure-behaviour.md", "tools.md", "clients.md"]) {
      const text = readFileSync(new URL(`docs/${file}`, ROOT), "utf8");
      for (const { header, rows } of tables(text)) {
        const column = header.indexOf("default");
        if (column < 0) continue;
        for (const cells of rows) {
          for (const [, flag] of cells[0]!.matchAll(/`--([a-z-]+)`/g)) {
            const setting = SETTINGS.find((s) => s.flag === flag);
            expect(setting, `docs/${file}: --${flag} is a setting`).toBeDefined();
            const shown = defaultText(setting!);
            if (shown === undefined) continue;
            expect(cells[column]!.replaceAll("`", ""), `docs/${file}: default of --${flag}`).toContain(shown);
            checked++;
          }
        }
      }
    }
    expect(checked).toBeGreaterThanOrEqual(15);
  });

  it("README's rule for tool names gives every tool's name from its path", () => {
    // The path after its version segment, without the segment `business`, `/` and `-` as `_`.
    const named = ENDPOINTS.map(({ path }) =>
      path
        .split("/")
        .slice(path.split("/").findIndex((segment) => /^v\d+$/.test(segment)) + 1)
        .filter((segment) => segment !== "business")
        .join("_")
        .replaceAll("-", "_"),
    );
    expect(named).toEqual(ENDPOINTS.map(({ name }) => name));
  });
});
