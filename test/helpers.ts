// Test plumbing: a recording upstream on loopback, and the server reached by an SDK client, either in
// memory (the tests of the tools) or over real streamable HTTP (the tests of the transport).
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { createServer as createNetServer } from "node:net";
import {
  type ClientCapabilities,
  deserializeMessage,
  InMemoryTransport,
  type RequestOptions,
  serializeMessage,
  type Transport,
  type CallToolResult as V2CallToolResult,
  Client as V2Client,
} from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ReadBuffer, serializeMessage as serializeLine } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport as LegacyTransport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, expect } from "vitest";
import { createDispatcher } from "../src/clients/http.js";
import { createUpstreams } from "../src/clients/index.js";
import { parseCommandLine } from "../src/config/parse.js";
import type { HttpSettings, UpstreamSettings } from "../src/config/types.js";
import type { Sandbox } from "../src/sandbox/index.js";
import { buildServer, type ServerOptions } from "../src/server.js";
import { decideStart } from "../src/start-decision.js";
import type { ApiName } from "../src/tools/definition.js";
import { ALL_TOOL_NAMES, ENDPOINTS } from "../src/tools/register.js";
import { serveHttp } from "../src/transports/http/server.js";
import { perUserServers } from "../src/transports/http/user-servers.js";

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

export interface CannedResponse {
  status?: number;
  headers?: Record<string, string>;
  /** An object is sent as JSON; a string is sent as is. */
  body?: unknown;
}

