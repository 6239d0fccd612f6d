// Operations: health and readiness probes, and shutdown that lets calls in flight finish (bounded), both
// in-process and for the built server on SIGTERM.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { SERVER_VERSION } from "../../src/version.js";
import { CLI, logOf } from "../helpers.js";
import {
  eventually,
  MCP_HEADERS,
  rawRequest,
  sseMessages,
  startGatedUpstream,
  startHttp,
  toolCallBody,
} from "../http-helpers.js";

const KEY = "operator-key-0123";
const PROJECT = "11111111-1111-4111-8111-111111111111";

// Every test has servers of its own: the suites run side by side (describe.concurrent).
describe.concurrent("health and readiness", () => {
  it("/healthz is alive; /readyz names the missing settings, never their values", async () => {
    const incomplete = await startHttp([], { workspaceApiKey: KEY, workspaceBaseUrl: "http://127.0.0.1:9" });
    try {
      const health = await rawRequest(new URL("/healthz", incomplete.url).href);
      expect([health.status, health.body]).toEqual([
        200,
        { status: "ok", name: "agent-workspace-mcp", version: SERVER_VERSION },
      ]);
      const ready = await rawRequest(new URL("/readyz", incomplete.url).href);
      expect([ready.status, ready.body]).toEqual([
        503,
        { status: "not ready", missing: ["ANALYTICS_BASE_URL"] },
      ]);
    } finally {
      await incomplete.close();
    }
    const complete = await startHttp([], {
      workspaceBaseUrl: "http://a.invalid",
      analyticsBaseUrl: "http://b.invalid",
    });
    try {
      const ready = await rawRequest(new URL("/readyz", complete.url).href);
      expect([ready.status, ready.body]).toEqual([200, { status: "ready" }]);
    } finally {
      await complete.close();
    }
  });
});

/** A --stateless server with a whoami call waiting at its gated upstream, sent with `headers`. */
async function withCallInFlight(headers: Record<string, string> = {}) {
  const upstream = await startGatedUpstream({ projects: [] });
  const harness = await startHttp(["--stateless"], {
    workspaceApiKey: KEY,
    workspaceBaseUrl: upstream.url,
    analyticsBaseUrl: upstream.url,
  });
  const call = rawRequest(harness.url, {
    method: "POST",
    headers: { ...MCP_HEADERS, ...headers },
    body: toolCallBody("whoami"),
  });
  await upstream.arrived(1);
  return { upstream, harness, call };
}

describe.concurrent("graceful close", () => {
  it("stops accepting at once, lets the call in flight finish, then closes", async () => {
    const { upstream, harness, call } = await withCallInFlight();
    try {
      let closed = false;
      const closing = harness.http.close().then(() => {
        closed = true;
      });
      await expect(rawRequest(new URL("/healthz", harness.url).href)).rejects.toThrow(/ECONNREFUSED/);
      expect(closed).toBe(false);

      upstream.release();
      const answer = await call;
      expect([answer.status, sseMessages(answer.body)]).toEqual([
        200,
        [
          {
            jsonrpc: "2.0",
            id: 7,
            result: {
              content: [{ type: "text", text: '{"projects":[]}' }],
              structuredContent: { projects: [] },
            },
          },
        ],
      ]);
      await closing;
      expect(await harness.http.connectionCount()).toBe(0);
      expect(upstream.keys).toEqual([KEY]);
    } finally {
      await harness.close();
      await upstream.close();
    }
  });
});

describe.concurrent("an answer the drain finds not yet begun", () => {
  it("ends its kept-alive connection (Connection: close), whatever the SDK's answer headers say", async () => {
    const { upstream, harness, call } = await withCallInFlight({ connection: "keep-alive" });
    try {
      const closing = harness.http.close();
      upstream.release();
      const answer = await call;
      expect([answer.status, answer.headers["content-type"], answer.headers.connection]).toEqual([
        200,
        "text/event-stream",
        "close",
      ]);
      await closing;
    } finally {
      await harness.close();
      await upstream.close();
    }
  });
});

/** A request begun before the drain: its head is sent now, finished (with `payload`) by `finish()`. */
async function beginRequest(port: number, head: string, payload = "") {
  const socket = connect(port, "127.0.0.1");
  await once(socket, "connect");
  let received = "";
  socket.on("data", (chunk) => {
    received += chunk;
  });
  const closed = once(socket, "close");
  // A connection mid-request is not idle, so closing the server does not drop it.
  socket.write(head);
  return {
    async finish(): Promise<{ status: string; contentType?: string; body: unknown }> {
      socket.write(`\r\n${payload}`);
      await closed;
      const [headers = "", body = ""] = received.split("\r\n\r\n");
      const lines = headers.split("\r\n");
      const contentType = lines.find((line) => line.toLowerCase().startsWith("content-type:"));
      return { status: lines[0] ?? "", contentType: contentType?.split(": ")[1], body: JSON.parse(body) };
    },
  };
}

