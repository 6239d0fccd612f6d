// The built CLI with OTEL_EXPORTER_OTLP_ENDPOINT set, over stdio and HTTP, reached by a client of
// each protocol era that sends a traceparent in the call's _meta: the receiver gets the server span
// as that parent's child, and the sandbox (here, in the test process) saw the same trace on its request.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttpTransport,
} from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { listeningUrl } from "../every-tool.js";
import { CLI, childEnv, runCli, settingsOutcomeInProcess } from "../helpers.js";
import {
  type OtlpReceiver,
  SPAN_KIND_CLIENT,
  SPAN_KIND_SERVER,
  startOtlpReceiver,
} from "../otlp-receiver.js";
import { InPlaceStdioClientTransport } from "../stdio-client.js";

const PERSON_TEXT = "Call the plumber about Hortensia's leak";
const ERAS = ["2025", "2026-07-28"] as const;
type Era = (typeof ERAS)[number];

let sandbox: Sandbox;
let receiver: OtlpReceiver;
/** The stdio servers, one per era, spawned by their clients while the HTTP server starts. */
let stdioRuns: Map<Era, Promise<Run>>;
beforeAll(async () => {
  sandbox = await startSandbox({ record: true });
  receiver = await startOtlpReceiver();
  stdioRuns = new Map(ERAS.map((era) => [era, overStdio(era)]));
  for (const run of stdioRuns.values()) run.catch(() => {}); // its test reports a failure to start
  await startHttpServer();
});
afterAll(async () => {
  if (httpServer.exitCode === null) {
    httpServer.kill("SIGTERM");
    await once(httpServer, "exit");
  }
  await sandbox.close();
  await receiver.close();
});

const serverEnv = () =>
  childEnv({
    WORKSPACE_BASE_URL: sandbox.workspaceBaseUrl,
    ANALYTICS_BASE_URL: sandbox.analyticsBaseUrl,
    WORKSPACE_API_KEY: sandbox.apiKey,
    WORKSPACE_PROJECT_ID: sandbox.workspaceProjectId,
    ANALYTICS_PROJECT_ID: sandbox.analyticsProjectId,
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    OTEL_SERVICE_NAME: "telemetry-e2e",
    LOG_LEVEL: "debug",
  });

/** A fresh trace id and span id per case, so each case finds its own spans. */
function traceparentFor(index: number) {
  const traceId = `${"a".repeat(24)}${String(index).padStart(8, "0")}`;
  const parentId = `${"b".repeat(8)}${String(index).padStart(8, "0")}`;
  return { traceId, parentId, traceparent: `00-${traceId}-${parentId}-01` };
}

interface Run {
  call(meta: Record<string, string>): Promise<unknown>;
  /** Closes the client; a stdio server then exits, flushing its spans first. */
  close(): Promise<void>;
  /** All the server wrote to stderr. */
  stderr(): string;
  /** What it wrote to stderr since this client connected. */
  callLog(): string;
}

