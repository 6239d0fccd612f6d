// Cancellation reaches the upstream at once, in both protocol eras and on every transport: a cancelled
// MCP request, a closed HTTP connection or a closed stdin closes the upstream socket long before a slow
// upstream would have answered, and no retry follows.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { once } from "node:events";
import type { Stream } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttpTransport,
} from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createDispatcher } from "../../src/clients/http.js";
import { ALL_TOOL_NAMES } from "../../src/tools/register.js";
import { serveHttp } from "../../src/transports/http/server.js";
import { perUserServers } from "../../src/transports/http/user-servers.js";
import { type FaultHandler, type FaultUpstream, faults, startFaultUpstream } from "../fault-upstream.js";
import {
  CLI,
  childEnv,
  childStdioTransport,
  httpSettings,
  type McpHarness,
  startMcp,
  TEST_LIMITS,
} from "../helpers.js";
import { type HeldRetryClock, holdRetryWaits } from "../retry-clock.js";
import { InPlaceStdioClientTransport } from "../stdio-client.js";

const KEY = "cancel-key-0123456789";
const ANSWER_AFTER_MS = 10_000;
/** Far beyond the answer, so only a cancellation can close the socket before the answer is due. */
const TIMEOUT_MS = 60_000;
/**
 * How a spawned server shows its call has ended: the retry loop is left for good before this line is
 * logged, so nothing can be retried after it. A server in this process holds each retry wait on `clock`
 * instead, where a retry shows as a wait asked for, decided before the upstream sees its socket close.
 */
const CALL_CANCELLED = '"message":"tool call cancelled","tool":"whoami"';

/** Answers after 10 s unless its connection closes first; `answered` tells which came first. */
function slowAnswer(): FaultHandler {
  return (res, request) => {
    const timer = setTimeout(() => faults.ok({ projects: [] })(res, request, 0), ANSWER_AFTER_MS);
    res.on("close", () => clearTimeout(timer));
  };
}

let upstream: FaultUpstream;
let clock: HeldRetryClock;
beforeEach(async () => {
  clock = holdRetryWaits();
  upstream = await startFaultUpstream();
  upstream.answerWith(slowAnswer());
});
afterEach(async () => {
  clock.restore();
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
    expect(clock.waits).toEqual([]);
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
    expect(await clock.abortedWait).toBe(1000);
    expect(clock.waits).toEqual([1000]);
    expect(upstream.requests).toHaveLength(1);
  });
});

/** Something that calls whoami with a signal: a client of one era on one transport. */
interface Caller {
  call(signal: AbortSignal): Promise<unknown>;
  close(): Promise<void>;
  /** A spawned server (its retry waits are real): resolves once it has logged the cancelled call. */
  callCancelled?: Promise<void>;
}

const upstreamEnv = () =>
  childEnv({
    WORKSPACE_BASE_URL: upstream.url,
    WORKSPACE_API_KEY: KEY,
    UPSTREAM_TIMEOUT_MS: String(TIMEOUT_MS),
  });
