// Writes (or checks) the client set-up blocks of README.md and docs/clients.md, and mcp.json.example,
// from scripts/client-snippets.mjs.
// Usage: node scripts/client-docs.mjs          rewrite the marked blocks and mcp.json.example
//        node scripts/client-docs.mjs --check  exit 1, naming the files, when they differ
//        node scripts/client-docs.mjs --text ID  print block ID with its placeholders filled in from
//          SNIPPET_<NAME> variables (SNIPPET_CLONE, SNIPPET_URL, ...; see PLACEHOLDERS), for scripts
import { readFileSync, writeFileSync } from "node:fs";
import { filledIn, MCP_JSON_EXAMPLE, PLACEHOLDERS, renderMarked } from "./client-snippets.mjs";

const ROOT = new URL("../", import.meta.url);
export const GENERATED = ["README.md", "docs/clients.md", "mcp.json.example"];

/** Each generated file's text as it should be, given its current text. */
export function generate(file, current) {
  return file === "mcp.json.example" ? MCP_JSON_EXAMPLE : renderMarked(current);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [mode, id] = process.argv.slice(2);
  if (mode === "--text") {
    if (!id) throw new Error("usage: node scripts/client-docs.mjs --text ID");
    const upper = (name) => name.replace(/[A-Z]/g, (letter) => `_${letter}`).toUpperCase();
    const values = Object.fromEntries(
      Object.keys(PLACEHOLDERS).map((name) => [name, process.env[`SNIPPET_${upper(name)}`]]),
    );
    process.stdout.write(`${filledIn(id, values)}\n`);
  } else {
    const stale = [];
    for (const file of GENERATED) {
      const url = new URL(file, ROOT);
      const current = readFileSync(url, "utf8");
      const wanted = generate(file, current);
      if (wanted === current) continue;
      stale.push(file);
      if (mode !== "--check") writeFileSync(url, wanted);
    }
    if (mode === "--check" && stale.length) {
      console.error(`out of date (run npm run docs:clients): ${stale.join(", ")}`);
      process.exit(1);
    }
    if (mode !== "--check") console.log(stale.length ? `rewrote ${stale.join(", ")}` : "up to date");
  }
}
