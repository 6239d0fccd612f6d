// The report view's HTML: one self-contained file that scripts/build-view.mjs builds from view/.
// A bundle (dist/cli.js, or any esbuild bundle of src/cli.ts that defines __REPORT_VIEW_HTML__ with
// the contents of dist/views/report-view.html, or __REPORT_VIEW_HTML_GZIP__ with them gzipped) carries it
// inline; the unbundled modules read that file.
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";

declare const __REPORT_VIEW_HTML__: string | undefined;
/** The same, gzipped and base64-encoded: the one-file bundle (scripts/bundle-one-file.mjs) carries it so, at a third of the size. */
declare const __REPORT_VIEW_HTML_GZIP__: string | undefined;

/** Where the build writes the view: dist/views/ (this module sits two levels below the package root). */
export const REPORT_VIEW_FILE = new URL("../../dist/views/report-view.html", import.meta.url);

let html: string | undefined = typeof __REPORT_VIEW_HTML__ === "string" ? __REPORT_VIEW_HTML__ : undefined;
const gzipped = typeof __REPORT_VIEW_HTML_GZIP__ === "string" ? __REPORT_VIEW_HTML_GZIP__ : undefined;

/** The view's HTML, read once; a checkout that was never built says so. */
export function reportViewHtml(): string {
  if (html === undefined && gzipped !== undefined)
    html = gunzipSync(Buffer.from(gzipped, "base64")).toString("utf8");
  if (html === undefined) {
    try {
      html = readFileSync(REPORT_VIEW_FILE, "utf8");
    } catch {
      throw new Error("the report view is not built: run npm run build");
    }
  }
  return html;
}
