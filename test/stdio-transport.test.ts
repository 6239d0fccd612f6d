// The stdio transport on its own, fed chunk by chunk: lines split anywhere (even inside a UTF-8
// character), CRLF, blank lines and bad lines, and answers of one event-loop turn written together.
import { PassThrough } from "node:stream";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { StdioTransport } from "../src/transports/stdio.js";

function harness() {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const writes: string[] = [];
  stdout.on("data", (chunk: Buffer) => writes.push(chunk.toString("utf8")));
  const transport = new StdioTransport(stdin, stdout);
  const received: JSONRPCMessage[] = [];
  const errors: string[] = [];
  transport.onmessage = (message) => received.push(message);
  transport.onerror = (error) => errors.push(error.message);
  return { stdin, transport, received, errors, writes };
}

/** Lets the stream deliver what was written, and the transport flush what it batched. */
const settle = () => new Promise((resolve) => setImmediate(() => setImmediate(resolve)));

describe("StdioTransport", () => {
  it("joins lines split across chunks, even inside a multi-byte character", async () => {
    const { stdin, transport, received, errors } = harness();
    await transport.start();
    const line = Buffer.from(
      `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "é€😀" } })}\n`,
    );
    const emoji = line.indexOf(Buffer.from("😀"));
    for (const [from, to] of [
      [0, 5],
      [5, emoji + 1],
      [emoji + 1, emoji + 3],
      [emoji + 3, line.length],
    ]) {
      stdin.write(line.subarray(from, to));
      await settle();
    }
    expect(received).toEqual([{ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "é€😀" } }]);
    expect(errors).toEqual([]);
  });

  it("takes several lines from one chunk, CRLF endings too, and skips blank lines", async () => {
    const { stdin, transport, received, errors } = harness();
    await transport.start();
    stdin.write(
      '{"jsonrpc":"2.0","id":1,"method":"ping"}\r\n\n  \n{"jsonrpc":"2.0","method":"notifications/initialized"}\n{"jsonrpc":"2.0",',
    );
    await settle();
    expect(received).toEqual([
      { jsonrpc: "2.0", id: 1, method: "ping" },
      { jsonrpc: "2.0", method: "notifications/initialized" },
    ]);
    stdin.write('"id":2,"method":"ping"}\n');
    await settle();
    expect(received.at(-1)).toEqual({ jsonrpc: "2.0", id: 2, method: "ping" });
    expect(errors).toEqual([]);
  });

  it("reports a line that is not JSON or not JSON-RPC without its content, and goes on", async () => {
    const { stdin, transport, received, errors } = harness();
    await transport.start();
    stdin.write(
      '{"api_key":"sk-secret"\n{"jsonrpc":"1.0","id":1,"method":"ping"}\n{"jsonrpc":"2.0","id":3,"method":"ping"}\n',
    );
    await settle();
    expect(errors).toEqual([
      "stdin: a line that is not JSON was ignored",
      "stdin: a line that is not a JSON-RPC 2.0 message was ignored",
    ]);
    expect(received).toEqual([{ jsonrpc: "2.0", id: 3, method: "ping" }]);
  });

  it("drops a line that grows past 16 MiB without a newline, and reads the lines after it", async () => {
    const { stdin, transport, received, errors } = harness();
    await transport.start();
    const mebibyte = Buffer.alloc(1024 * 1024, "x");
    for (let sent = 0; sent <= 16; sent++) {
      stdin.write(mebibyte);
      await settle();
    }
    stdin.write('x\n{"jsonrpc":"2.0","id":9,"method":"ping"}\n');
    await settle();
    expect(errors).toEqual([
      "stdin: a line of over 16777216 bytes was dropped",
      "stdin: a line that is not JSON was ignored",
    ]);
    expect(received).toEqual([{ jsonrpc: "2.0", id: 9, method: "ping" }]);
  });

  it("writes the answers of one turn in one write, and a large one on its own", async () => {
    const { transport, writes } = harness();
    await transport.start();
    const big = { jsonrpc: "2.0" as const, id: 3, result: { text: "x".repeat(40_000) } };
    const sent = [
      transport.send({ jsonrpc: "2.0", id: 1, result: {} }),
      transport.send({ jsonrpc: "2.0", id: 2, result: { ok: true } }),
      transport.send(big),
    ];
    await Promise.all(sent);
    await settle();
    expect(writes).toEqual([
      '{"jsonrpc":"2.0","id":1,"result":{}}\n{"jsonrpc":"2.0","id":2,"result":{"ok":true}}\n',
      `${JSON.stringify(big)}\n`,
    ]);
  });

  it("close flushes what is pending, stops reading and reports the end once", async () => {
    const { stdin, transport, received, writes } = harness();
    let closes = 0;
    transport.onclose = () => closes++;
    await transport.start();
    void transport.send({ jsonrpc: "2.0", id: 1, result: {} });
    await transport.close();
    await transport.close();
    stdin.write('{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
    await settle();
    expect(writes).toEqual(['{"jsonrpc":"2.0","id":1,"result":{}}\n']);
    expect(received).toEqual([]);
    expect(closes).toBe(1);
  });
});
