// Builds dist/: every module of src/ transpiled one for one (types are checked by `npm run typecheck`,
// not here: esbuild writes the same JavaScript as tsc in a fraction of the time), then the CLI entry
// bundled into dist/cli.js: one file loads in about half the time of ~100 small modules
// (docs/performance.md). Code loaded on demand (the sandbox, each transport) becomes its own chunk.
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { build } from "esbuild";
import { buildView } from "./build-view.mjs";
import { publishedSchemasDefine } from "./published-schemas.mjs";
import { sdkWithoutAjv } from "./sdk-validator.mjs";
import { zodEnglishOnly } from "./zod-english.mjs";

const ROOT = new URL("../", import.meta.url).pathname;
const DIST = `${ROOT}dist/`;
const CHUNK_PREFIX = "bundle-";

mkdirSync(DIST, { recursive: true });
for (const file of readdirSync(DIST)) {
  if (file.startsWith(CHUNK_PREFIX)) rmSync(`${DIST}${file}`);
}

const modules = readdirSync(`${ROOT}src`, { recursive: true, encoding: "utf8" })
  .filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts"))
  .map((file) => `src/${file}`);
await build({
  entryPoints: modules,
  absWorkingDir: ROOT,
  outdir: DIST,
  outbase: "src",
  format: "esm",
  platform: "node",
  target: "node20",
  logLevel: "warning",
});

// The report view's HTML (src/views/html.ts) travels inside the bundle: nothing beside it to find.
const reportViewHtml = await buildView();
// So do the tools' JSON Schemas, converted here rather than at each start (src/tools/register.ts).
const publishedSchemas = await publishedSchemasDefine();

await build({
  entryPoints: { cli: "src/cli.ts" },
  absWorkingDir: ROOT,
  outdir: DIST,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  // Chunks sit beside cli.js, so version.ts still finds ../package.json from any of them.
  chunkNames: `${CHUNK_PREFIX}[name]-[hash]`,
  // Bundled CommonJS dependencies (undici) call require() for Node's own modules.
  banner: {
    js: 'import { createRequire as __createRequire } from "node:module";\nconst require = __createRequire(import.meta.url);',
  },
  define: { __REPORT_VIEW_HTML__: JSON.stringify(reportViewHtml), __PUBLISHED_SCHEMAS__: publishedSchemas },
  plugins: [zodEnglishOnly, sdkWithoutAjv],
  logLevel: "warning",
});
