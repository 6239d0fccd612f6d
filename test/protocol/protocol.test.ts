// The built server over stdio, spoken to in raw JSON-RPC lines: what the SDK answers in each era for
// this server's capabilities, the errors a malformed request gets (and that the server goes on), the
// log entries a client gets only when it asked, and the upstream's own JSON text in the text block.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { once } from "node:events";
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  LOG_LEVEL_META_KEY,
  PROTOCOL_VERSION_META_KEY,
} from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ANALYTICS_GUIDE, DATA_GUIDE, WORKSPACE_GUIDE } from "../../src/server.js";
import { SERVER_VERSION } from "../../src/version.js";
import { CLI, childEnv, type Recorder, startRecorder } from "../helpers.js";

const KEY = "sk-protocol-test-key";
const WHOAMI = { user: { id: "u1" }, projects: [] };

/** whoami's answer to KEY: JSON as JSON.stringify writes it. */
const COMPACT = JSON.stringify(WHOAMI);
/** The key of the 2025 connection, whose whoami answers are these in turn: spaced on one line, then indented. */
const FORMATS_KEY = "sk-formats";
const FORMATTED = ['  {"user": {"id": "u1"}, "projects": [ ]}\n', JSON.stringify(WHOAMI, null, 2)];

let upstream: Recorder;

/**
 * A spawned stdio server spoken to in raw lines. One connection serves several tests in turn: each
 * exchange writes its messages at once and waits for its own answers before the next one starts.
 */
interface StdioServer {
  /** The server's answer lines for `messages`, written at once: the next `answers` lines. */
  exchange(messages: object[], answers: number): Promise<unknown[]>;
  /** Closes stdin and waits for the server to exit. */
  close(): Promise<void>;
}

function spawnServer(key = KEY): StdioServer {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [CLI], {
    env: childEnv({
      WORKSPACE_BASE_URL: upstream.url,
      WORKSPACE_API_KEY: key,
      WORKSPACE_PROJECT_ID: "11111111-1111-4111-8111-111111111111",
      LOG_LEVEL: "error",
    }),
  });
  const exited = once(child, "exit");
  const lines: string[] = [];
  let buffered = "";
  let waiter: { count: number; wake: () => void } | undefined;
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    buffered += chunk;
    const complete = buffered.split("\n");
    buffered = complete.pop() ?? "";
    lines.push(...complete);
    if (waiter && lines.length >= waiter.count) waiter.wake();
  });
  let taken = 0;
  return {
    async exchange(messages, answers) {
      const count = taken + answers;
      const done = new Promise<void>((wake) => {
        waiter = { count, wake };
        if (lines.length >= count) wake();
      });
      child.stdin.write(messages.map((message) => `${JSON.stringify(message)}\n`).join(""));
      await done;
      const mine = lines.slice(taken, count);
      taken = count;
      return mine.map((line) => JSON.parse(line));
    },
    async close() {
      child.stdin.end();
      await exited;
    },
  };
}

// The two processes start together, one per era. The 2025 tests take turns on one connection, each
// initializing as it did alone (none sets a log level before the test about logging/setLevel, the
// last); the 2026-07-28 tests on the other, the refusal of another revision first, so that its first
// request is the one that opens the connection.
let legacyServer: StdioServer;
let modernServer: StdioServer;

beforeAll(async () => {
  const formatted = [...FORMATTED];
  upstream = await startRecorder((request) => {
    if (request.path.endsWith("/tasks/query")) return { status: 404, body: { detail: "no such task" } };
    return { body: request.headers["x-api-key"] === FORMATS_KEY ? formatted.shift() : COMPACT };
  });
  legacyServer = spawnServer(FORMATS_KEY);
  modernServer = spawnServer();
});
afterAll(async () => {
  await Promise.all([legacyServer, modernServer].map((server) => server.close()));
  await upstream.close();
});

const request = (id: number, method: string, params?: object) => ({ jsonrpc: "2.0", id, method, params });
const initialize = (id: number, protocolVersion: string) =>
  request(id, "initialize", { protocolVersion, capabilities: {}, clientInfo: { name: "t", version: "1" } });