async function overStdio(era: Era): Promise<Run> {
  const params = { command: process.execPath, args: [CLI], env: serverEnv(), stderr: "pipe" as const };
  let stderr = "";
  const arguments_ = { query: { filter: { title_contains: PERSON_TEXT } } };
  if (era === "2025") {
    const transport = new StdioClientTransport(params);
    transport.stderr?.on("data", (chunk) => {
      stderr += chunk;
    });
    const client = new Client({ name: "otel-legacy", version: "1.0.0" });
    await client.connect(transport);
    return {
      call: (_meta) => client.callTool({ name: "tasks_query", arguments: arguments_, _meta }),
      close: () => client.close(),
      stderr: () => stderr,
      callLog: () => stderr,
    };
  }
  const transport = new InPlaceStdioClientTransport(params);
  transport.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  const client = new ModernClient(
    { name: "otel-modern", version: "1.0.0" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  await client.connect(transport);
  return {
    call: (_meta) => client.callTool({ name: "tasks_query", arguments: arguments_, _meta }),
    close: () => client.close(),
    stderr: () => stderr,
    callLog: () => stderr,
  };
}

/**
 * One HTTP server serves every HTTP case in turn, exporting its spans 50 ms after they end (a stdio
 * server flushes them as it exits); its stderr is kept from the start.
 */
let httpServer: ChildProcess;
let httpUrl: URL;
let httpStderr = "";

async function startHttpServer(): Promise<void> {
  httpServer = spawn(process.execPath, [CLI, "--transport", "http", "--port", "0"], {
    env: { ...serverEnv(), OTEL_BSP_SCHEDULE_DELAY: "50" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  httpServer.stderr!.on("data", (chunk) => {
    httpStderr += chunk;
  });
  httpUrl = new URL(await listeningUrl(httpServer));
}

async function overHttp(era: Era): Promise<Run> {
  const since = httpStderr.length;
  const arguments_ = { query: { filter: { title_contains: PERSON_TEXT } } };
  const run = { stderr: () => httpStderr, callLog: () => httpStderr.slice(since) };
  if (era === "2025") {
    const client = new Client({ name: "otel-legacy", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(httpUrl));
    return {
      ...run,
      call: (_meta) => client.callTool({ name: "tasks_query", arguments: arguments_, _meta }),
      close: () => client.close(),
    };
  }
  const client = new ModernClient(
    { name: "otel-modern", version: "1.0.0" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  await client.connect(new ModernHttpTransport(httpUrl));
  return {
    ...run,
    call: (_meta) => client.callTool({ name: "tasks_query", arguments: arguments_, _meta }),
    close: () => client.close(),
  };
}

const spawnedOverStdio = (era: Era) => stdioRuns.get(era) as Promise<Run>;

const CASES = [
  ["stdio", "2025", spawnedOverStdio],
  ["stdio", "2026-07-28", spawnedOverStdio],
  ["HTTP", "2025", overHttp],
  ["HTTP", "2026-07-28", overHttp],
] as const;

describe.each(CASES.map((entry, index) => [...entry, index] as const))(
  "over %s, a %s client",
  (transport, era, open, index) => {
    it("sends _meta.traceparent: the server span is its child, and the API saw the same trace", async () => {
      const { traceId, parentId, traceparent } = traceparentFor(index);
      const run = await open(era);
      await run.call({ traceparent });
      await run.close();
      // A stdio server flushes its spans as it exits, after the client has let go of it; the HTTP
      // server 50 ms after they end.
      await expect
        .poll(() => receiver.spans().filter((s) => s.traceId === traceId).length, { timeout: 15_000 })
        .toBe(2);

      const spans = receiver.spans().filter((span) => span.traceId === traceId);
      const server = spans.find((span) => span.kind === SPAN_KIND_SERVER);
      const client = spans.find((span) => span.kind === SPAN_KIND_CLIENT);
      expect(server).toMatchObject({
        name: "tools/call tasks_query",
        parentSpanId: parentId,
        service: "telemetry-e2e",
        attributes: {
          "mcp.method.name": "tools/call",
          "gen_ai.tool.name": "tasks_query",
          "gen_ai.operation.name": "execute_tool",
          "mcp.protocol.version": era === "2025" ? "2025-11-25" : "2026-07-28",
          "network.transport": transport === "stdio" ? "pipe" : "tcp",
          "jsonrpc.request.id": expect.any(String),
        },
      });
      if (transport === "HTTP" && era === "2025") {
        expect(server?.attributes["mcp.session.id"]).toMatch(/^[0-9a-f-]{36}$/);
      }
      expect(client).toMatchObject({
        name: "POST /api/v1/business/tasks/query",
        parentSpanId: server?.spanId,
      });
      const seen = sandbox.requests.filter((request) => request.headers.traceparent?.includes(traceId));
      expect(seen.map((request) => [request.path, request.headers.traceparent])).toEqual([
        ["/api/v1/business/tasks/query", `00-${traceId}-${client?.spanId}-01`],
      ]);
      const lines = run
        .callLog()
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(lines.find((line) => line.message === "tool call")).toMatchObject({
        trace_id: traceId,
        span_id: server?.spanId,
      });
      const exported = [receiver.allText(), run.stderr()].join("\n");
      expect(exported).not.toContain(sandbox.apiKey);
      expect(exported).not.toContain(PERSON_TEXT);
    });
  },
);

it("over HTTP, a traceparent header parents the call when _meta carries none", async () => {
  const { traceId, parentId, traceparent } = traceparentFor(9);
  const client = new Client({ name: "otel-header", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(httpUrl, { requestInit: { headers: { traceparent } } }),
  );
  await client.callTool({ name: "whoami", arguments: {} });
  await client.close();
  await expect
    .poll(() => receiver.spans().some((s) => s.traceId === traceId && s.name === "tools/call whoami"), {
      timeout: 15_000,
    })
    .toBe(true);
  const call = receiver.spans().find((span) => span.traceId === traceId && span.name === "tools/call whoami");
  expect(call?.parentSpanId).toBe(parentId);
});

// A variable OpenTelemetry's SDK cannot use is found as the server starts (src/serve.ts), after the
// settings read: the built CLI spawned, over stdio even. A setting read wrong is said before that
// (src/start-decision.ts), checked in process: a spawned run of that path is test/cli/e2e.test.ts's.
describe("settings telemetry cannot use stop the server with exit code 2", () => {
  it("an OTLP protocol other than http/protobuf and http/json: one line on stderr, nothing on stdout", async () => {
    expect(
      await runCli([], { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }),
    ).toEqual({
      code: 2,
      stdout: "",
      stderr:
        'agent-workspace-mcp: OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or http/json, got "grpc"\n',
    });
  });

  it("a metrics port that is the MCP port (in process)", async () => {
    expect(
      await settingsOutcomeInProcess(["--transport", "http", "--port", "3999", "--metrics-port", "3999"]),
    ).toEqual({
      stops: true,
      stderr: [
        "agent-workspace-mcp: --metrics-port (3999) must differ from --port: metrics have a listener of their own",
        "  --metrics-port <number>         serve Prometheus metrics at /metrics on its own port; 0 picks one (env MCP_METRICS_PORT)",
        "  --port <number>                 port; 0 picks a free one (default: 3000; env MCP_PORT)",
        "(agent-workspace-mcp --help lists every setting)",
        "",
      ].join("\n"),
    });
  });
});
