// Builds the report view (view/) into one self-contained HTML file, dist/views/report-view.html: the
// script (the extension's App class, Chartist, the view) and the styles inlined, nothing fetched at
// run time. bundle.mjs embeds the same text in dist/cli.js. Run alone: node scripts/build-view.mjs.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { build } from "esbuild";

const ROOT = new URL("../", import.meta.url).pathname;
export const VIEW_FILE = `${ROOT}dist/views/report-view.html`;

// zod (which the App class validates messages with) carries its error messages in ~45 languages, all
// reachable through `z.locales`; the view needs English only. This keeps ~250 KB of them out.
const englishOnly = {
  name: "zod-english-only",
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]/.test(args.importer)
        ? { path: "zod-locales", namespace: "zod-english-only" }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "zod-english-only" }, () => ({
      contents: 'export { default as en } from "zod/v4/locales/en.js";',
      resolveDir: ROOT,
    }));
  },
};

const common = { bundle: true, minify: true, write: false, logLevel: "warning", absWorkingDir: ROOT };

/** The view's HTML, built from view/; also written to dist/views/report-view.html. */
export async function buildView() {
  const [script, style] = await Promise.all([
    build({
      ...common,
      entryPoints: ["view/main.ts"],
      format: "esm",
      platform: "browser",
      target: "es2022",
      plugins: [englishOnly],
      legalComments: "none",
    }),
    build({ ...common, entryPoints: ["view/style.css"], target: "chrome110" }),
  ]);
  const template = readFileSync(`${ROOT}view/index.html`, "utf8");
  // esbuild escapes "</script" and "</style" in what it writes, so both can sit inline.
  const html = template
    .replace(/\s*<!--[\s\S]*?-->/g, "")
    .replace("/*STYLE*/", () => style.outputFiles[0].text.trim())
    .replace("/*SCRIPT*/", () => script.outputFiles[0].text.trim());
  mkdirSync(`${ROOT}dist/views`, { recursive: true });
  writeFileSync(VIEW_FILE, html);
  return html;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const html = await buildView();
  console.log(`${VIEW_FILE}: ${html.length} bytes`);
}