/** A 2026-07-28 request: no initialize, the revision and the client in every request's `_meta`. */
function modern(id: number, method: string, params: Record<string, unknown> = {}, meta: object = {}) {
  const envelope = {
    [PROTOCOL_VERSION_META_KEY]: "2026-07-28",
    [CLIENT_INFO_META_KEY]: { name: "raw", version: "1" },
    [CLIENT_CAPABILITIES_META_KEY]: {},
    ...meta,
  };
  return request(id, method, { ...params, _meta: envelope });
}

const CAPABILITIES = {
  tools: { listChanged: false },
  logging: {},
  prompts: { listChanged: false },
  completions: {},
  resources: {},
  extensions: { "io.modelcontextprotocol/skills": {} },
};
const INSTRUCTIONS = `${WORKSPACE_GUIDE}\n${ANALYTICS_GUIDE}\n${DATA_GUIDE}`;

describe("the 2025 revisions over stdio", () => {
  it("answers initialize for a supported revision with it, and for any other with the latest 2025 one", async () => {
    const [supported, other] = (await legacyServer.exchange(
      [initialize(1, "2025-06-18"), initialize(2, "1999-01-01")],
      2,
    )) as { result: { protocolVersion: string } }[];
    expect(supported).toEqual({
      jsonrpc: "2.0",
      id: 1,
      result: {
        protocolVersion: "2025-06-18",
        capabilities: CAPABILITIES,
        serverInfo: { name: "agent-workspace-mcp", version: SERVER_VERSION },
        instructions: INSTRUCTIONS,
      },
    });
    expect(other?.result.protocolVersion).toBe("2025-11-25");
  });

  // The codes are the SDK's: -32602 for tools/call params, -32603 for other params it finds malformed.
  it("refuses malformed params and unknown methods with JSON-RPC errors, sends nothing, and goes on", async () => {
    const before = upstream.requests.length;
    const answers = (await legacyServer.exchange(
      [
        initialize(1, "2025-11-25"),
        request(2, "tools/call", { arguments: {} }),
        request(3, "tools/call", { name: "whoami", arguments: [1] }),
        request(4, "tools/list", { cursor: 5 }),
        request(5, "logging/setLevel", { level: "loud" }),
        request(6, "resources/subscribe", { uri: "ui://agent-workspace-mcp/report-view.html" }),
        request(7, "ping"),
      ],
      7,
    )) as { id: number; error?: { code: number }; result?: unknown }[];
    const byId = answers.sort((a, b) => a.id - b.id);
    expect(byId.map((answer) => [answer.id, answer.error?.code ?? answer.result])).toEqual([
      [1, expect.anything()],
      [2, -32602],
      [3, -32602],
      [4, -32603],
      [5, -32603],
      [6, -32601],
      [7, {}],
    ]);
    expect(upstream.requests.length).toBe(before);
  });

  it("carries the upstream's own JSON text when it is one line, and JSON.stringify of the body otherwise", async () => {
    const call = request(2, "tools/call", { name: "whoami", arguments: {} });
    const [, spaced] = (await legacyServer.exchange([initialize(1, "2025-11-25"), call], 2)) as {
      result: unknown;
    }[];
    expect(spaced?.result).toEqual({
      content: [{ type: "text", text: '{"user": {"id": "u1"}, "projects": [ ]}' }],
      structuredContent: WHOAMI,
    });
    const [, indented] = (await legacyServer.exchange([initialize(1, "2025-11-25"), call], 2)) as {
      result: unknown;
    }[];
    expect(indented?.result).toEqual({
      content: [{ type: "text", text: JSON.stringify(WHOAMI) }],
      structuredContent: WHOAMI,
    });
  });

  it("sends log entries only after logging/setLevel, at that level and above", async () => {
    const failing = (id: number) =>
      request(id, "tools/call", { name: "tasks_query", arguments: { view: "list" } });
    const unasked = (await legacyServer.exchange([initialize(1, "2025-11-25"), failing(2)], 2)) as {
      id?: number;
    }[];
    expect(unasked.map((answer) => answer.id)).toEqual([1, 2]);
    const asked = (await legacyServer.exchange(
      [initialize(1, "2025-11-25"), request(2, "logging/setLevel", { level: "warning" }), failing(3)],
      4,
    )) as { id?: number; method?: string; params?: unknown }[];
    expect(asked.map((answer) => answer.id ?? answer.method)).toEqual([1, 2, "notifications/message", 3]);
    expect(asked[2]?.params).toEqual({
      level: "warning",
      logger: "agent-workspace-mcp",
      data: { message: "tool call failed", tool: "tasks_query", status: 404 },
    });
  });
});

