// An esbuild plugin for bundles that carry the MCP server SDK: on Node the SDK's default JSON Schema
// validator is Ajv (about 280 KB, loaded at start), used only to check an elicitation answer against the
// form it asked for. The server passes the SDK's own Cloudflare-worker validator instead (src/server.ts),
// so the bundle's default is that one too and Ajv stays out.
/** @type {import("esbuild").Plugin} */
export const sdkWithoutAjv = {
  name: "sdk-without-ajv",
  setup(build) {
    build.onResolve({ filter: /^@modelcontextprotocol\/server\/_shims$/ }, () => ({
      path: "sdk-shims",
      namespace: "sdk-without-ajv",
    }));
    build.onLoad({ filter: /.*/, namespace: "sdk-without-ajv" }, () => ({
      contents: [
        'export { CfWorkerJsonSchemaValidator as DefaultJsonSchemaValidator } from "@modelcontextprotocol/server/validators/cf-worker";',
        'export { default as process } from "node:process";',
      ].join("\n"),
      resolveDir: new URL("../", import.meta.url).pathname,
    }));
  },
};