export interface Recorder {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** An upstream that records every request and answers what `respond` says (200 `{}` by default). */
export async function startRecorder(
  respond: (request: RecordedRequest) => CannedResponse | Promise<CannedResponse> = () => ({ body: {} }),
): Promise<Recorder> {
  const requests: RecordedRequest[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    const recorded: RecordedRequest = {
      method: req.method ?? "",
      path: req.url ?? "",
      headers: req.headers,
      body: text ? JSON.parse(text) : undefined,
    };
    requests.push(recorded);
    const answer = await respond(recorded);
    const body = typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body ?? {});
    res.writeHead(answer.status ?? 200, { "content-type": "application/json", ...answer.headers });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * The URL of an upstream no test in the file may reach: a recorder started before the file's tests,
 * whose closing checks that no request arrived.
 */
export function unreachedUpstream(): () => string {
  let upstream: Recorder | undefined;
  beforeAll(async () => {
    upstream = await startRecorder();
  });
  afterAll(async () => {
    expect(upstream?.requests).toEqual([]);
    await upstream?.close();
  });
  return () => {
    if (!upstream) throw new Error("unreachedUpstream: its recorder starts in beforeAll");
    return upstream.url;
  };
}

/** Only the headers a test cares about: what the server chose to send, not what undici adds. */
export function sentHeaders(request: RecordedRequest): Record<string, string | undefined> {
  const pick = ["x-api-key", "x-project-id", "x-workspace-id", "content-type", "accept"];
  return Object.fromEntries(
    pick
      .filter((name) => request.headers[name] !== undefined)
      .map((name) => [name, String(request.headers[name])]),
  );
}

/**
 * Upstream limits for tests: the defaults, with a shorter timeout. Answers come in full form: these
 * tests compare what reaches the assistant with the upstream body (answers.test.ts covers concise).
 */
export const TEST_LIMITS = {
  timeoutMs: 5_000,
  retryBudgetMs: 20_000,
  maxResponseBytes: 10 * 1024 * 1024,
  concurrency: 8,
  responseFormat: "full",
} as const;

export interface McpHarness {
  client: Client;
  url: string;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

/** HTTP settings as the command line gives them: every default, port 0 (a free one), and `argv`. */
export function httpSettings(argv: string[] = []): HttpSettings {
  const command = parseCommandLine(["--transport", "http", "--port", "0", ...argv], {});
  if (command.kind !== "serve") throw new Error(`expected serve, got ${command.kind}`);
  return command.config.http;
}

export interface McpOptions {
  /** The tools the server serves (default: all). */
  tools?: ReadonlySet<string>;
  /** Headers the client sends with every request. */
  headers?: Record<string, string>;
}

/** The server over real streamable HTTP on loopback, driven by the SDK's Client. */
export async function startMcp(
  settings: Partial<UpstreamSettings>,
  { tools, headers }: McpOptions = {},
): Promise<McpHarness> {
  const upstreamSettings = { ...TEST_LIMITS, ...settings };
  const dispatcher = createDispatcher(upstreamSettings);
  const http = await serveHttp(
    perUserServers(upstreamSettings, dispatcher, tools ?? ALL_TOOL_NAMES),
    httpSettings(),
  );
  const client = new Client({ name: "test-client", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(http.url), { requestInit: { headers } }));
  await client.listTools(); // the Client checks structuredContent against each tool's outputSchema
  return {
    client,
    url: http.url,
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    close: async () => {
      await client.close();
      await http.close();
      await dispatcher.close();
    },
  };
}

export interface InMemoryHarness {
  client: V2Client;
  call(name: string, args?: Record<string, unknown>, options?: RequestOptions): Promise<V2CallToolResult>;
  close(): Promise<void>;
}

/**
 * The server as the CLI builds it, reached in memory by SDK v2's Client (2025 handshake): no socket on
 * the MCP side, while the upstreams stay real HTTP servers on loopback, called through undici.
 */
export async function startInMemory(
  settings: Partial<UpstreamSettings>,
  {
    tools,
    reportView,
    sandboxToday,
    capabilities,
  }: Pick<McpOptions, "tools"> &
    Pick<ServerOptions, "reportView" | "sandboxToday"> & { capabilities?: ClientCapabilities } = {},
): Promise<InMemoryHarness> {
  const upstreamSettings = { ...TEST_LIMITS, ...settings };
  const dispatcher = createDispatcher(upstreamSettings);
  const server = buildServer(createUpstreams(upstreamSettings, dispatcher), {
    tools,
    reportView,
    sandboxToday,
  });
  const client = new V2Client({ name: "test-client", version: "1.0.0" }, capabilities && { capabilities });
  await connectInMemory(server, client);
  await client.listTools(); // the Client checks structuredContent against each tool's outputSchema
  return {
    client,
    call: (name, args = {}, options) => client.callTool({ name, arguments: args }, options),
    close: async () => {
      await client.close();
      await server.close();
      await dispatcher.close();
    },
  };
}

/**
 * `client` (SDK v2's) connected in memory to `server`: startInMemory's link, and a test's own server's,
 * such as the problem server of bad settings.
 */
export async function connectInMemory(
  server: { connect(transport: Transport): Promise<void> },
  client: V2Client,
): Promise<void> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  for (const side of [clientSide, serverSide]) {
    // Each message crosses as a JSON line, parsed as the stdio wire parses it: neither side ever holds
    // the other's objects, and what JSON cannot carry is lost as it would be on any real transport.
    const send = side.send.bind(side);
    side.send = (message, options) => send(deserializeMessage(serializeMessage(message)), options);
  }
  await server.connect(serverSide);
  await client.connect(clientSide);
}

/** The settings --demo serves with: the sandbox's URLs, its key and its default projects. */
export function sandboxSettings(sandbox: Sandbox): Partial<UpstreamSettings> {
  return {
    workspaceBaseUrl: sandbox.workspaceBaseUrl,
    analyticsBaseUrl: sandbox.analyticsBaseUrl,
    workspaceApiKey: sandbox.apiKey,
    workspaceProjectId: sandbox.workspaceProjectId,
    analyticsProjectId: sandbox.analyticsProjectId,
  };
}

export interface RecordedHarness extends InMemoryHarness {
  upstream: Recorder;
}

/**
 * A recording upstream serving both APIs, and the in-memory server calling it with `settings` (the base
 * URLs are the recorder's); close() ends both.
 */
export async function startOnRecorder(
  settings: Partial<UpstreamSettings>,
  respond?: Parameters<typeof startRecorder>[0],
): Promise<RecordedHarness> {
  const upstream = await startRecorder(respond);
  const mcp = await startInMemory({
    workspaceBaseUrl: upstream.url,
    analyticsBaseUrl: upstream.url,
    ...settings,
  });
  return {
    ...mcp,
    upstream,
    close: async () => {
      await mcp.close();
      await upstream.close();
    },
  };
}

/** A tool result as either SDK's client gives it (SDK v2 types structuredContent as unknown). */
export type AnyCallToolResult = CallToolResult | V2CallToolResult;

/** The child's JSON log lines as they come; `next(message)` waits for the first with that message. */
export function logOf(child: ChildProcess) {
  const lines: Record<string, unknown>[] = [];
  let raw = "";
  const waiters: { message: string; wake: (line: Record<string, unknown>) => void }[] = [];
  child.stderr!.on("data", (chunk) => {
    raw += chunk;
    const complete = raw.split("\n");
    raw = complete.pop() ?? "";
    for (const text of complete.filter((line) => line.startsWith("{"))) {
      const line = JSON.parse(text) as Record<string, unknown>;
      lines.push(line);
      for (const waiter of waiters.filter((w) => w.message === line.message)) waiter.wake(line);
    }
  });
  return {
    lines,
    next: (message: string) =>
      new Promise<Record<string, unknown>>((wake) => {
        const seen = lines.find((line) => line.message === message);
        if (seen) wake(seen);
        else waiters.push({ message, wake });
      }),
  };
}

/** The text of a result's first content block. */
export function textOf(result: AnyCallToolResult): string {
  const block = result.content[0];
  return block?.type === "text" ? block.text : "";
}

/** The built entry point; `npm test` builds dist/ first. */
export const CLI = new URL("../dist/cli.js", import.meta.url).pathname;

/** A spawned server's environment: PATH, answers in full form (as TEST_LIMITS), and what the test gives. */
export function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? "", MCP_RESPONSE_FORMAT: "full" };
  return { ...env, ...extra };
}