const upstreamSettings = () => ({
  ...TEST_LIMITS,
  workspaceBaseUrl: upstream.url,
  workspaceApiKey: KEY,
  timeoutMs: TIMEOUT_MS,
});
const modernClient = () =>
  new ModernClient(
    { name: "cancel-modern", version: "1.0.0" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );

/** The server over HTTP in this process (with `argv` flags), reached by a client of one era. */
async function httpCaller(era: "2025" | "2026-07-28", argv: string[] = []): Promise<Caller> {
  const settings = upstreamSettings();
  const dispatcher = createDispatcher(settings);
  const http = await serveHttp(perUserServers(settings, dispatcher, ALL_TOOL_NAMES), httpSettings(argv));
  const url = new URL(http.url);
  const stop = async () => {
    await http.close();
    await dispatcher.close();
  };
  if (era === "2025") {
    const client = new Client({ name: "cancel-legacy", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(url));
    return {
      call: (signal) => client.callTool({ name: "whoami", arguments: {} }, undefined, { signal }),
      close: async () => {
        await client.close();
        await stop();
      },
    };
  }
  const client = modernClient();
  await client.connect(new ModernHttpTransport(url));
  return {
    call: (signal) => client.callTool({ name: "whoami", arguments: {} }, { signal }),
    close: async () => {
      await client.close();
      await stop();
    },
  };
}

/** Resolves once `stderr` has carried `text`. */
function stderrShows(stderr: Stream | null, text: string): Promise<void> {
  return new Promise((resolve) => {
    let written = "";
    stderr?.on("data", (chunk) => {
      written += chunk;
      if (written.includes(text)) resolve();
    });
  });
}

/** The built server over stdio, spawned by a 2026-07-28 client (the 2025 one: "a client that goes away"). */
async function stdioCaller(): Promise<Caller> {
  const server = { command: process.execPath, args: [CLI], env: upstreamEnv(), stderr: "pipe" as const };
  const transport = new InPlaceStdioClientTransport(server);
  const callCancelled = stderrShows(transport.stderr, CALL_CANCELLED);
  const client = modernClient();
  await client.connect(transport);
  return {
    call: (signal) => client.callTool({ name: "whoami", arguments: {} }, { signal }),
    close: () => client.close(),
    callCancelled,
  };
}

describe.each([
  ["2025 session over HTTP", () => httpCaller("2025")],
  ["2025 over --stateless HTTP (the cancel is a POST of its own)", () => httpCaller("2025", ["--stateless"])],
  ["2026-07-28 over HTTP (the client closes the response stream)", () => httpCaller("2026-07-28")],
  ["2026-07-28 over --stateless HTTP", () => httpCaller("2026-07-28", ["--stateless"])],
  ["2026-07-28 over stdio", () => stdioCaller()],
])("a cancelled call, %s", (_name, start) => {
  it("closes the upstream socket before the answer, and nothing is retried", async () => {
    const caller = await start();
    try {
      const arrived = upstream.nextRequest();
      const controller = new AbortController();
      const call = caller.call(controller.signal);
      call.catch(() => {});
      await arrived;
      controller.abort("the user changed their mind");
      await expect(call).rejects.toThrow();
      await expectClosedBeforeAnswer(arrived);
      if (caller.callCancelled) await caller.callCancelled;
      else expect(clock.waits).toEqual([]);
      expect(upstream.requests).toHaveLength(1);
    } finally {
      await caller.close();
    }
  });
});

describe("--stateless, with the call's connection still open", () => {
  it("a notifications/cancelled POST of its own reaches the call it names under the same headers", async () => {
    const settings = upstreamSettings();
    const dispatcher = createDispatcher(settings);
    const http = await serveHttp(
      perUserServers(settings, dispatcher, ALL_TOOL_NAMES),
      httpSettings(["--stateless"]),
    );
    const post = (body: object, headers: Record<string, string> = {}) =>
      fetch(http.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2025-11-25",
          ...headers,
        },
        body: JSON.stringify(body),
      });
    try {
      const arrived = upstream.nextRequest();
      const call = post({
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: { name: "whoami", arguments: {} },
      });
      call.catch(() => {});
      await arrived;
      let closed = false;
      void upstream.requests[0]?.socketClosed.then(() => {
        closed = true;
      });
      const cancel = (headers?: Record<string, string>) =>
        post({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 7 } }, headers);
      // Another user's cancellation of the same id does not reach it.
      expect((await cancel({ "x-api-key": "someone-else" })).status).toBe(202);
      await sleep(200);
      expect(closed).toBe(false);
      expect((await cancel()).status).toBe(202);
      await expectClosedBeforeAnswer(arrived);
    } finally {
      await http.close();
      await dispatcher.close();
    }
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

  // One spawned server: its 2025 client (SDK 1.x) first cancels a call, as every case above, then goes
  // away with the next one in flight.
  it("2025 over stdio: a cancelled call, then a closed stdin, each close the upstream socket before the answer; the server logs both", async () => {
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
    const exited = once(child, "exit");
    const client = new Client({ name: "cancel-legacy", version: "1.0.0" });
    try {
      await client.connect(childStdioTransport(child));
      const cancelledArrived = upstream.nextRequest();
      const controller = new AbortController();
      const cancelled = client.callTool({ name: "whoami", arguments: {} }, undefined, {
        signal: controller.signal,
      });
      cancelled.catch(() => {});
      await cancelledArrived;
      controller.abort("the user changed their mind");
      await expect(cancelled).rejects.toThrow();
      await expectClosedBeforeAnswer(cancelledArrived);
      // Logged once the retry loop is left for good: nothing can be retried after it.
      await expect.poll(() => stderr).toContain(CALL_CANCELLED);
      expect(upstream.requests).toHaveLength(1);

      const leftArrived = upstream.nextRequest();
      client.callTool({ name: "whoami", arguments: {} }).catch(() => {});
      const left = await leftArrived;
      await client.close(); // ends the server's stdin, and only that
      await left.socketClosed;
      expect(left.answered).toBe(false);
      await exited;
      expect(stderr.split(CALL_CANCELLED)).toHaveLength(3);
      expect(upstream.requests).toHaveLength(2);
    } finally {
      child.kill("SIGKILL");
    }
  });
});
