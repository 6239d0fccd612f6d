// The budget's token estimate against the real tokenizer (o200k): never below it on the answers this
// server gives, on the tool list, on ids and on random JSON; and close enough above it to be useful.
import { randomBytes, randomUUID } from "node:crypto";
import fc from "fast-check";
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import { beforeAll, describe, expect, it } from "vitest";
import { measureCalls, TYPICAL_CALLS } from "../../src/build/context-cost.js";
import { setLogLevel } from "../../src/log.js";
import { TOOL_LIST } from "../../src/tools/register.js";
import { estimateTokens, fitsTokens } from "../../src/tools/tokens.js";
import { binaryString } from "../arbitraries.js";

/** o200k's count of each distinct text, counted once: the tests below ask for many texts more than once. */
const counted = new Map<string, number>();
function o200k(text: string): number {
  let count = counted.get(text);
  if (count === undefined) {
    count = encode(text).length;
    counted.set(text, count);
  }
  return count;
}

describe("estimateTokens", () => {
  let answers: string[];

  beforeAll(async () => {
    setLogLevel("error");
    const calls = await measureCalls(TYPICAL_CALLS);
    answers = calls.flatMap((call) => [call.upstream, call.full.text, call.concise.text]);
  });

  it("is never below o200k on the sandbox's answers in every form, and within 1.35× of it", () => {
    for (const text of answers) {
      expect(estimateTokens(text)).toBeGreaterThanOrEqual(o200k(text));
      expect(estimateTokens(text)).toBeLessThanOrEqual(Math.ceil(o200k(text) * 1.35) + 4);
    }
  });

  it("is never below o200k on the tool list, uuids, hex, base64 and text beyond ASCII", () => {
    const texts = [
      JSON.stringify(TOOL_LIST),
      JSON.stringify(Array.from({ length: 200 }, () => randomUUID())),
      JSON.stringify({ hex: randomBytes(2000).toString("hex"), b64: randomBytes(2000).toString("base64") }),
      JSON.stringify({ cursor: randomBytes(300).toString("base64url") }),
      // A cursor on which an estimate of 1.45 characters a token for mixed runs came out 8 short.
      JSON.stringify({
        cursor:
          "uCRXvmwSv2rRQI_LFwSkLx18Y9e2yvXUDNcKvyWVJx0pb6UDgj3n3UDVmx_bxYkJ4NWoFQqvQogMuqJv4dax4_KlPvJIj0u-zE0DJBQmJbRWtlqPAxCw0zLgZ6f0qDc8RaEwXsqRO7QKmcPHjCem9Ul_m6gK5F0djf4s4kY8ipz6Fifz1pVJvSPJl6qf48oLOhmoOwiTzB0zLmOfN-etTLsxgFKB06U2jw_Oz9rD8oJLoqDoKAge4YWOvBgSyU9GwnwNYAZCGBGa8gRsaeF1sGWCyCzzR7iwDU7DjiHZP5mf3RSX-v8LZ7Yu3DwUuRCaLy5awpTiiwF0oQMRctqV13FIfz2-yDzlWcF4e1Zp-eWuQkXVZ6FgFAnre6mApxOSrzcFh7MsijAJDTrT",
      }),
      JSON.stringify({ text: "日本語のテキスト、😀🎉 and ümlaut ñ ".repeat(40) }),
    ];
    for (const text of texts) expect(estimateTokens(text)).toBeGreaterThanOrEqual(o200k(text));
  });

  it("is never below o200k on random JSON bodies", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value) ?? "";
        expect(estimateTokens(text)).toBeGreaterThanOrEqual(o200k(text));
      }),
      { numRuns: 1000 },
    );
  });

  it("is needed only past the UTF-8 byte count, which o200k never exceeds", () => {
    const texts = [...answers, JSON.stringify(TOOL_LIST), "日本語のテキスト、😀🎉 and ümlaut ñ ".repeat(40)];
    for (const text of texts) expect(o200k(text)).toBeLessThanOrEqual(Buffer.byteLength(text));
    fc.assert(
      fc.property(fc.jsonValue(), binaryString(), (value, raw) => {
        for (const text of [JSON.stringify(value) ?? "", raw]) {
          expect(o200k(text)).toBeLessThanOrEqual(Buffer.byteLength(text));
        }
      }),
      { numRuns: 1000 },
    );
    // Up to its byte count a text fits without an estimate; below it, the estimate decides.
    const text = JSON.stringify({ ids: Array.from({ length: 50 }, () => randomUUID()) });
    const estimate = estimateTokens(text);
    expect(estimate).toBeLessThan(Buffer.byteLength(text));
    expect([
      fitsTokens(text, Buffer.byteLength(text)),
      fitsTokens(text, estimate),
      fitsTokens(text, estimate - 1),
    ]).toEqual([true, true, false]);
  });
});
