// Plumbing of the HTTP tests: the real server (serveHttp with per-user servers) on loopback, SDK clients
// with their own connection pool (so a test can close every socket it opened), and raw requests for
// the malformed ones.
import { createServer, request, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { CLIENT_CAPABILITIES_META_KEY, PROTOCOL_VERSION_META_KEY } from "@modelcontextprotocol/server";
import { Agent, fetch as undiciFetch } from "undici";
import { createDispatcher } from "../src/clients/http.js";
import type { UpstreamSettings } from "../src/config/types.js";
import { ALL_TOOL_NAMES } from "../src/tools/register.js";
import { type RunningHttp, serveHttp } from "../src/transports/http/server.js";
import { missingSettings, perUserServers } from "../src/transports/http/user-servers.js";
import { httpSettings, TEST_LIMITS } from "./helpers.js";
import { logLines } from "./log-capture.js";

export interface HttpHarness {
  http: RunningHttp;
  url: string;
  /** An SDK client connected with these request headers, through the harness's own pool. */
  connect(headers?: Record<string, string>): Promise<Client>;
  /** Closes every client connection of the pool: afterwards the server should hold no socket of ours. */
  closeClientPool(): Promise<void>;
  close(): Promise<void>;
}

export async function startHttp(argv: string[], upstream: Partial<UpstreamSettings>): Promise<HttpHarness> {
  const env = { ...TEST_LIMITS, ...upstream };
  const dispatcher = createDispatcher(env);
  const http = await serveHttp(perUserServers(env, dispatcher, ALL_TOOL_NAMES), httpSettings(argv), () =>
    missingSettings(env),
  );
  let pool = new Agent();
  const fetchThroughPool = ((input: string | URL, init?: RequestInit) =>
    undiciFetch(input, { ...(init as object), dispatcher: pool })) as unknown as typeof fetch;
  return {
    http,
    url: http.url,
    async connect(headers = {}) {
      const client = new Client({ name: "http-test", version: "1.0.0" });
      const transport = new StreamableHTTPClientTransport(new URL(http.url), {
        requestInit: { headers },
        fetch: fetchThroughPool,
      });
      await client.connect(transport);
      return client;
    },
    async closeClientPool() {
      await pool.close();
      pool = new Agent();
    },
    async close() {
      // The server first: it ends the clients' open event streams, which the pool would wait for.
      await http.close();
      await pool.destroy();
      await dispatcher.close();
    },
  };
}

/** Calls a tool and returns its result, typed. */
export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}) {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON when the body is JSON, else the text. */
  body: unknown;
}

export const MCP_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

/** An initialize request body, as an SDK client sends it. */
export function initializeBody(id = 1): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
  });
}

/**
 * One request on a fresh connection (no pool: nothing lingers), with exactly the headers given.
 * Resolves with the answer even when the server answers before the body is fully sent.
 */
export function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? "GET", headers: options.headers, agent: false });
    req.once("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.once("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {}
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
      });
    });
    // A write cut short by an early answer (413) is expected; any other failure before an answer is not.
    req.on("error", (error) => reject(error));
    req.end(options.body);
  });
}

/** The JSON-RPC error body the server answers malformed requests with. */
export function rpcError(code: number, message: string) {
  return { jsonrpc: "2.0", error: { code, message }, id: null };
}

export interface GatedUpstream {
  url: string;
  /** The X-API-KEY of every request received, in order of arrival. */
  keys: string[];
  /** Resolves once `count` requests have arrived. */
  arrived(count: number): Promise<void>;
  /** Answers every held request, and every later one at once. */
  release(): void;
  close(): Promise<void>;
}

/** An upstream that holds each request until release(): a call stays in flight as long as a test needs. */
export async function startGatedUpstream(body: unknown = { projects: [] }): Promise<GatedUpstream> {
  const keys: string[] = [];
  const held: ServerResponse[] = [];
  const waiters: { count: number; wake: () => void }[] = [];
  let released = false;
  const answer = (res: ServerResponse) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };
  const server = createServer((req, res) => {
    keys.push(String(req.headers["x-api-key"]));
    for (const waiter of waiters.filter((w) => keys.length >= w.count)) waiter.wake();
    req.resume();
    if (released) answer(res);
    else held.push(res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    keys,
    arrived: (count) =>
      keys.length >= count ? Promise.resolve() : new Promise((wake) => waiters.push({ count, wake })),
    release() {
      released = true;
      for (const res of held.splice(0)) answer(res);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The JSON log lines written while `run` runs. */
export async function capturingLog<T>(
  run: () => Promise<T>,
): Promise<{ result: T; lines: Record<string, unknown>[] }> {
  const before = logLines().length;
  const result = await run();
  const written = logLines().slice(before);
  return { result, lines: written.map((line) => JSON.parse(line)) };
}

/** The JSON-RPC messages of an SSE answer body. */
export function sseMessages(body: unknown): unknown[] {
  return String(body)
    .split("\n")
    .filter((line) => line.startsWith("data: "))
    .map((line) => JSON.parse(line.slice("data: ".length)));
}

/** Opens a session with plain requests (initialize, then initialized) and no event stream; its id. */
export async function openRawSession(url: string, headers: Record<string, string> = {}): Promise<string> {
  const init = await rawRequest(url, {
    method: "POST",
    headers: { ...MCP_HEADERS, ...headers },
    body: initializeBody(),
  });
  const sessionId = init.headers["mcp-session-id"];
  if (init.status !== 200 || typeof sessionId !== "string") throw new Error(`initialize: ${init.status}`);
  const initialized = await rawRequest(url, {
    method: "POST",
    headers: { ...MCP_HEADERS, ...headers, "mcp-session-id": sessionId },
    body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
  });
  if (initialized.status !== 202) throw new Error(`initialized: ${initialized.status}`);
  return sessionId;
}

/** A 2026-07-28 tools/call as raw HTTP: the envelope in `_meta` (plus `meta`) and the standard headers. */
export function modernToolCall(id: number, name: string, args: Record<string, unknown>, meta = {}) {
  const envelope = { [PROTOCOL_VERSION_META_KEY]: "2026-07-28", [CLIENT_CAPABILITIES_META_KEY]: {}, ...meta };
  const params = { name, arguments: args, _meta: envelope };
  return {
    method: "POST",
    headers: {
      ...MCP_HEADERS,
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": name,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params }),
  };
}

/** A tools/call request body. */
export function toolCallBody(name: string, args: Record<string, unknown> = {}, id = 7): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });
}

/** Polls `condition` every 10 ms, at most `attempts` times: for state that settles after events. */
export async function eventually(
  condition: () => boolean | Promise<boolean>,
  attempts = 500,
): Promise<boolean> {
  for (let i = 0; i < attempts; i++) {
    if (await condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return false;
}
