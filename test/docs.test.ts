// The README cannot drift from the code: its tools table is the endpoint table, its configuration
// tables name every setting of the settings table (which --help is made from), and every link resolves.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SETTINGS, USAGE } from "../src/config.js";
import { ENDPOINTS } from "../src/tools/register.js";

const ROOT = new URL("../", import.meta.url);
const README = readFileSync(new URL("README.md", ROOT), "utf8");

/** The rows of the markdown table that follows `heading`'s first line of `| a | b |`. */
function tableAfter(text: string, heading: string): string[][] {
  const start = text.indexOf(heading);
  expect(start, `${heading} is in the text`).toBeGreaterThanOrEqual(0);
  const lines = text.slice(start).split("\n");
  const first = lines.findIndex((line) => line.startsWith("|"));
  const rows: string[][] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith("|")) break;
    rows.push(
      line
        .split(/(?<!\\)\|/)
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
  }
  return rows;
}

describe("README", () => {
  it("stays under 15 KB", () => {
    expect(Buffer.byteLength(README)).toBeLessThanOrEqual(15 * 1024);
  });

  it("lists every tool, in table order, with its method and path", () => {
    const rows = tableAfter(README, "## Tools").map(([tool, , endpoint]) => [tool, endpoint]);
    expect(rows).toEqual(ENDPOINTS.map((e) => [`\`${e.name}\``, `${e.method} \`${e.path}\``]));
  });

  it("names every setting of the settings table, flag and variable, and no other", () => {
    const listed = (pattern: RegExp, text: string) => [
      ...new Set([...text.matchAll(pattern)].map((m) => m[0])),
    ];
    const configuration = README.slice(README.indexOf("## Configuration"), README.indexOf("## Connect"));
    const flags = listed(/--[a-z][a-z-]+/g, configuration).filter((flag) => flag !== "--help");
    const variables = listed(/\b[A-Z]+_[A-Z_]+\b/g, configuration);
    const settingFlags = SETTINGS.flatMap(({ flag }) => (flag ? [`--${flag}`] : []));
    expect(flags.sort()).toEqual(
      settingFlags.filter((flag) => flag !== "--help" && flag !== "--version").sort(),
    );
    expect(variables.sort()).toEqual(SETTINGS.flatMap(({ env }) => (env ? [env] : [])).sort());
  });

  it("--help lists every setting of the table", () => {
    for (const { flag, env } of SETTINGS) {
      if (flag) expect(USAGE).toContain(`--${flag}`);
      if (env) expect(USAGE).toContain(env);
    }
  });

  it("links only to files that exist", () => {
    for (const file of ["README.md", ...readdirSync(new URL("docs/", ROOT)).map((name) => `docs/${name}`)]) {
      const text = readFileSync(new URL(file, ROOT), "utf8");
      const base = new URL(file, ROOT);
      for (const [, target] of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        expect(existsSync(new URL(target!, base)), `${file} links to ${target}`).toBe(true);
      }
    }
  });
});
