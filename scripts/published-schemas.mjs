// Every tool's input and output JSON Schema, converted from zod at build time so that a bundle does not
// convert them at each start (docs/performance.md). Always from the sources being bundled: src/tools/
// register.ts is bundled on its own into a temporary module, loaded, and asked what it publishes.
// The bundles define __PUBLISHED_SCHEMAS__ with the result; src/tools/register.ts converts at load when
// it is not defined (the unbundled modules, vitest).
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";

const ROOT = new URL("..", import.meta.url).pathname;

/** `{ [tool name]: { input, output } }` as JSON text, itself as a JSON string for esbuild's `define`. */
export async function publishedSchemasDefine() {
  // Inside the checkout, so that the module's imports of zod and the SDK resolve from its node_modules.
  const cache = join(ROOT, "node_modules", ".cache");
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(join(cache, "published-schemas-"));
  try {
    const outfile = join(dir, "register.mjs");
    await build({
      entryPoints: ["src/tools/register.ts"],
      absWorkingDir: ROOT,
      outfile,
      bundle: true,
      packages: "external",
      format: "esm",
      platform: "node",
      target: "node20",
      logLevel: "warning",
    });
    const { TOOL_LIST } = await import(pathToFileURL(outfile).href);
    const schemas = Object.fromEntries(
      TOOL_LIST.tools.map((tool) => [tool.name, { input: tool.inputSchema, output: tool.outputSchema }]),
    );
    return JSON.stringify(JSON.stringify(schemas));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
