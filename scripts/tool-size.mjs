// What `tools/list` costs per toolset: the bytes of the prepared answer as sent (compact JSON), and
// bytes/4 as a rough token estimate. Reads the built server (dist/), so run `npm run build` first.
import { toolListFor } from "../dist/tools/register.js";
import { selectTools } from "../dist/tools/selection.js";

const selections = [
  ["workspace", { toolsets: ["workspace"], readOnly: false }],
  ["workspace, read-only", { toolsets: ["workspace"], readOnly: true }],
  ["analytics", { toolsets: ["analytics"], readOnly: false }],
  ["all (default)", { readOnly: false }],
];

console.log("| toolset | tools | tools/list bytes | ≈ tokens (bytes/4) |");
console.log("|---|---:|---:|---:|");
for (const [label, selection] of selections) {
  const list = toolListFor(selectTools(selection));
  const bytes = Buffer.byteLength(JSON.stringify(list));
  const format = (n) => n.toLocaleString("en-US");
  console.log(`| ${label} | ${list.tools.length} | ${format(bytes)} | ${format(Math.round(bytes / 4))} |`);
}
