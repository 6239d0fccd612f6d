// Cancellation reaches the upstream at once: a cancelled MCP request, a closed HTTP connection or a
// closed stdin closes the upstream socket long before a slow upstream would have answered, and no
// retry follows.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { once } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createDispatcher } from "../src/clients/http.js";
import { ALL_TOOL_NAMES } from "../src/tools/register.js";
import { perUserServers } from "../src/transports/http/user-servers.js";
import { serveHttp } from "../src/transports/http.js";
import { type FaultHandler, type FaultUpstream, faults, startFaultUpstream } from "./fault-upstream.js";
import { CLI, childEnv, httpSettings, type McpHarness, startMcp, TEST_LIMITS } from "./helpers.js";

const KEY = "cancel-key-0123456789";
const ANSWER_AFTER_MS = 10_000;
/** Far beyond the answer, so only a cancellation can close the socket before the answer is due. */
const TIMEOUT_MS = 60_000;
/** Longer than any first backoff (at most 500 ms), so a retry that was going to start has started. */
const RETRY_WINDOW_MS = 1_000;

/** Answers after 10 s unless its connection closes first; `answered` tells which came first. */
function slowAnswer(): FaultHandler {
  return (res, request) => {
    const timer = setTimeout(() => faults.ok({ projects: [] })(res, request, 0), ANSWER_AFTER_MS);
    res.on("close", () => clearTimeout(timer));
  };
}

let upstream: FaultUpstream;
beforeEach(async () => {
  upstream = await startFaultUpstream();
  upstream.answerWith(slowAnswer());
});
afterEach(async () => {
  await upstream.close();
});

/** The request arrived, the socket closed, and the answer had not been sent when it did. */
async function expectClosedBeforeAnswer(arrived: Promise<unknown>): Promise<void> {
  await arrived;
  const [request] = upstream.requests;
  await request?.socketClosed;
  expect(request?.answered).toBe(false);
}

describe("an MCP cancellation", () => {
  let mcp: McpHarness;
  beforeEach(async () => {
    mcp = await startMcp({ workspaceBaseUrl: upstream.url, workspaceApiKey: KEY, timeoutMs: TIMEOUT_MS });
  });
  afterEach(async () => {
    await mcp.close();
  });

  it("notifications/cancelled closes the upstream socket at once, and nothing is retried", async () => {
    const arrived = upstream.nextRequest();
    const controller = new AbortController();
    const call = mcp.client.callTool({ name: "whoami", arguments: {} }, undefined, {
      signal: controller.signal,
    });
    await arrived;
    controller.abort("the user changed their mind");
    await expect(call).rejects.toThrow();
    await expectClosedBeforeAnswer(arrived);
    await sleep(RETRY_WINDOW_MS);
    expect(upstream.requests).toHaveLength(1);
  });

  it("a cancellation during a retry wait stops the retry", async () => {
    upstream.answerWith(faults.status(503, {}, { "retry-after": "1" }));
    const controller = new AbortController();
    const call = mcp.client.callTool({ name: "whoami", arguments: {} }, undefined, {
      signal: controller.signal,
      onprogress: () => controller.abort("no more waiting"),
    });
    await expect(call).rejects.toThrow();
    await sleep(RETRY_WINDOW_MS + 1_000);
    expect(upstream.requests).toHaveLength(1);
  });
});

describe("a client that goes away", () => {
  it("a closed HTTP connection closes the upstream socket", async () => {
    const settings = {
      ...TEST_LIMITS,
      workspaceBaseUrl: upstream.url,
      workspaceApiKey: KEY,
      timeoutMs: TIMEOUT_MS,
    };
    const dispatcher = createDispatcher(settings);
    const http = await serveHttp(perUserServers(settings, dispatcher, ALL_TOOL_NAMES), httpSettings());
    const client = new Client({ name: "leaving-client", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
    try {
      const arrived = upstream.nextRequest();
      const call = client.callTool({ name: "whoami", arguments: {} });
      call.catch(() => {});
      await arrived;
      await client.close(); // drops the connection that carries the pending call, sends no cancel
      await expectClosedBeforeAnswer(arrived);
    } finally {
      await http.close();
      await dispatcher.close();
    }
  });

  it("a closed stdin closes the upstream socket, and the server logs the cancelled call", async () => {
    const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [CLI], {
      env: childEnv({
        WORKSPACE_BASE_URL: upstream.url,
        WORKSPACE_API_KEY: KEY,
        UPSTREAM_TIMEOUT_MS: String(TIMEOUT_MS),
        LOG_LEVEL: "info",
      }),
    });
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
    const arrived = upstream.nextRequest();
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    });
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "whoami", arguments: {} } });
    await arrived;
    const exited = once(child, "exit");
    child.stdin.end();
    await expectClosedBeforeAnswer(arrived);
    await exited;
    expect(stderr).toContain('"message":"tool call cancelled","tool":"whoami"');
  });
});
