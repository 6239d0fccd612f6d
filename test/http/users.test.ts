// Per-user upstream credentials over HTTP: X-API-KEY, X-Project-Id and X-Workspace-Id of the MCP request
// override the environment, per session (stateful) or per request (stateless), and never cross users.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ImpliedProjectCache } from "../../src/clients/project-cache.js";
import { type RecordedRequest, type Recorder, startRecorder } from "../helpers.js";
import {
  callTool,
  capturingLog,
  type HttpHarness,
  initializeBody,
  MCP_HEADERS,
  openRawSession,
  rawRequest,
  rpcError,
  sseMessages,
  startHttp,
  toolCallBody,
} from "../http-helpers.js";

const KEY_A = "key-of-user-a";
const KEY_B = "key-of-user-b";
const PROJECT_A = "aaaaaaaa-0000-4000-8000-000000000001";
const PROJECT_B = "bbbbbbbb-0000-4000-8000-000000000002";
const WORKSPACE_A = "aaaaaaaa-0000-4000-8000-00000000000a";
const ENV_PROJECT = "eeeeeeee-0000-4000-8000-00000000000e";
const CALLS_PER_USER = 10;

/** whoami lists one project per key; every other endpoint answers an empty page. */
function answer(request: RecordedRequest) {
  if (request.path.endsWith("/whoami")) {
    const key = request.headers["x-api-key"];
    return { body: { projects: [{ id: key === KEY_A ? PROJECT_A : PROJECT_B, name: String(key) }] } };
  }
  if (request.path.startsWith("/v2/")) return { body: { data: [], info: { total_rows: 0 } } };
  return { body: { items: [], has_more: false } };
}

let upstream: Recorder;
beforeEach(async () => {
  upstream = await startRecorder(answer);
});
afterEach(async () => {
  await upstream.close();
});

function startServer(argv: string[], env: Record<string, string> = {}): Promise<HttpHarness> {
  return startHttp(argv, { workspaceBaseUrl: upstream.url, analyticsBaseUrl: upstream.url, ...env });
}

/** Each client calls a workspace tool and an analytics tool CALLS_PER_USER times, all at once. */
async function callConcurrently(clients: Client[]): Promise<void> {
  const calls = clients.flatMap((client) =>
    Array.from({ length: CALLS_PER_USER }, (_, i) => [
      callTool(client, "tasks_query", { view: "list", query: { pagination: { page_size: i + 1 } } }),
      callTool(client, "geo_projects"),
    ]).flat(),
  );
  for (const result of await Promise.all(calls)) expect(result.isError).toBeUndefined();
}

/** Upstream requests as (key, project, workspace, path) rows, counted. */
function tally(requests: RecordedRequest[]): Record<string, number> {
  const rows: Record<string, number> = {};
  for (const { headers, path } of requests) {
    const row = [headers["x-api-key"], headers["x-project-id"], headers["x-workspace-id"], path].join(" ");
    rows[row] = (rows[row] ?? 0) + 1;
  }
  return rows;
}

const EXPECTED_TALLY = {
  [`${KEY_A} ${PROJECT_A} ${WORKSPACE_A} /api/v1/business/tasks/query`]: CALLS_PER_USER,
  [`${KEY_A}   /v2/geo/business/projects`]: CALLS_PER_USER,
  [`${KEY_B} ${PROJECT_B}  /api/v1/business/tasks/query`]: CALLS_PER_USER,
  [`${KEY_B}   /v2/geo/business/projects`]: CALLS_PER_USER,
};

const USER_A = { "X-API-KEY": KEY_A, "X-Project-Id": PROJECT_A, "X-Workspace-Id": WORKSPACE_A };
const USER_B = { "X-API-KEY": KEY_B, "X-Project-Id": PROJECT_B };

