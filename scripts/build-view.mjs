// Builds the report view (view/) into one self-contained HTML file, dist/views/report-view.html: the
// script (the extension's App class, Chartist, the view) and the styles inlined, nothing fetched at
// run time. build.mjs embeds the same text in dist/cli.js. Run alone: node scripts/build-view.mjs.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { build } from "esbuild";
import { zodEnglishOnly } from "./zod-english.mjs";

const ROOT = new URL("../", import.meta.url).pathname;
export const VIEW_FILE = `${ROOT}dist/views/report-view.html`;

/** @type {import("esbuild").BuildOptions & { write: false }} */
const common = { bundle: true, minify: true, write: false, logLevel: "warning", absWorkingDir: ROOT };

/** The one file an in-memory build wrote. */
const outputText = (/** @type {import("esbuild").BuildResult<{ write: false }>} */ result) => {
  const [file] = result.outputFiles;
  if (!file) throw new Error("esbuild wrote no output");
  return file.text.trim();
};

/** The view's HTML, built from view/; also written to dist/views/report-view.html. */
export async function buildView() {
  const [script, style] = await Promise.all([
    build({
      ...common,
      entryPoints: ["view/main.ts"],
      format: "esm",
      platform: "browser",
      target: "es2022",
      plugins: [zodEnglishOnly],
      legalComments: "none",
    }),
    build({ ...common, entryPoints: ["view/style.css"], target: "chrome110" }),
  ]);
  const template = readFileSync(`${ROOT}view/index.html`, "utf8");
  // esbuild escapes "</script" and "</style" in what it writes, so both can sit inline.
  const html = template
    .replace(/\s*<!--[\s\S]*?-->/g, "")
    .replace("/*STYLE*/", () => outputText(style))
    .replace("/*SCRIPT*/", () => outputText(script));
  mkdirSync(`${ROOT}dist/views`, { recursive: true });
  writeFileSync(VIEW_FILE, html);
  return html;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const html = await buildView();
  console.log(`${VIEW_FILE}: ${html.length} bytes`);
}
