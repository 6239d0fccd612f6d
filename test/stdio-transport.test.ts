// The stdio wire under the SDK's serveStdio: framing, batching of answers, and the serialization of a
// result from its upstream text. The protocol over it is tested through SDK clients in eras.test.ts.
import { PassThrough, Writable } from "node:stream";
import type { JSONRPCMessage } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { messageJson, rememberJsonText } from "../src/json-text.js";
import { LineTransport } from "../src/transports/stdio.js";

/** A stdout that records each write it was given. */
function recordingOutput() {
  const writes: string[] = [];
  const output = new Writable({
    write(chunk: Buffer, _encoding, done) {
      writes.push(chunk.toString("utf8"));
      done();
    },
  });
  return { output, writes };
}

async function started(input = new PassThrough(), maxLineBytes?: number) {
  const { output, writes } = recordingOutput();
  const transport = new LineTransport(input, output, maxLineBytes);
  const received: JSONRPCMessage[] = [];
  const errors: string[] = [];
  transport.onmessage = (message) => received.push(message);
  transport.onerror = (error) => errors.push(error.message);
  await transport.start();
  return { transport, input, writes, received, errors };
}

const ping = (id: number) => ({ jsonrpc: "2.0" as const, id, method: "ping" });

describe("LineTransport", () => {
  it("sends the answers finished in one turn in one write, one line each", async () => {
    const { transport, writes } = await started();
    await Promise.all([
      transport.send({ jsonrpc: "2.0", id: 1, result: {} }),
      transport.send({ jsonrpc: "2.0", id: 2, result: {} }),
    ]);
    expect(writes).toEqual(['{"jsonrpc":"2.0","id":1,"result":{}}\n{"jsonrpc":"2.0","id":2,"result":{}}\n']);
  });

  it("reads a message split across reads whole, with a CR before its newline", async () => {
    const { input, received } = await started();
    for (const byte of Buffer.from(`${JSON.stringify(ping(1))}\r\n${JSON.stringify(ping(2))}\n`)) {
      input.write(Buffer.from([byte]));
    }
    await new Promise((resolve) => setImmediate(resolve));
    expect(received).toEqual([ping(1), ping(2)]);
  });

  it("skips a line that is not JSON, reports one that is not JSON-RPC, and reads on", async () => {
    const { input, received, errors } = await started();
    input.write(`not json\n{"jsonrpc":"1.0","id":1,"method":"ping"}\n${JSON.stringify(ping(3))}\n`);
    await new Promise((resolve) => setImmediate(resolve));
    expect(received).toEqual([ping(3)]);
    expect(errors).toHaveLength(1);
  });

  it("drops a line longer than its bound, not the connection", async () => {
    const { input, received, errors } = await started(new PassThrough(), 64);
    input.write(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${"x".repeat(100)}`);
    input.write(`"}}\n${JSON.stringify(ping(2))}\n`);
    await new Promise((resolve) => setImmediate(resolve));
    expect(received).toEqual([ping(2)]);
    expect(errors).toEqual(["a line of over 64 bytes was dropped"]);
  });

  it("closes when its input ends, and refuses to send after", async () => {
    const { transport, input } = await started();
    let closed = false;
    transport.onclose = () => {
      closed = true;
    };
    input.end();
    await new Promise((resolve) => setImmediate(resolve));
    expect(closed).toBe(true);
    await expect(transport.send(ping(1))).rejects.toThrow("closed");
  });
});

describe("messageJson", () => {
  it("writes structuredContent from the upstream's own text, the rest as JSON.stringify", () => {
    const text = '{"items": [{"id": 1}], "next_cursor": null}';
    const body = JSON.parse(text) as Record<string, unknown>;
    rememberJsonText(body, text);
    const message = {
      result: { content: [{ type: "text", text }], structuredContent: body, isError: false },
      jsonrpc: "2.0",
      id: 7,
    };
    const json = messageJson(message);
    expect(json).toBe(
      `{"result":{"content":[{"type":"text","text":${JSON.stringify(text)}}],"isError":false,"structuredContent":${text}},"jsonrpc":"2.0","id":7}`,
    );
    expect(JSON.parse(json)).toEqual(message);
  });

  it("is JSON.stringify for any message without a known text", () => {
    const messages = [
      { result: { structuredContent: { a: 1 } }, jsonrpc: "2.0", id: "x" },
      { jsonrpc: "2.0", id: 1, error: { code: -32602, message: "bad" } },
      { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 1, progress: 1 } },
    ];
    for (const message of messages) expect(messageJson(message)).toBe(JSON.stringify(message));
  });
});
