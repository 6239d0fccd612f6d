// The README cannot drift from the code: its tools table is the endpoint table, its configuration
// table is the settings table (which --help is made from), and every link resolves.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { defaultText, USAGE } from "../../src/config/help.js";
import { SETTINGS } from "../../src/config/settings.js";
import { SANDBOX_TODAY } from "../../src/sandbox/random.js";
import { ENDPOINTS } from "../../src/tools/register.js";

const ROOT = new URL("../../", import.meta.url);
const README = readFileSync(new URL("README.md", ROOT), "utf8");
/** The settings README's table lists; the HTTP transport's own are in docs/hosting.md, telemetry's in docs/observability.md. */
const README_SETTINGS = SETTINGS.filter(
  ({ section }) => section !== "HTTP options" && section !== "Telemetry options",
);

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
    expect(Buffer.byteLength(README)).toBeLessThanOrEqual(15_000);
  });

  it("gives the date the sandbox's data runs to, as docs/prompts.md does", () => {
    const prompts = readFileSync(new URL("docs/prompts.md", ROOT), "utf8").replaceAll("\n  ", " ");
    expect(README).toContain(`The sandbox's data is invented and ends on ${SANDBOX_TODAY}, its today.`);
    expect(prompts).toContain(
      `on \`--demo\`, the sandbox's today, ${SANDBOX_TODAY}, where its invented data ends`,
    );
  });

  it("lists every tool, in table order, with its method and path", () => {
    const rows = tableAfter(README, "## Tools").map(([tool, , endpoint]) => [tool, endpoint]);
    expect(rows).toEqual(ENDPOINTS.map((e) => [`\`${e.name}\``, `${e.method} \`${e.path}\``]));
  });

  it("has one configuration row per setting but the HTTP ones, in table order: variable, flag, default and its help line", () => {
    const rows = tableAfter(README, "## Configuration");
    expect(rows).toEqual(
      README_SETTINGS.map((setting) => [
        `\`${setting.env}\``,
        setting.flag ? `\`--${setting.flag}\`` : "",
        defaultText(setting) ?? "",
        `${setting.help}${setting.secret ? " (secret)" : ""}`,
      ]),
    );
  });

  it("names no flag or variable in its configuration section that the settings table lacks", () => {
    const listed = (pattern: RegExp, text: string) => [
      ...new Set([...text.matchAll(pattern)].map((m) => m[0])),
    ];
    const configuration = README.slice(README.indexOf("## Configuration"), README.indexOf("## Connect"));
    const flags = listed(/--[a-z][a-z-]+/g, configuration).filter((flag) => flag !== "--help");
    const variables = listed(/\b[A-Z]+_[A-Z_]+\b/g, configuration);
    expect(flags.sort()).toEqual(README_SETTINGS.flatMap(({ flag }) => (flag ? [`--${flag}`] : [])).sort());
    expect(variables.sort()).toEqual(README_SETTINGS.map(({ env }) => env).sort());
  });

  it("leaves the HTTP settings to docs/hosting.md, whose first table has a row for each", () => {
    const hosting = readFileSync(new URL("docs/hosting.md", ROOT), "utf8");
    const firstCells = tableAfter(hosting, "# Hosting over HTTP").map(([cell]) => cell);
    for (const { flag, env } of SETTINGS.filter(({ section }) => section === "HTTP options")) {
      expect(
        firstCells.some((cell) => cell?.includes(`\`--${flag}\``)),
        `--${flag} (${env})`,
      ).toBe(true);
    }
  });

  it("leaves the telemetry settings to docs/observability.md, whose first table has a row for each", () => {
    const observability = readFileSync(new URL("docs/observability.md", ROOT), "utf8");
    const rows = tableAfter(observability, "# Observability");
    for (const setting of SETTINGS.filter(({ section }) => section === "Telemetry options")) {
      expect(rows, setting.env).toContainEqual([
        `\`--${setting.flag}\` / \`${setting.env}\``,
        defaultText(setting) ?? "none",
        setting.help,
      ]);
    }
  });

  it("--help gives every setting one line with its flag, help, default and variable", () => {
    const lines = USAGE.split("\n");
    for (const setting of SETTINGS) {
      const { flag, env, help, secret } = setting;
      const line = lines.find((l) => l.startsWith(`  ${flag ? `--${flag}` : env} `));
      expect(line, env).toContain(help);
      const shown = defaultText(setting);
      if (shown !== undefined) expect(line, env).toContain(`default: ${shown}`);
      if (!secret) expect(line, env).toContain(`env ${env})`);
      else
        expect(line, env).toContain(
          flag ? `secret: the file holding it, or env ${env})` : "secret: env only)",
        );
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

describe("docs/development.md", () => {
  // The test suite's size and time change with every commit: vitest prints them, the page does not.
  const TYPED_FIGURE = /\b\d[\d,.]* ?(?:tests|test files|files|s|seconds|ms)\b/g;
  const figuresIn = (text: string) =>
    [...text.replace(/`[^`]*`/g, "").matchAll(TYPED_FIGURE)].map((m) => m[0]);

  it("types no test count or timing", () => {
    const page = readFileSync(new URL("docs/development.md", ROOT), "utf8");
    expect(figuresIn(page)).toEqual([]);
    // The check finds one.
    expect(figuresIn("npm test took 35 s: 966 tests in 52 files")).toEqual(["35 s", "966 tests", "52 files"]);
  });
});
