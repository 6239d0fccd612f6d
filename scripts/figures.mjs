// The figures `npm run tool-size` prints and `npm run docs` writes into the docs: what the tool
// definitions cost, per tool and per toolset, and the typical calls on the sandbox in both forms.
// Tokens are o200k (gpt-tokenizer) and Claude's count (@anthropic-ai/tokenizer, the legacy one).
import { getTokenizer } from "@anthropic-ai/tokenizer";
import { encode } from "gpt-tokenizer/encoding/o200k_base";

export const o200k = (text) => encode(text).length;

// One tokenizer for the process: the package's countTokens builds (and frees) a new one per call,
// which cost most of a docs run. The count is the package's own: NFKC, every special token allowed.
let claude;
export function claudeTokens(text) {
  claude ??= getTokenizer();
  return claude.encode(text.normalize("NFKC"), "all").length;
}

const TOOLSETS = [
  ["workspace", { toolsets: ["workspace"], readOnly: false }],
  ["workspace, read-only", { toolsets: ["workspace"], readOnly: true }],
  ["analytics", { toolsets: ["analytics"], readOnly: false }],
  ["all (default)", { readOnly: false }],
];

/** Each tool's definition: bytes and tokens. */
export function definitionFigures({ register, selection, contextCost }) {
  return register.toolListFor(selection.selectTools({ readOnly: false })).tools.map((tool) => {
    const text = contextCost.definitionText([tool]);
    return {
      name: tool.name,
      bytes: Buffer.byteLength(text),
      o200k: o200k(text),
      claude: claudeTokens(text),
    };
  });
}

/** Each toolset's definitions and its whole tools/list answer (compact JSON, as sent). */
export function toolsetFigures({ register, selection, contextCost }) {
  return TOOLSETS.map(([label, choice]) => {
    const list = register.toolListFor(selection.selectTools(choice));
    const text = contextCost.definitionText(list.tools);
    return {
      label,
      tools: list.tools.length,
      bytes: Buffer.byteLength(text),
      o200k: o200k(text),
      claude: claudeTokens(text),
      wholeBytes: Buffer.byteLength(JSON.stringify(list)),
    };
  });
}

/** The typical calls on a fresh sandbox: tokens of the upstream body and of each form's text. */
export async function callFigures({ contextCost, tokens }) {
  return (await contextCost.measureCalls(contextCost.TYPICAL_CALLS)).map((call) => {
    const upstream = o200k(call.upstream);
    const concise = o200k(call.concise.text);
    const texts = [call.upstream, call.full.text, call.concise.text];
    return {
      label: call.label,
      upstream,
      full: o200k(call.full.text),
      concise,
      conciseClaude: claudeTokens(call.concise.text),
      share: Math.round((100 * concise) / upstream),
      bound: Math.round(100 * call.conciseShare),
      leftOutFull: call.full.leftOut ?? 0,
      leftOutConcise: call.concise.leftOut ?? 0,
      /** The run-time estimate (src/tools/tokens.ts) over o200k, on each of the three texts. */
      estimateRatios: texts.map((text) => tokens.estimateTokens(text) / o200k(text)),
      /** Claude's count over o200k, on each of the three texts. */
      claudeRatios: texts.map((text) => claudeTokens(text) / o200k(text)),
    };
  });
}

export async function measureFigures(modules) {
  return {
    definitions: definitionFigures(modules),
    toolsets: toolsetFigures(modules),
    calls: await callFigures(modules),
  };
}
