// An esbuild plugin for bundles that carry zod: zod re-exports its error messages in ~45 languages
// (reachable through `z.locales`, about a fifth of a bundle); the server and the view use English only.
/** @type {import("esbuild").Plugin} */
export const zodEnglishOnly = {
  name: "zod-english-only",
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, ({ importer }) =>
      /[\\/]zod[\\/]/.test(importer) ? { path: "zod-locales", namespace: "zod-english-only" } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "zod-english-only" }, () => ({
      contents: 'export { default as en } from "zod/v4/locales/en.js";',
      resolveDir: new URL("../", import.meta.url).pathname,
    }));
  },
};
