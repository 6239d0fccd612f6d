// The Inspector's arguments in docs/clients.md's inspector-http block, for scripts/conformance.sh to run
// as written: the launcher (npx -y @modelcontextprotocol/inspector) dropped, the documented remote URL
// replaced by the URL given and the token and key placeholders by values of their form (a person types
// theirs there; a placeholder with spaces is no credential), every other word kept. Printed NUL-separated.
// Usage: node scripts/inspector-http-form.mjs http://127.0.0.1:PORT/mcp
import { filledIn } from "./client-snippets.mjs";

const [url] = process.argv.slice(2);
if (!url) throw new Error("usage: inspector-http-form.mjs <url>");
const filled = filledIn("inspector-http", {
  url,
  token: "conformance-token",
  key: "conformance-key",
});
const line = filled.replace(/\\\n\s*/g, " ");
const words = [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((match) => String(match[1] ?? match[2]));
const launcher = words.splice(0, 3).join(" ");
if (launcher !== "npx -y @modelcontextprotocol/inspector") {
  throw new Error(`the inspector-http block starts with "${launcher}"`);
}
if (!words.includes(url)) throw new Error("the inspector-http block names no URL");
process.stdout.write(`${words.join("\0")}\0`);
