// The bench's stdio driver checks answers as their bytes arrive, without keeping them: what it reports
// for a line must not depend on where the reads split it, or the bench would count failures as calls.
import { describe, expect, it } from "vitest";
import { decode, HEAD_BYTES } from "../bench/jsonrpc.js";
import { LineScanner, StdioMcpDriver } from "../bench/stdio-driver.js";
import { TOOL_LIST } from "../src/tools/register.js";

const CLI = new URL("../dist/cli.js", import.meta.url).pathname;

interface Seen {
  head: string;
  tail: string;
  toolError: boolean;
  whole?: string;
}

/** What the scanner reports for `text` fed as the given reads. */
function scan(reads: Buffer[], keepWhole: boolean): Seen[] {
  const seen: Seen[] = [];
  const scanner = new LineScanner(
    (head, tail, toolError, whole) =>
      seen.push({ head: head.toString(), tail: tail.toString(), toolError, whole: whole?.toString() }),
    () => keepWhole,
  );
  // Each read is handed over in a buffer that is overwritten afterwards, as onread does.
  const reused = Buffer.alloc(Math.max(...reads.map((read) => read.length), 1));
  for (const read of reads) {
    read.copy(reused);
    scanner.push(reused.subarray(0, read.length));
    reused.fill(0x2a);
  }
  return seen;
}

const toolError = `{"result":{"content":[{"type":"text","text":"no such task: ${"x".repeat(900)}"}],"isError":true},"jsonrpc":"2.0","id":7}`;
const success = `{"result":{"content":[{"type":"text","text":"{\\"isError\\":false}"}],"structuredContent":{"a":"${"é".repeat(400)}","lastError":true}},"jsonrpc":"2.0","id":8}`;
const list = `{"result":{"tools":[{"name":"x","description":"mentions \\"isError\\":true in prose"}]},"jsonrpc":"2.0","id":9}`;
const rpcError = '{"jsonrpc":"2.0","id":10,"error":{"code":-32601,"message":"Method not found"}}';
const lines = [toolError, success, list, rpcError];
const stream = Buffer.from(lines.map((line) => `${line}\n`).join(""));

function expected(keepWhole: boolean): Seen[] {
  return lines.map((line) => {
    const bytes = Buffer.from(line);
    return {
      head: bytes.subarray(0, HEAD_BYTES).toString(),
      tail: bytes.subarray(-64).toString(),
      toolError: line === toolError,
      whole: keepWhole ? line : undefined,
    };
  });
}

describe("the bench's stdio line scanner", () => {
  it("reports the same head, tail, tool-error flag and whole line wherever one split falls", () => {
    for (let split = 0; split <= stream.length; split++) {
      const seen = scan([stream.subarray(0, split), stream.subarray(split)], true);
      expect(seen, `split at ${split}`).toEqual(expected(true));
    }
  });

  it("finds a tool-error marker split byte by byte, and keeps nothing whole unless asked", () => {
    const reads = [...stream].map((byte) => Buffer.from([byte]));
    expect(scan(reads, false)).toEqual(expected(false));
  });

  it("drives the built server: ids matched, tool errors flagged, whole answers decoded", async () => {
    const driver = await StdioMcpDriver.spawn([CLI], { PATH: process.env.PATH });
    try {
      const first = await driver.initialize("tools/list");
      expect(first.head).toBe(
        JSON.stringify({ result: TOOL_LIST, jsonrpc: "2.0", id: 2 }).slice(0, HEAD_BYTES),
      );
      expect(first.toolError).toBe(false);
      expect(first.text).toBeUndefined();
      const [listed, refused, pinged] = await Promise.all([
        driver.request("tools/list", undefined, { whole: true }),
        driver.request("tools/call", { name: "whoami", arguments: { extra: 1 } }),
        driver.request("ping"),
      ]);
      expect(decode(listed)).toEqual({ result: TOOL_LIST, jsonrpc: "2.0", id: 3 });
      expect(refused.toolError).toBe(true);
      const text = "whoami: invalid arguments, nothing was sent. Fix and call again:\n- extra: unknown key; allowed here: workspace_id";
      const result = { content: [{ type: "text", text }], isError: true };
      expect(refused.head).toBe(JSON.stringify({ result, jsonrpc: "2.0", id: 4 }));
      expect(pinged).toEqual({
        head: '{"result":{},"jsonrpc":"2.0","id":5}',
        toolError: false,
        text: undefined,
      });
    } finally {
      await driver.close();
    }
  });
});
