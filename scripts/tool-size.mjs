// What this server costs a model's context, in o200k tokens (gpt-tokenizer) and Claude's count
// (@anthropic-ai/tokenizer): the tool definitions per tool and per toolset, and a fixed set of typical
// calls on the sandbox in both forms. Reads the built server: `npm run tool-size` builds it first.
// `npm run docs` writes the same figures (scripts/figures.mjs) into the docs.
import { measureFigures } from "./figures.mjs";
import { loadCode } from "./gen-docs.mjs";

const format = (n) => n.toLocaleString("en-US");
const row = (cells) => console.log(`| ${cells.join(" | ")} |`);
const code = await loadCode("dist");
const figures = await measureFigures(code);

console.log("## Tool definitions (name, description, input schema)\n");
row(["tool", "bytes", "o200k", "Claude"]);
row(["---", "---:", "---:", "---:"]);
for (const tool of figures.definitions) {
  row([tool.name, format(tool.bytes), format(tool.o200k), format(tool.claude)]);
}

console.log("\n## Per toolset\n");
row(["toolset", "tools", "bytes", "o200k", "Claude", "whole tools/list bytes"]);
row(["---", "---:", "---:", "---:", "---:", "---:"]);
for (const t of figures.toolsets) {
  row([t.label, t.tools, format(t.bytes), format(t.o200k), format(t.claude), format(t.wholeBytes)]);
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
for (const call of figures.calls) {
  row([
    call.label,
    format(call.upstream),
    format(call.full),
    format(call.concise),
    format(call.conciseClaude),
    `${call.share} %`,
    `${call.bound} %`,
    `${call.leftOutFull} / ${call.leftOutConcise}`,
  ]);
}
const { DEFAULT_MAX_RESULT_TOKENS, FULL_RESULT_TOKENS } =
  /** @type {typeof import("../src/tools/answers.js")} */ (code.answers);
console.log(
  `\nTokens: o200k unless marked Claude. Budgets: concise ${format(DEFAULT_MAX_RESULT_TOKENS)}, full ${format(FULL_RESULT_TOKENS)} (estimated, see docs/context-cost.md).`,
);
