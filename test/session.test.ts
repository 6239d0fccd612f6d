// The built server over stdio, spoken to in raw JSON-RPC lines: what McpSession answers itself (tool
// calls, the tool list, ping, with clear errors for malformed params) and what it leaves to the SDK's
// Server (initialize, unknown methods, task-augmented requests), byte for byte.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { once } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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

  it("leaves initialize, unknown methods and task-augmented calls to the SDK's Server", async () => {
    const before = upstream.requests.length;
    const lines = await exchange(
      [
        request(1, "initialize", {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "t", version: "1" },
        }),
        { jsonrpc: "2.0", method: "notifications/initialized" },
        request(2, "resources/list"),
        request(3, "tools/call", { name: "whoami", arguments: {}, task: { ttl: 1000 } }),
      ],
      3,
    );
    // The SDK answers in its own order: by id.
    const [initialized, unknown, task] = lines.map((line) => JSON.parse(line)).sort((a, b) => a.id - b.id);
    expect(initialized.result.serverInfo.name).toBe("agent-workspace-mcp");
    expect(initialized.result.capabilities).toEqual({ tools: { listChanged: false }, logging: {} });
    expect(unknown).toEqual({ jsonrpc: "2.0", id: 2, error: { code: -32601, message: "Method not found" } });
    expect(task).toEqual({
      jsonrpc: "2.0",
      id: 3,
      error: { code: -32603, message: "Server does not support task creation (required for tools/call)" },
    });
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