describe("the 2026-07-28 revision over stdio", () => {
  it("refuses a request for another revision, naming the ones served: the opening one, and any after it", async () => {
    const unsupported = (id: number, requested: string) => ({
      jsonrpc: "2.0",
      id,
      error: {
        code: -32022,
        message: `Unsupported protocol version: ${requested}`,
        data: { supported: ["2026-07-28"], requested },
      },
    });
    const other = (id: number, revision: string) =>
      modern(id, "tools/list", {}, { [PROTOCOL_VERSION_META_KEY]: revision });
    // The opening request: refused by the SDK, and the connection is still unopened.
    expect(await modernServer.exchange([other(1, "2099-01-01")], 1)).toEqual([unsupported(1, "2099-01-01")]);
    const [served] = (await modernServer.exchange([modern(2, "tools/list")], 1)) as {
      id: number;
      result: { tools: unknown[] };
    }[];
    expect([served?.id, served?.result.tools.length]).toEqual([2, 14]);
    // Once the connection serves 2026-07-28, a request naming another revision is refused the same way.
    expect(await modernServer.exchange([other(3, "2099-01-01"), other(4, "2025-11-25")], 2)).toEqual([
      unsupported(3, "2099-01-01"),
      unsupported(4, "2025-11-25"),
    ]);
    const [after] = (await modernServer.exchange([modern(5, "tools/list")], 1)) as {
      id: number;
      result: { tools: unknown[] };
    }[];
    expect([after?.id, after?.result.tools.length]).toEqual([5, 14]);
  });

  it("answers server/discover and a tool call with no initialize, each result marked complete", async () => {
    const [discover, call] = (await modernServer.exchange(
      [modern(1, "server/discover"), modern(2, "tools/call", { name: "whoami", arguments: {} })],
      2,
    )) as { result: Record<string, unknown> }[];
    expect(discover?.result).toMatchObject({
      supportedVersions: expect.arrayContaining(["2026-07-28"]),
      capabilities: CAPABILITIES,
      instructions: INSTRUCTIONS,
      resultType: "complete",
    });
    expect(call?.result).toMatchObject({
      content: [{ type: "text", text: COMPACT }],
      structuredContent: WHOAMI,
      resultType: "complete",
    });
  });

  it("sends log entries only for a request that asks with a logLevel", async () => {
    const failing = (id: number, meta: object = {}) =>
      modern(id, "tools/call", { name: "tasks_query", arguments: { view: "list" } }, meta);
    type Line = { id?: number; method?: string; params?: unknown };
    // One after the other: written together, the two calls' lines could interleave either way.
    const unasked = (await modernServer.exchange([failing(1)], 1)) as Line[];
    expect(unasked.map((answer) => answer.id ?? answer.method)).toEqual([1]);
    const answers = (await modernServer.exchange(
      [failing(2, { [LOG_LEVEL_META_KEY]: "warning" })],
      2,
    )) as Line[];
    expect(answers.map((answer) => answer.id ?? answer.method)).toEqual(["notifications/message", 2]);
    expect(answers[0]?.params).toEqual({
      level: "warning",
      logger: "agent-workspace-mcp",
      data: { message: "tool call failed", tool: "tasks_query", status: 404 },
    });
  });
});
