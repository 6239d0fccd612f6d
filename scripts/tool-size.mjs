// What this server costs a model's context, in o200k tokens (gpt-tokenizer) and Claude's count
// (@anthropic-ai/tokenizer): the tool definitions per tool and per toolset, and a fixed set of typical
// calls on the sandbox in both forms. Reads the built server: `npm run tool-size` builds it first.
import { countTokens as claudeTokens } from "@anthropic-ai/tokenizer";
import { encode } from "gpt-tokenizer/encoding/o200k_base";

// The built modules, typed as the sources they are built from (a static import would type-check dist/).
const built = (path) => import(new URL(`../dist/${path}`, import.meta.url).href);
/** @type {typeof import("../src/tools/context-cost.js")} */
const { definitionText, measureCalls, TYPICAL_CALLS } = await built("tools/context-cost.js");
/** @type {typeof import("../src/tools/register.js")} */
const { toolListFor } = await built("tools/register.js");
/** @type {typeof import("../src/tools/selection.js")} */
const { selectTools } = await built("tools/selection.js");

const o200k = (text) => encode(text).length;
const format = (n) => n.toLocaleString("en-US");
const row = (cells) => console.log(`| ${cells.join(" | ")} |`);

console.log("## Tool definitions (name, description, input schema)\n");
row(["tool", "bytes", "o200k", "Claude"]);
row(["---", "---:", "---:", "---:"]);
for (const tool of toolListFor(selectTools({ readOnly: false })).tools) {
  const text = definitionText([tool]);
  row([tool.name, format(Buffer.byteLength(text)), format(o200k(text)), format(claudeTokens(text))]);
}

console.log("\n## Per toolset\n");
row(["toolset", "tools", "bytes", "o200k", "Claude", "whole tools/list bytes"]);
row(["---", "---:", "---:", "---:", "---:", "---:"]);
for (const [label, selection] of /** @type {[string, import("../src/config.js").ToolSelection][]} */ ([
  ["workspace", { toolsets: ["workspace"], readOnly: false }],
  ["workspace, read-only", { toolsets: ["workspace"], readOnly: true }],
  ["analytics", { toolsets: ["analytics"], readOnly: false }],
  ["all (default)", { readOnly: false }],
])) {
  const list = toolListFor(selectTools(selection));
  const text = definitionText(list.tools);
  const whole = Buffer.byteLength(JSON.stringify(list));
  row([
    label,
    list.tools.length,
    format(Buffer.byteLength(text)),
    format(o200k(text)),
    format(claudeTokens(text)),
    format(whole),
  ]);
}

console.log("\n## Typical calls on the sandbox (the text block a model reads)\n");
row([
  "call",
  "upstream body (before)",
  "full",
  "concise",
  "concise, Claude",
  "concise / before",
  "bound",
  "rows left out (full / concise)",
]);
row(["---", "---:", "---:", "---:", "---:", "---:", "---:", "---:"]);
for (const call of await measureCalls(TYPICAL_CALLS)) {
  const before = o200k(call.upstream);
  const concise = o200k(call.concise.text);
  row([
    call.label,
    format(before),
    format(o200k(call.full.text)),
    format(concise),
    format(claudeTokens(call.concise.text)),
    `${Math.round((100 * concise) / before)} %`,
    `${Math.round(100 * call.conciseShare)} %`,
    `${call.full.leftOut ?? 0} / ${call.concise.leftOut ?? 0}`,
  ]);
}
console.log(
  "\nTokens: o200k unless marked Claude. Budgets: concise 8,000, full 20,000 (estimated, see docs/context-cost.md).",
);
