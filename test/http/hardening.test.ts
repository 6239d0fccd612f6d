// What one HTTP client can hold or make the server say: slow headers, slow bodies and idle keep-alive
// sockets are cut off at the configured timeouts; one API key cannot take every session; a cancelled
// call's stream is ended; a huge Host or Origin and a key pasted into an X-MCP-* header are not echoed.
import { request } from "node:http";
import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setLogLevel } from "../../src/log.js";
import { unreachedUpstream } from "../helpers.js";
import {
  callTool,
  eventually,
  type HttpHarness,
  initializeBody,
  MCP_HEADERS,
  openRawSession,
  rawRequest,
  rpcError,
  sseMessages,
  startGatedUpstream,
  startHttp,
  toolCallBody,
} from "../http-helpers.js";

// The tests that call a tool bring a gated upstream of their own; the others reach no upstream: a
// recorder is enough for them, and shows none arrives.
const unreachedUrl = unreachedUpstream();
beforeAll(() => {
  setLogLevel("error"); // the server's request log is not this test's output
});
afterAll(() => {
  setLogLevel("info");
});

const upstreamUrls = () => ({
  workspaceBaseUrl: unreachedUrl(),
  analyticsBaseUrl: unreachedUrl(),
});

/** A raw TCP connection to the harness's port, and everything the server writes on it until it closes it. */
async function rawSocket(harness: HttpHarness): Promise<{ socket: Socket; closed: Promise<string> }> {
  const socket = connect(harness.http.port, "127.0.0.1");
  await new Promise((resolve) => socket.once("connect", resolve));
  let received = "";
  socket.on("data", (chunk) => {
    received += chunk;
  });
  socket.on("error", () => {}); // a reset is a close too
  const closed = new Promise<string>((resolve) => socket.once("close", () => resolve(received)));
  return { socket, closed };
}

/** Writes `piece` every 20 ms until the socket closes: a client that never finishes. */
function drip(socket: Socket, piece: string): void {
  const timer = setInterval(() => socket.write(piece), 20);
  socket.once("close", () => clearInterval(timer));
}

// The three run side by side, each on a connection of its own: each waits on a timeout, and node keeps
// an idle kept-alive connection 1 s past --keep-alive-timeout-ms (its buffer against a client's race).
// The kept-alive connection is on a server of its own with the default headers timeout: a busy moment
// of the test beside it must not turn its answer into a 408.
describe.concurrent("socket timeouts (--headers-timeout-ms, --request-timeout-ms, --keep-alive-timeout-ms)", () => {
  let harness: HttpHarness;
  let keepAlive: HttpHarness;
  beforeAll(async () => {
    const upstream = { ...upstreamUrls(), workspaceApiKey: "hardening-key-0123456789" };
    [harness, keepAlive] = await Promise.all([
      startHttp(["--headers-timeout-ms", "300", "--request-timeout-ms", "600"], upstream),
      startHttp(["--keep-alive-timeout-ms", "100"], upstream),
    ]);
  });
  afterAll(async () => {
    await Promise.all([harness.close(), keepAlive.close()]);
  });

  it("headers that never end: the server answers 408 and closes the socket", async () => {
    const { socket, closed } = await rawSocket(harness);
    socket.write("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    drip(socket, "X-Slow: a\r\n");
    expect((await closed).split("\r\n")[0]).toBe("HTTP/1.1 408 Request Timeout");
  });

  it("a body that never ends: 408 and closed, while a call slower than the timeouts is still answered", async () => {
    const upstream = await startGatedUpstream({ projects: [] });
    const slow = await startHttp(["--headers-timeout-ms", "300", "--request-timeout-ms", "600"], {
      workspaceBaseUrl: upstream.url,
      workspaceApiKey: "timeout-key-0123",
    });
    const client = await slow.connect();
    try {
      const call = callTool(client, "whoami");
      await upstream.arrived(1);
      const { socket, closed } = await rawSocket(slow);
      const head = `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{`;
      socket.write(head);
      drip(socket, " ");
      expect((await closed).split("\r\n")[0]).toBe("HTTP/1.1 408 Request Timeout");
      // The call's request was received whole long ago: its answer, however late, is not cut off.
      upstream.release();
      expect((await call).structuredContent).toEqual({ projects: [] });
    } finally {
      await client.close();
      await slow.close();
      await upstream.close();
    }
  });

  it("an idle kept-alive connection is closed after its answer", async () => {
    const { socket, closed } = await rawSocket(keepAlive);
    socket.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n");
    expect((await closed).split("\r\n")[0]).toBe("HTTP/1.1 200 OK");
  });
});

describe("sessions per API key (--max-sessions-per-key)", () => {
  const initialize = (headers: Record<string, string>) =>
    rawRequest(harness.url, {
      method: "POST",
      headers: { ...MCP_HEADERS, ...headers },
      body: initializeBody(),
    });
  const keyA = { "X-API-KEY": "user-a-key-0123456789" };
  const keyB = { "X-API-KEY": "user-b-key-0123456789" };
  let harness: HttpHarness;
  beforeAll(async () => {
    harness = await startHttp(["--max-sessions", "20"], upstreamUrls());
  });
  afterAll(async () => {
    await harness.close();
  });

  it("by default one key holds at most a tenth of --max-sessions (at least 10); other keys still get in", async () => {
    const sessionsOfA = [];
    for (let i = 0; i < 10; i++) sessionsOfA.push(await openRawSession(harness.url, keyA));
    const refused = await initialize(keyA);
    expect([refused.status, refused.headers["retry-after"], refused.body]).toEqual([
      503,
      "30",
      rpcError(
        -32000,
        "Service Unavailable: this API key holds 10 open sessions, the most one key may hold (--max-sessions-per-key); end one (DELETE /mcp with its Mcp-Session-Id) or retry later",
      ),
    ]);
    expect(JSON.stringify(refused)).not.toContain(keyA["X-API-KEY"]);
    expect((await initialize(keyB)).status).toBe(200);

    const ended = await rawRequest(harness.url, {
      method: "DELETE",
      headers: { ...MCP_HEADERS, ...keyA, "mcp-session-id": sessionsOfA[0]! },
    });
    expect(ended.status).toBe(200);
    expect((await initialize(keyA)).status).toBe(200);
    expect(harness.http.sessionCount()).toBe(10 + 1); // A's 10, B's 1
  });

  it("the bound is a flag; sessions without X-API-KEY count under the environment's key", async () => {
    const bounded = await startHttp(["--max-sessions-per-key", "2"], upstreamUrls());
    try {
      await openRawSession(bounded.url);
      await openRawSession(bounded.url);
      const refused = await rawRequest(bounded.url, {
        method: "POST",
        headers: MCP_HEADERS,
        body: initializeBody(),
      });
      expect(refused.status).toBe(503);
      await openRawSession(bounded.url, keyA);
      expect(bounded.http.sessionCount()).toBe(3);
    } finally {
      await bounded.close();
    }
  });
});

describe("a call cancelled by notifications/cancelled in a 2025 session", () => {
  it("has its stream ended at once, with no answer, and the session becomes idle", async () => {
    const upstream = await startGatedUpstream();
    const harness = await startHttp(["--session-idle-ms", "600000"], {
      workspaceBaseUrl: upstream.url,
      workspaceApiKey: "cancel-key-0123456789",
    });
    try {
      const session = { ...MCP_HEADERS, "mcp-session-id": await openRawSession(harness.url) };
      expect(harness.http.timerCount()).toBe(1); // idle: nothing open
      const stream = new Promise<string>((resolve, reject) => {
        const post = request(harness.url, { method: "POST", headers: session, agent: false });
        post.once("response", (res) => {
          let text = "";
          res.on("data", (chunk) => {
            text += chunk;
          });
          res.once("end", () => resolve(text));
        });
        post.once("error", reject);
        post.end(toolCallBody("whoami", {}, 7));
      });
      await upstream.arrived(1);
      expect(harness.http.timerCount()).toBe(0); // a call is open
      const cancel = {
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: 7, reason: "no" },
      };
      const sent = await rawRequest(harness.url, {
        method: "POST",
        headers: session,
        body: JSON.stringify(cancel),
      });
      expect(sent.status).toBe(202);
      // The stream ends with nothing for request 7: the SDK answers no cancelled request.
      expect(sseMessages(await stream).filter((message) => (message as { id?: unknown }).id === 7)).toEqual(
        [],
      );
      expect(await eventually(() => harness.http.timerCount() === 1)).toBe(true);
      expect(harness.http.sessionCount()).toBe(1);
    } finally {
      upstream.release();
      await harness.close();
      await upstream.close();
    }
  });
});

