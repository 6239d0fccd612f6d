// The built server over stdio, spoken to in raw JSON-RPC lines, byte for byte: what McpSession answers
// (as the SDK's Server did, compared with one in memory), and the clear errors for malformed params.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { once } from "node:events";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  type JSONRPCMessage,
  LATEST_PROTOCOL_VERSION as SDK_LATEST_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS as SDK_SUPPORTED_VERSIONS,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ANALYTICS_GUIDE, WORKSPACE_GUIDE } from "../src/server.js";
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from "../src/session.js";
import { SERVER_VERSION } from "../src/version.js";
import { CLI, childEnv, type Recorder, startRecorder } from "./helpers.js";

const KEY = "sk-session-test-key";
const WHOAMI = { user: { id: "u1" }, projects: [] };

/** whoami answers by the key asked with: JSON as JSON.stringify writes it, spaced on one line, or indented. */
const BODIES: Record<string, string> = {
  [KEY]: JSON.stringify(WHOAMI),
  "sk-spaced": '  {"user": {"id": "u1"}, "projects": [ ]}\n',
  "sk-indented": JSON.stringify(WHOAMI, null, 2),
};

let upstream: Recorder;

beforeAll(async () => {
  upstream = await startRecorder((request) => ({ body: BODIES[String(request.headers["x-api-key"])] }));
});
afterAll(() => upstream.close());

/** The server's answer lines for `messages`, written at once; stdin closes after the last answer. */
async function exchange(messages: object[], answers: number, key = KEY): Promise<string[]> {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [CLI], {
    env: childEnv({ WORKSPACE_BASE_URL: upstream.url, WORKSPACE_API_KEY: key, LOG_LEVEL: "error" }),
  });
  const lines: string[] = [];
  let buffered = "";
  const done = new Promise<void>((resolve) => {
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      buffered += chunk;
      const complete = buffered.split("\n");
      buffered = complete.pop() ?? "";
      lines.push(...complete);
      if (lines.length >= answers) resolve();
    });
  });
  child.stdin.write(messages.map((message) => `${JSON.stringify(message)}\n`).join(""));
  await done;
  const exited = once(child, "exit");
  child.stdin.end();
  await exited;
  return lines;
}

const request = (id: number, method: string, params?: object) => ({ jsonrpc: "2.0", id, method, params });
const initialize = (id: number, protocolVersion: string) =>
  request(id, "initialize", { protocolVersion, capabilities: {}, clientInfo: { name: "t", version: "1" } });

/** What the SDK's own Server, with this server's identity, answers to `messages` (in memory). */
async function sdkServerAnswers(messages: object[]): Promise<unknown[]> {
  const server = new Server(
    { name: "agent-workspace-mcp", version: SERVER_VERSION },
    {
      capabilities: { tools: { listChanged: false }, logging: {} },
      instructions: `${WORKSPACE_GUIDE}\n${ANALYTICS_GUIDE}`,
    },
  );
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const answers: unknown[] = [];
  const all = new Promise<void>((resolve) => {
    clientSide.onmessage = (message) => {
      answers.push(message);
      if (answers.length === messages.length) resolve();
    };
  });
  await server.connect(serverSide);
  await clientSide.start();
  for (const message of messages) await clientSide.send(message as JSONRPCMessage);
  await all;
  await server.close();
  return answers;
}
const invalidParams = (id: number, message: string) =>
  JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32602, message } });