describe.each([
  ["stateful", []],
  ["stateless", ["--stateless"]],
])("per-user credentials, %s", (_mode, argv) => {
  it("two clients with different keys, concurrently: each upstream request carries its own client's key and defaults", async () => {
    const harness = await startServer(argv, { workspaceApiKey: "env-key", workspaceProjectId: ENV_PROJECT });
    try {
      const clients = [await harness.connect(USER_A), await harness.connect(USER_B)];
      await callConcurrently(clients);
      expect(tally(upstream.requests)).toEqual(EXPECTED_TALLY);
      await Promise.all(clients.map((client) => client.close()));
    } finally {
      await harness.close();
    }
  });

  it("without the headers, the environment's key and project are used", async () => {
    const harness = await startServer(argv, { workspaceApiKey: "env-key", workspaceProjectId: ENV_PROJECT });
    try {
      const client = await harness.connect();
      expect((await callTool(client, "tasks_query", { view: "list" })).isError).toBeUndefined();
      expect(tally(upstream.requests)).toEqual({
        [`env-key ${ENV_PROJECT}  /api/v1/business/tasks/query`]: 1,
      });
      await client.close();
    } finally {
      await harness.close();
    }
  });

  it("a malformed X-Project-Id is a 400 that does not echo the value", async () => {
    const harness = await startServer(argv);
    try {
      const response = await rawRequest(harness.url, {
        method: "POST",
        headers: { ...MCP_HEADERS, "x-project-id": "not-a-uuid-but-maybe-a-key" },
        body: initializeBody(),
      });
      expect([response.status, response.body]).toEqual([
        400,
        rpcError(-32600, "Bad Request: the X-Project-Id header must be a uuid (8-4-4-4-12 hex digits)"),
      ]);
      const workspace = await rawRequest(harness.url, {
        method: "POST",
        headers: { ...MCP_HEADERS, "x-workspace-id": "1234" },
        body: initializeBody(),
      });
      expect([workspace.status, workspace.body]).toEqual([
        400,
        rpcError(-32600, "Bad Request: the X-Workspace-Id header must be a uuid (8-4-4-4-12 hex digits)"),
      ]);
      expect(harness.http.sessionCount()).toBe(0);
    } finally {
      await harness.close();
    }
  });

  it("a key the upstream echoes back is redacted from the result", async () => {
    const echoing = await startRecorder((request) => ({
      status: 422,
      body: {
        detail: [{ loc: ["header"], msg: `key ${request.headers["x-api-key"]} is revoked`, type: "x" }],
      },
    }));
    const harness = await startHttp(argv, { workspaceBaseUrl: echoing.url, analyticsBaseUrl: echoing.url });
    try {
      const client = await harness.connect({ "X-API-KEY": KEY_A });
      const result = await callTool(client, "whoami");
      expect(result.content).toEqual([
        {
          type: "text",
          text: "whoami: 422 Unprocessable: the API rejected the arguments: header: key [redacted] is revoked. Fix them and call again.",
        },
      ]);
      await client.close();
    } finally {
      await harness.close();
      await echoing.close();
    }
  });
});

describe("a refused key's 401 names where the key came from", () => {
  it("a user's X-API-KEY: the header; the environment's key: the variable", async () => {
    const refusing = await startRecorder(() => ({
      status: 401,
      body: { detail: "Missing or invalid API key" },
    }));
    const harness = await startHttp([], {
      workspaceBaseUrl: refusing.url,
      analyticsBaseUrl: refusing.url,
      workspaceApiKey: "env-key",
      workspaceProjectId: ENV_PROJECT,
      analyticsProjectId: ENV_PROJECT,
    });
    try {
      const user = await harness.connect({ "X-API-KEY": KEY_A });
      const header401 =
        "401 Unauthorized: the API key sent in the X-API-KEY header was refused. Fix the X-API-KEY header in this client's settings for the MCP server and reconnect.";
      expect((await callTool(user, "whoami")).content).toEqual([
        { type: "text", text: `whoami: ${header401}` },
      ]);
      expect((await callTool(user, "geo_models")).content).toEqual([
        { type: "text", text: `geo_models: ${header401}` },
      ]);
      const envUser = await harness.connect();
      expect((await callTool(envUser, "whoami")).content).toEqual([
        {
          type: "text",
          text: "whoami: 401 Unauthorized: the API key is missing or invalid. Set or fix WORKSPACE_API_KEY in this MCP server's environment.",
        },
      ]);
      expect(refusing.requests.map((request) => request.headers["x-api-key"])).toEqual([
        KEY_A,
        KEY_A,
        "env-key",
      ]);
      await Promise.all([user.close(), envUser.close()]);
    } finally {
      await harness.close();
      await refusing.close();
    }
  });
});

describe("per-user credentials, bound to the session", () => {
  it("a request on a session with another key, or none, is refused with 403 and nothing is sent upstream", async () => {
    const harness = await startServer([]);
    try {
      const sessionId = await openRawSession(harness.url, { "x-api-key": KEY_A });
      const call = (headers: Record<string, string>) =>
        rawRequest(harness.url, {
          method: "POST",
          headers: { ...MCP_HEADERS, "mcp-session-id": sessionId, ...headers },
          body: toolCallBody("whoami"),
        });
      const forbidden = rpcError(
        -32000,
        "Forbidden: this session was opened with other X-API-KEY, X-Project-Id, X-Workspace-Id or X-MCP-* headers; send the same ones, or initialize a new session",
      );
      const others: Record<string, string>[] = [
        { "x-api-key": KEY_B },
        {},
        { "x-api-key": KEY_A, "x-project-id": PROJECT_B },
      ];
      for (const headers of others) {
        const response = await call(headers);
        expect([response.status, response.body]).toEqual([403, forbidden]);
      }
      expect(upstream.requests).toEqual([]);
      const allowed = await call({ "x-api-key": KEY_A });
      expect(allowed.status).toBe(200);
      expect(sseMessages(allowed.body)).toHaveLength(1);
      expect(upstream.requests.map((request) => request.headers["x-api-key"])).toEqual([KEY_A]);
    } finally {
      await harness.close();
    }
  });
});

