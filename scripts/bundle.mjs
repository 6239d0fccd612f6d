// Bundles the CLI entry into dist/cli.js after tsc has built dist/: one file loads in about half the
// time of ~100 small modules (docs/performance.md). Code loaded on demand (the sandbox, each
// transport) becomes its own chunk beside it. The other modules of dist/ stay as tsc wrote them.
import { readdirSync, rmSync } from "node:fs";
import { build } from "esbuild";
import { buildView } from "./build-view.mjs";

const DIST = new URL("../dist/", import.meta.url).pathname;
const CHUNK_PREFIX = "bundle-";

for (const file of readdirSync(DIST)) {
  if (file.startsWith(CHUNK_PREFIX)) rmSync(`${DIST}${file}`);
}

// The report view's HTML (src/views/html.ts) travels inside the bundle: nothing beside it to find.
const reportViewHtml = await buildView();

await build({
  entryPoints: { cli: "src/cli.ts" },
  outdir: DIST,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  // Chunks sit beside cli.js, so version.ts still finds ../package.json from any of them.
  chunkNames: `${CHUNK_PREFIX}[name]-[hash]`,
  // Bundled CommonJS dependencies (undici, ajv) call require() for Node's own modules.
  banner: {
    js: 'import { createRequire as __createRequire } from "node:module";\nconst require = __createRequire(import.meta.url);',
  },
  define: { __REPORT_VIEW_HTML__: JSON.stringify(reportViewHtml) },
  logLevel: "warning",
});
