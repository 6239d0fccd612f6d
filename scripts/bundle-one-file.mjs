// The server as one minified ES module that reads nothing beside it at run time: no chunks, package.json's
// name and version written in, the report view's HTML inline, zod's messages in English only. The Claude
// Desktop bundle (bundle-mcpb.mjs) and the container image (Containerfile) ship this file. Takes the view
// npm run build wrote, else builds it. Run alone: node scripts/bundle-one-file.mjs <outfile>.
import { existsSync, readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { buildView, VIEW_FILE } from "./build-view.mjs";
import { publishedSchemasDefine } from "./published-schemas.mjs";
import { sdkWithoutAjv } from "./sdk-validator.mjs";
import { zodEnglishOnly } from "./zod-english.mjs";

const ROOT = new URL("..", import.meta.url).pathname;

// version.ts reads ../package.json at run time; in this file its name and version are written in.
const PACKAGE_READ = 'createRequire(import.meta.url)("../package.json")';

/** @param {{ name: string, version: string }} pkg */
const inlinePackageFacts = (pkg) => ({
  name: "inline-package-facts",
  /** @param {import("esbuild").PluginBuild} builder */
  setup(builder) {
    builder.onLoad({ filter: /[\\/]src[\\/]version\.ts$/ }, ({ path }) => {
      const source = readFileSync(path, "utf8");
      if (!source.includes(PACKAGE_READ)) throw new Error(`${path} no longer reads ${PACKAGE_READ}`);
      const facts = JSON.stringify({ name: pkg.name, version: pkg.version });
      return { contents: source.replace(PACKAGE_READ, facts), loader: /** @type {const} */ ("ts") };
    });
  },
});

/**
 * Writes the server, src/cli.ts and all it imports, to `outfile` as one file; `plugins` may stand in
 * for parts a given package leaves out.
 * @param {string} outfile
 * @param {import("esbuild").Plugin[]} [plugins]
 */
export async function bundleOneFile(outfile, plugins = []) {
  const pkg = JSON.parse(readFileSync(`${ROOT}/package.json`, "utf8"));
  const viewHtml = existsSync(VIEW_FILE) ? readFileSync(VIEW_FILE, "utf8") : await buildView();
  await build({
    entryPoints: ["src/cli.ts"],
    absWorkingDir: ROOT,
    outfile,
    bundle: true,
    splitting: false,
    minify: true,
    sourcemap: false,
    format: "esm",
    platform: "node",
    target: "node20",
    plugins: [inlinePackageFacts(pkg), zodEnglishOnly, sdkWithoutAjv, ...plugins],
    // The report view (MCP Apps), built by npm run build, carried inline gzipped (465 KB of HTML in 170 KB).
    define: {
      __REPORT_VIEW_HTML_GZIP__: JSON.stringify(gzipSync(viewHtml, { level: 9 }).toString("base64")),
      __PUBLISHED_SCHEMAS__: await publishedSchemasDefine(),
    },
    // ES module entries where a package has both: they tree-shake (OpenTelemetry's do).
    mainFields: ["module", "main"],
    // As scripts/build.mjs: bundled CommonJS dependencies (undici) call require() for Node's modules.
    banner: {
      js: 'import { createRequire as __createRequire } from "node:module";\nconst require = __createRequire(import.meta.url);',
    },
    logLevel: "warning",
  });
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  const [outfile] = process.argv.slice(2);
  if (!outfile) {
    console.error("usage: node scripts/bundle-one-file.mjs <outfile>");
    process.exit(2);
  }
  await bundleOneFile(outfile);
}
