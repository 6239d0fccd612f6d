// SIGTERM drains the built server: over HTTP, it stops listening, clients that keep sending on kept-alive
// connections get 503 (or a closed connection) for anything new, every request already accepted gets
// its answer (one held upstream across the signal too), and no comment reaches the API without its
// answer reaching the client; over stdio, the calls already read are answered before the process exits.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { Agent, request } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { CLI, childEnv, logOf, startRecorder } from "../helpers.js";
import {
  initializeBody,
  MCP_HEADERS,
  rawRequest,
  sseMessages,
  startGatedUpstream,
  toolCallBody,
} from "../http-helpers.js";

const KEY = "drain-key-0123456789";
const PROJECT = "11111111-1111-4111-8111-111111111111";
const TASK = "22222222-2222-4222-8222-222222222222";
const WHOAMI = "/api/v1/business/whoami";

/** How one request ended, as its client saw it. */
type Outcome =
  | { kind: "answered"; comment: string }
  | { kind: "refused"; status: number; retryAfter?: string; connection?: string }
  | { kind: "not accepted"; error: string }
  | { kind: "lost"; status: number; text: string };

/** One POST on the client's kept-alive connection. */
function post(url: string, agent: Agent, headers: Record<string, string>, body: string) {
  return new Promise<{ status: number; headers: Record<string, unknown>; text: string } | { error: string }>(
    (resolve) => {
      const req = request(url, { method: "POST", headers, agent });
      req.once("response", (res) => {
        let text = "";
        res.on("data", (chunk) => {
          text += chunk;
        });
        res.once("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
        res.once("error", (error) => resolve({ error: error.message }));
      });
      req.once("error", (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
      req.end(body);
    },
  );
}

/** A client that opens a session, then sends tasks_comments after tasks_comments until it is turned away. */
async function keepCommenting(url: string, name: string, outcomes: Outcome[]): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const init = await post(url, agent, MCP_HEADERS, initializeBody());
    if ("error" in init || init.status !== 200) throw new Error(`${name}: initialize failed`);
    const session = { ...MCP_HEADERS, "mcp-session-id": String(init.headers["mcp-session-id"]) };
    await post(url, agent, session, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    for (let n = 0; ; n++) {
      const comment = `${name}-${n}`;
      const args = { task_id: TASK, body: comment };
      const answer = await post(url, agent, session, toolCallBody("tasks_comments", args, n + 10));
      if ("error" in answer) {
        outcomes.push({ kind: "not accepted", error: answer.error });
        return;
      }
      if (answer.status !== 200) {
        const { "retry-after": retryAfter, connection } = answer.headers as Record<string, string>;
        outcomes.push({ kind: "refused", status: answer.status, retryAfter, connection });
        return;
      }
      const result = sseMessages(answer.text).find((message) => (message as { id?: unknown }).id === n + 10);
      if ((result as { result?: { isError?: boolean } } | undefined)?.result?.isError === undefined) {
        outcomes.push({ kind: "answered", comment });
      } else {
        outcomes.push({ kind: "lost", status: answer.status, text: answer.text.slice(0, 300) });
      }
    }
  } finally {
    agent.destroy();
  }
}

// Each test spawns a server of its own and waits on it: the two run side by side (describe.concurrent).
describe.concurrent("SIGTERM over HTTP, with clients that keep sending on kept-alive connections", () => {
  it("stops listening, takes no new work, answers every request it accepted, loses no comment, logs no key, and exits 0", async () => {
    // whoami waits upstream until the test lets it go: a call in flight across the signal.
    let releaseWhoami = () => {};
    const whoamiHeld = new Promise<void>((release) => {
      releaseWhoami = release;
    });
    // Each comment takes a moment upstream, so that some are always in flight when the signal comes.
    const upstream = await startRecorder(async (recorded) => {
      if (recorded.path === WHOAMI) {
        await whoamiHeld;
        return { body: { projects: [{ id: PROJECT, name: "Team" }] } };
      }
      await sleep(20);
      return { body: { id: "c1", body: (recorded.body as { body?: string }).body } };
    });
    const child = spawn(
      process.execPath,
      [CLI, "--transport", "http", "--port", "0", "--shutdown-grace-ms", "5000"],
      {
        env: childEnv({
          WORKSPACE_API_KEY: KEY,
          WORKSPACE_BASE_URL: upstream.url,
          ANALYTICS_BASE_URL: upstream.url,
          WORKSPACE_PROJECT_ID: PROJECT,
          LOG_LEVEL: "info",
        }),
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    const sdkClient = new Client({ name: "sigterm-test", version: "1.0.0" });
    try {
      const log = logOf(child);
      const exited = once(child, "exit");
      const url = String((await log.next("listening")).url);
      await sdkClient.connect(new StreamableHTTPClientTransport(new URL(url)));
      const whoami = sdkClient.callTool({ name: "whoami", arguments: {} }) as Promise<CallToolResult>;
      while (!upstream.requests.some((recorded) => recorded.path === WHOAMI)) await sleep(5);
      const outcomes: Outcome[] = [];
      // Enough of them that some call is always in flight: a drain that accepts their next requests never ends.
      const clients = Array.from({ length: 16 }, (_, i) => keepCommenting(url, `client${i}`, outcomes));
      while (outcomes.filter((outcome) => outcome.kind === "answered").length < 40) await sleep(5);
      child.kill("SIGTERM");
      await log.next("shutting down");
      // Refused, or reset if the connection raced the close: either way not served.
      await expect(rawRequest(new URL("/healthz", url).href)).rejects.toThrow(/ECONNREFUSED|ECONNRESET/);
      releaseWhoami();
      const answered = await whoami;
      expect(answered.isError).toBeUndefined();
      expect(answered.structuredContent).toEqual({ projects: [{ id: PROJECT, name: "Team" }] });
      await Promise.all(clients);
      const [code] = await exited;

      expect(code).toBe(0);
      expect(outcomes.filter((outcome) => outcome.kind === "lost")).toEqual([]);
      for (const outcome of outcomes.filter((o) => o.kind === "refused")) {
        expect(outcome).toEqual({ kind: "refused", status: 503, retryAfter: "1", connection: "close" });
      }
      // Every comment that reached the API was answered to its client, once; none was sent twice.
      const commented = outcomes.flatMap((outcome) => (outcome.kind === "answered" ? [outcome.comment] : []));
      const reached = upstream.requests
        .filter((request) => request.path.endsWith("/comments"))
        .map((request) => (request.body as { body: string }).body);
      expect(reached.sort()).toEqual(commented.sort());
      expect(log.lines.map((line) => line.message)).toContain("stopped");
      expect(log.lines.filter((line) => String(line.message).includes("grace"))).toEqual([]);
      expect(JSON.stringify(log.lines)).not.toContain(KEY);
    } finally {
      child.kill("SIGKILL");
      releaseWhoami();
      await sdkClient.close();
      await upstream.close();
    }
  });
});

describe.concurrent("SIGTERM over stdio, with a call in flight", () => {
  it("answers the call it read, refuses a new one, then exits 0", async () => {
    const upstream = await startGatedUpstream({ id: "c1", body: "hello" });
    const child = spawn(process.execPath, [CLI], {
      env: childEnv({
        WORKSPACE_API_KEY: KEY,
        WORKSPACE_BASE_URL: upstream.url,
        WORKSPACE_PROJECT_ID: PROJECT,
        LOG_LEVEL: "info",
      }),
      stdio: ["pipe", "pipe", "pipe"],
    });
    try {
      const log = logOf(child);
      const answers = new Map<unknown, Record<string, unknown>>();
      let buffered = "";
      child.stdout!.on("data", (chunk) => {
        buffered += chunk;
        const lines = buffered.split("\n");
        buffered = lines.pop() ?? "";
        for (const line of lines.filter(Boolean)) {
          const message = JSON.parse(line) as Record<string, unknown>;
          answers.set(message.id, message);
        }
      });
      const send = (message: object) => child.stdin!.write(`${JSON.stringify(message)}\n`);
      const exited = once(child, "exit");
      send(JSON.parse(initializeBody(1)));
      send({ jsonrpc: "2.0", method: "notifications/initialized" });
      send({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "tasks_comments", arguments: { task_id: TASK, body: "hello" } },
      });
      await upstream.arrived(1);
      child.kill("SIGTERM");
      await log.next("shutting down");
      send({ jsonrpc: "2.0", id: 3, method: "tools/list" });
      while (!answers.has(3)) await sleep(5);
      upstream.release();
      const [code] = await exited;

      expect(code).toBe(0);
      expect(answers.get(2)).toEqual({
        jsonrpc: "2.0",
        id: 2,
        result: {
          content: [{ type: "text", text: '{"id":"c1","body":"hello"}' }],
          structuredContent: { id: "c1", body: "hello" },
        },
      });
      expect(answers.get(3)).toEqual({
        jsonrpc: "2.0",
        id: 3,
        error: { code: -32000, message: "the server is shutting down and takes no new requests" },
      });
      expect(upstream.keys).toEqual([KEY]);
      expect(log.lines.filter((line) => String(line.message).includes("grace"))).toEqual([]);
    } finally {
      child.kill("SIGKILL");
      await upstream.close();
    }
  });
});