/** Runs the built CLI until it exits (for runs that end by themselves: --version, a bad setting). */
export async function runCli(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: childEnv(env),
    stdio: ["pipe", "pipe", "pipe"],
  });
  // No client: a stdio server sees its input end (one serving despite bad settings then exits).
  child.stdin.end();
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const [code] = await once(child, "exit");
  return { code, stdout, stderr };
}

/** What the built CLI does with settings it cannot use, before it serves. */
export interface SettingsOutcome {
  /** Whether it stops with exit code 2; else it serves stdio, every answer saying what is wrong. */
  stops: boolean;
  /** All it writes to stderr (nothing goes to stdout). */
  stderr: string;
}

/**
 * What runCli(args, env) writes and whether it stops, before the server is loaded, asked of the CLI's own
 * decision (src/start-decision.ts) in process: undefined when the settings can be served. A file that
 * checks its cases with this spawns the CLI for one of them, to hold that the process writes the same to
 * stderr, nothing to stdout, and exits as said.
 */
export async function settingsOutcomeInProcess(
  args: string[],
  given: Record<string, string> = {},
): Promise<SettingsOutcome | undefined> {
  const decision = await decideStart(args, childEnv(given));
  if (decision.kind === "stop") return { stops: true, stderr: decision.stderr };
  if (decision.kind === "serve problems") return { stops: false, stderr: decision.stderr };
  return undefined;
}

/** The built CLI, spawned with `args`, stops as decided in process: exit code 2, that stderr, nothing on stdout. */
export async function expectCliStopsAsInProcess(args: string[]): Promise<void> {
  const inProcess = await settingsOutcomeInProcess(args);
  expect(inProcess?.stops).toBe(true);
  expect(await runCli(args)).toEqual({ code: 2, stdout: "", stderr: inProcess?.stderr });
}

/**
 * A client transport (SDK 1.x's interface) over the stdio of a child the test spawned itself, so that the
 * test keeps the child: its exit code, and signals. close() ends the child's stdin, and nothing more.
 */
export function childStdioTransport(child: ChildProcess): LegacyTransport {
  const buffer = new ReadBuffer();
  const transport: LegacyTransport = {
    async start() {
      child.stdout!.on("data", (chunk: Buffer) => {
        buffer.append(chunk);
        for (let message = buffer.readMessage(); message; message = buffer.readMessage()) {
          transport.onmessage?.(message);
        }
      });
      child.once("close", () => transport.onclose?.());
    },
    async send(message) {
      child.stdin!.write(serializeLine(message));
    },
    async close() {
      child.stdin!.end();
    },
  };
  return transport;
}

/** A loopback port nothing listens on (for refused connections, or a server started later). */
export async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The tools of each API, in the order the server publishes them: the endpoint table's. */
const toolsOf = (api: ApiName) =>
  ENDPOINTS.filter((endpoint) => endpoint.api === api).map(({ name }) => name);
export const WORKSPACE_TOOLS = toolsOf("workspace");
export const ANALYTICS_TOOLS = toolsOf("analytics");
export const TOOL_NAMES = [...WORKSPACE_TOOLS, ...ANALYTICS_TOOLS];