describe("the default project a key implies (stateless)", () => {
  it("is looked up with whoami once per key and workspace, not once per request", async () => {
    const harness = await startServer(["--stateless"]);
    try {
      const clientA = await harness.connect({ "X-API-KEY": KEY_A });
      const clientB = await harness.connect({ "X-API-KEY": KEY_B });
      for (let i = 0; i < 3; i++) {
        for (const client of [clientA, clientB]) {
          expect((await callTool(client, "tasks_query", { view: "list" })).isError).toBeUndefined();
        }
      }
      expect(tally(upstream.requests)).toEqual({
        [`${KEY_A}   /api/v1/business/whoami`]: 1,
        [`${KEY_B}   /api/v1/business/whoami`]: 1,
        [`${KEY_A} ${PROJECT_A}  /api/v1/business/tasks/query`]: 3,
        [`${KEY_B} ${PROJECT_B}  /api/v1/business/tasks/query`]: 3,
      });
      await Promise.all([clientA.close(), clientB.close()]);
    } finally {
      await harness.close();
    }
  });
});

describe("the request log", () => {
  it("has one JSON line per request with method, tool, status, duration and session, and never a key", async () => {
    const harness = await startServer([], { workspaceProjectId: ENV_PROJECT });
    try {
      const { result: sessionId, lines } = await capturingLog(async () => {
        const client = await harness.connect(USER_A);
        await callTool(client, "tasks_query", { view: "list" });
        await callTool(client, "geo_projects");
        const transport = client.transport as StreamableHTTPClientTransport;
        const id = transport.sessionId;
        await transport.terminateSession();
        await client.close();
        return id;
      });
      const posts = lines.filter((line) => line.message === "request" && line.method === "POST");
      expect(
        posts.map(({ rpc, tool, status, session, path }) => ({ rpc, tool, status, session, path })),
      ).toEqual([
        { rpc: "initialize", tool: undefined, status: 200, session: sessionId, path: "/mcp" },
        { rpc: "notifications/initialized", tool: undefined, status: 202, session: sessionId, path: "/mcp" },
        { rpc: "tools/call", tool: "tasks_query", status: 200, session: sessionId, path: "/mcp" },
        { rpc: "tools/call", tool: "geo_projects", status: 200, session: sessionId, path: "/mcp" },
      ]);
      for (const line of posts) expect(typeof line.duration_ms).toBe("number");
      const deletes = lines.filter((line) => line.message === "request" && line.method === "DELETE");
      expect(deletes.map(({ status, session }) => ({ status, session }))).toEqual([
        { status: 200, session: sessionId },
      ]);
      const logged = lines.map((line) => JSON.stringify(line)).join("\n");
      expect(logged).not.toContain(KEY_A);
    } finally {
      await harness.close();
    }
  });
});

describe("the implied-project cache", () => {
  const counting = () => {
    const looked: string[] = [];
    const lookUp = (key: string) => () => {
      looked.push(key);
      return Promise.resolve(`project-of-${key}`);
    };
    return { looked, lookUp };
  };

  it("is bounded: past maxEntries the least recently used key is forgotten", async () => {
    const cache = new ImpliedProjectCache({ maxEntries: 2 });
    const { looked, lookUp } = counting();
    for (const key of ["a", "b", "a", "c", "a", "b"]) {
      expect(await cache.get(key, undefined, lookUp(key))).toBe(`project-of-${key}`);
    }
    // "b" was the least recently used when "c" came, so it was looked up again; "a" never was.
    expect(looked).toEqual(["a", "b", "c", "b"]);
    expect(cache.size).toBe(2);
  });

  it("keys by key and workspace, forgets a failed lookup, and expires after ttlMs", async () => {
    const cache = new ImpliedProjectCache({ ttlMs: 0 });
    const { looked, lookUp } = counting();
    await cache.get("a", WORKSPACE_A, lookUp("a"));
    await cache.get("a", WORKSPACE_A, lookUp("a"));
    expect(looked).toEqual(["a", "a"]);
    const lasting = new ImpliedProjectCache();
    await expect(lasting.get("a", undefined, () => Promise.reject(new Error("down")))).rejects.toThrow(
      "down",
    );
    expect(lasting.size).toBe(0);
    await lasting.get("a", undefined, lookUp("a"));
    await lasting.get("a", WORKSPACE_A, lookUp("a"));
    await lasting.get("a", WORKSPACE_A, lookUp("a"));
    expect(looked).toEqual(["a", "a", "a", "a"]);
    expect(lasting.size).toBe(2);
  });
});
