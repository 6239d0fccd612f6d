// The report view's HTML: one self-contained file that scripts/build-view.mjs builds from view/.
// A bundle (dist/cli.js, or any esbuild bundle of src/cli.ts that defines __REPORT_VIEW_HTML__ with
// the contents of dist/views/report-view.html) carries it inline; the unbundled modules read that file.
import { readFileSync } from "node:fs";

declare const __REPORT_VIEW_HTML__: string | undefined;

/** Where the build writes the view: dist/views/ (this module sits two levels below the package root). */
export const REPORT_VIEW_FILE = new URL("../../dist/views/report-view.html", import.meta.url);

let html: string | undefined = typeof __REPORT_VIEW_HTML__ === "string" ? __REPORT_VIEW_HTML__ : undefined;

/** The view's HTML, read once; a checkout that was never built says so. */
export function reportViewHtml(): string {
  if (html === undefined) {
    try {
      html = readFileSync(REPORT_VIEW_FILE, "utf8");
    } catch {
      throw new Error("the report view is not built: run npm run build");
    }
  }
  return html;
}
