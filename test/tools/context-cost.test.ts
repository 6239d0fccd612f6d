// What the server costs a model's context, measured with the real tokenizer (o200k) on the sandbox:
// the figures `npm run tool-size` prints, each held to its bound.
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import { beforeAll, describe, expect, it } from "vitest";
import {
  definitionText,
  type MeasuredCall,
  measureCalls,
  TYPICAL_CALLS,
} from "../../src/build/context-cost.js";
import { setLogLevel } from "../../src/log.js";
import { TOOL_LIST } from "../../src/tools/register.js";
import { estimateTokens } from "../../src/tools/tokens.js";

const o200k = (text: string) => encode(text).length;

describe("context cost", () => {
  let calls: MeasuredCall[];

  beforeAll(async () => {
    setLogLevel("error");
    calls = await measureCalls(TYPICAL_CALLS);
  });

  it("the 14 tool definitions (name, description, input schema) cost at most 6,000 tokens", () => {
    expect(o200k(definitionText(TOOL_LIST.tools))).toBeLessThanOrEqual(6000);
  });

  it("no typical answer is over its budget: 8,000 tokens concise, 20,000 full", () => {
    for (const call of calls) {
      expect(estimateTokens(call.concise.text), call.label).toBeLessThanOrEqual(8000);
      expect(estimateTokens(call.full.text), call.label).toBeLessThanOrEqual(20_000);
      expect(o200k(call.concise.text), call.label).toBeLessThanOrEqual(estimateTokens(call.concise.text));
      expect(o200k(call.full.text), call.label).toBeLessThanOrEqual(estimateTokens(call.full.text));
    }
  });

  it("each concise answer costs at most its share of the upstream's body: a third for the task lists", () => {
    expect(
      TYPICAL_CALLS.filter((call) => call.tool === "tasks_query" && call.conciseShare === 1 / 3),
    ).toHaveLength(2);
    for (const call of calls) {
      expect(o200k(call.concise.text), call.label).toBeLessThanOrEqual(
        o200k(call.upstream) * call.conciseShare,
      );
    }
  });

  it("the default task page comes whole in both forms; full is the upstream's text", () => {
    const [page] = calls;
    expect(page?.label).toBe("tasks_query list (default page of 50)");
    expect([page?.concise.leftOut, page?.full.leftOut]).toEqual([undefined, undefined]);
    expect(page?.full.text).toBe(page?.upstream);
  });

  it("the sentiment report by topic, model and date fits the concise budget by leaving rows out, and says so", () => {
    const report = calls.find((call) => call.tool === "geo_reports_sentiments");
    expect(report?.concise.leftOut).toBeGreaterThan(0);
    expect(JSON.parse(report?.concise.text ?? "{}").truncated.next_call).toMatchObject({
      pagination: { offset: expect.any(Number), limit: 100 },
    });
  });
});