describe("client input in HTTP refusals", () => {
  let harness: HttpHarness;
  beforeAll(async () => {
    harness = await startHttp(["--allowed-hosts", "mcp.example.com"], upstreamUrls());
  });
  afterAll(async () => {
    await harness.close();
  });

  it("a 15 KB Host is quoted as its first 100 characters and its length", async () => {
    const host = `h${"o".repeat(14_999)}`;
    const refused = await rawRequest(harness.url, {
      method: "POST",
      headers: { ...MCP_HEADERS, host },
      body: "{}",
    });
    expect([refused.status, refused.body]).toEqual([
      403,
      rpcError(
        -32000,
        `Forbidden: Host "${host.slice(0, 100)}… (15000 characters)" is not allowed (see --allowed-hosts)`,
      ),
    ]);
  });

  it("a 10 KB Origin is quoted as its first 100 characters and its length", async () => {
    const origin = `http://${"o".repeat(9_993)}`;
    const refused = await rawRequest(harness.url, {
      method: "POST",
      headers: { ...MCP_HEADERS, origin },
      body: "{}",
    });
    expect([refused.status, refused.body]).toEqual([
      403,
      rpcError(
        -32000,
        `Forbidden: Origin "${origin.slice(0, 100)}… (10000 characters)" is not allowed (see --cors-origin)`,
      ),
    ]);
  });

  const SECRET = "sk-live-pasted-in-the-wrong-header-0123";
  it.each([
    [
      "X-MCP-Tools",
      "Bad Request: X-MCP-Tools holds 1 name that is not a tool; valid tools: whoami, tasks_query, tasks_comments, agent_runs_query, attachments_download_url, geo_projects, geo_prompts, geo_tags, geo_topics, geo_models, geo_websites, geo_citations, geo_keywords, geo_reports_sentiments",
    ],
    [
      "X-MCP-Toolsets",
      "Bad Request: X-MCP-Toolsets holds 1 name that is not a toolset; valid toolsets: workspace, analytics",
    ],
    ["X-MCP-Read-Only", "Bad Request: X-MCP-Read-Only must be 1/true/yes/on or 0/false/no/off"],
  ])(
    "a key pasted into %s is not echoed: the 400 names the header and the valid values",
    async (header, message) => {
      const refused = await rawRequest(harness.url, {
        method: "POST",
        headers: { ...MCP_HEADERS, [header]: SECRET },
        body: initializeBody(),
      });
      expect([refused.status, refused.body]).toEqual([400, rpcError(-32600, message)]);
    },
  );
});