describe("McpSession over stdio", () => {
  it("refuses malformed tools/call and tools/list params with -32602 and what to fix; nothing is sent", async () => {
    const before = upstream.requests.length;
    const lines = await exchange(
      [
        request(1, "tools/call", { arguments: {} }),
        request(2, "tools/call", { name: "whoami", arguments: [1] }),
        request(3, "tools/call", { name: "whoami", arguments: "not json" }),
        request(4, "tools/list", { cursor: 5 }),
      ],
      4,
    );
    expect(lines).toEqual([
      invalidParams(
        1,
        "Invalid params: tools/call needs params.name, the name of a tool from tools/list (got undefined)",
      ),
      invalidParams(
        2,
        "Invalid params: tools/call params.arguments must be an object of the tool's arguments (got an array)",
      ),
      invalidParams(
        3,
        "Invalid params: tools/call params.arguments must be an object of the tool's arguments (got string)",
      ),
      invalidParams(4, "Invalid params: tools/list params.cursor must be a string (got number)"),
    ]);
    expect(upstream.requests.length).toBe(before);
  });

  it("answers ping, and a tool call whose arguments came as JSON text, without initialize first", async () => {
    const before = upstream.requests.length;
    const lines = await exchange(
      [request(1, "ping"), request(2, "tools/call", { name: "whoami", arguments: "{}" })],
      2,
    );
    const text = JSON.stringify(WHOAMI);
    expect(lines).toEqual([
      '{"result":{},"jsonrpc":"2.0","id":1}',
      JSON.stringify({
        result: { content: [{ type: "text", text }], structuredContent: WHOAMI },
        jsonrpc: "2.0",
        id: 2,
      }),
    ]);
    const sent = upstream.requests.slice(before);
    expect(sent.map(({ method, path }) => `${method} ${path}`)).toEqual(["GET /api/v1/business/whoami"]);
    expect(sent[0]?.headers["x-api-key"]).toBe(KEY);
  });

  it("answers initialize as the SDK's Server does, for a supported version and for any other", async () => {
    const sdkAnswers = await sdkServerAnswers([initialize(1, "2025-06-18"), initialize(2, "1999-01-01")]);
    const lines = await exchange([initialize(1, "2025-06-18"), initialize(2, "1999-01-01")], 2);
    expect(lines.map((line) => JSON.parse(line))).toEqual(sdkAnswers);
    const [supported, other] = sdkAnswers as { result: { protocolVersion: string } }[];
    expect([supported?.result.protocolVersion, other?.result.protocolVersion]).toEqual([
      "2025-06-18",
      LATEST_PROTOCOL_VERSION,
    ]);
    expect(lines[0]).toBe(
      JSON.stringify({
        result: {
          protocolVersion: "2025-06-18",
          capabilities: { tools: { listChanged: false }, logging: {} },
          serverInfo: { name: "agent-workspace-mcp", version: SERVER_VERSION },
          instructions: `${WORKSPACE_GUIDE}\n${ANALYTICS_GUIDE}`,
        },
        jsonrpc: "2.0",
        id: 1,
      }),
    );
  });

  it("keeps the SDK's list of protocol versions", () => {
    expect(SUPPORTED_PROTOCOL_VERSIONS).toEqual(SDK_SUPPORTED_VERSIONS);
    expect(LATEST_PROTOCOL_VERSION).toBe(SDK_LATEST_VERSION);
  });

  it("refuses malformed initialize and setLevel, task augmentation and unknown methods, and goes on", async () => {
    const before = upstream.requests.length;
    const lines = await exchange(
      [
        request(1, "initialize", { protocolVersion: "2025-06-18", capabilities: {} }),
        request(2, "logging/setLevel", { level: "loud" }),
        request(3, "logging/setLevel", { level: "debug" }),
        request(4, "tools/call", { name: "whoami", arguments: {}, task: { ttl: 1000 } }),
        request(5, "resources/list"),
        request(6, "ping"),
      ],
      6,
    );
    expect(lines).toEqual([
      invalidParams(
        1,
        "Invalid params: initialize needs params.protocolVersion (a string), params.capabilities (an object) and params.clientInfo with a name and a version (strings)",
      ),
      invalidParams(
        2,
        "Invalid params: logging/setLevel params.level must be one of debug, info, notice, warning, error, critical, alert, emergency",
      ),
      '{"result":{},"jsonrpc":"2.0","id":3}',
      invalidParams(
        4,
        "Invalid params: this server does not run tools/call as a task; send it without params.task",
      ),
      JSON.stringify({ jsonrpc: "2.0", id: 5, error: { code: -32601, message: "Method not found" } }),
      '{"result":{},"jsonrpc":"2.0","id":6}',
    ]);
    expect(upstream.requests.length).toBe(before);
  });

  it("carries the upstream's own JSON text when it is one line, and JSON.stringify of the body otherwise", async () => {
    const call = request(1, "tools/call", { name: "whoami", arguments: {} });
    const [spaced] = await exchange([call], 1, "sk-spaced");
    const text = '{"user": {"id": "u1"}, "projects": [ ]}';
    expect(spaced).toBe(
      `{"result":{"content":[{"type":"text","text":${JSON.stringify(text)}}],"structuredContent":${text}},"jsonrpc":"2.0","id":1}`,
    );
    expect(JSON.parse(spaced!).result.structuredContent).toEqual(WHOAMI);
    const [indented] = await exchange([call], 1, "sk-indented");
    const compact = JSON.stringify(WHOAMI);
    expect(indented).toBe(
      JSON.stringify({
        result: { content: [{ type: "text", text: compact }], structuredContent: WHOAMI },
        jsonrpc: "2.0",
        id: 1,
      }),
    );
  });
});