describe.concurrent("requests that reach a draining server", () => {
  it("/healthz and /readyz answer 503 draining; /mcp a JSON-RPC error; the connection closes", async () => {
    const { upstream, harness, call } = await withCallInFlight();
    try {
      // The call in flight keeps the drain going while the requests below arrive.
      const port = harness.http.port;
      const host = "Host: 127.0.0.1";
      const body = toolCallBody("whoami", {}, 8);
      const begun = [
        await beginRequest(port, `GET /healthz HTTP/1.1\r\n${host}\r\n`),
        await beginRequest(port, `GET /readyz HTTP/1.1\r\n${host}\r\n`),
        await beginRequest(
          port,
          `POST /mcp HTTP/1.1\r\n${host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`,
          body,
        ),
      ];
      // All four connections accepted (the call's and these three), then a moment for their heads.
      expect(await eventually(async () => (await harness.http.connectionCount()) === 4)).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const closing = harness.http.close();
      const [health, ready, mcp] = await Promise.all(begun.map((request) => request.finish()));
      expect([health, ready]).toEqual([
        {
          status: "HTTP/1.1 503 Service Unavailable",
          contentType: "application/json",
          body: { status: "draining" },
        },
        {
          status: "HTTP/1.1 503 Service Unavailable",
          contentType: "application/json",
          body: { status: "draining" },
        },
      ]);
      expect(mcp).toEqual({
        status: "HTTP/1.1 503 Service Unavailable",
        contentType: "application/json",
        body: {
          jsonrpc: "2.0",
          error: {
            code: -32000,
            message:
              "Service Unavailable: the server is shutting down; send the request again (another replica, or this one once restarted, will answer it)",
          },
          id: null,
        },
      });
      expect(upstream.keys).toEqual([KEY]); // nothing of the refused call was sent
      upstream.release();
      expect((await call).status).toBe(200);
      await closing;
    } finally {
      await harness.close();
      await upstream.close();
    }
  });
});

async function spawnServer(upstreamUrl: string, argv: string[] = []) {
  const child = spawn(process.execPath, [CLI, "--transport", "http", "--port", "0", ...argv], {
    env: {
      PATH: process.env.PATH ?? "",
      WORKSPACE_API_KEY: KEY,
      WORKSPACE_BASE_URL: upstreamUrl,
      ANALYTICS_BASE_URL: upstreamUrl,
      WORKSPACE_PROJECT_ID: PROJECT,
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  const log = logOf(child);
  const url = String((await log.next("listening")).url);
  const client = new (await import("@modelcontextprotocol/sdk/client/index.js")).Client({
    name: "sigterm-test",
    version: "1.0.0",
  });
  const { StreamableHTTPClientTransport } = await import(
    "@modelcontextprotocol/sdk/client/streamableHttp.js"
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return { child, log, url, client };
}

describe.concurrent("SIGTERM on the built server", () => {
  // That it stops listening, lets the call in flight finish, logs no key and exits 0: the drain test
  // over HTTP in test/cli/shutdown-drain.test.ts, on its server.
  it("waits no longer than --shutdown-grace-ms for a call that does not finish", async () => {
    const upstream = await startGatedUpstream();
    // The call is never let go upstream, so nothing ends during the grace however short it is.
    const { child, log, client } = await spawnServer(upstream.url, ["--shutdown-grace-ms", "50"]);
    try {
      void client.callTool({ name: "whoami", arguments: {} }).catch(() => {});
      await upstream.arrived(1);
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      const [code] = await exited;
      expect(code).toBe(0);
      const messages = log.lines.map((line) => line.message);
      const afterSignal = messages.slice(messages.indexOf("shutting down"));
      expect(afterSignal.slice(0, 2)).toEqual([
        "shutting down",
        "shutdown grace is over: ending requests still in flight",
      ]);
      // Then, in whichever order: the abandoned call is cancelled (its upstream request dropped), and
      // its request and the client's event stream end.
      expect(afterSignal.slice(2, -1).sort()).toEqual(["request", "request", "tool call cancelled"]);
      expect(afterSignal.at(-1)).toBe("stopped");
      expect(log.lines.find((line) => String(line.message).includes("grace"))?.abandoned).toBe(1);
    } finally {
      child.kill("SIGKILL");
      await client.close().catch(() => {});
      await upstream.close();
    }
  });
});
