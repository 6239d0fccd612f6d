// Telemetry as an operator's collector sees it: the server built as the CLI builds it, telemetry
// started as the CLI starts it, exporting OTLP to a receiver on loopback. A call's server span is the
// child of the traceparent its client sent, the upstream saw the same trace, and failures, retries,
// cancellations and tool errors show as OpenTelemetry's MCP and HTTP conventions say.
import { InMemoryTransport, Client as V2Client } from "@modelcontextprotocol/client";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createDispatcher } from "../../src/clients/http.js";
import { createUpstreams } from "../../src/clients/index.js";
import type { TelemetrySettings } from "../../src/config/types.js";
import { setLogLevel } from "../../src/log.js";
import { PROMPTS } from "../../src/prompts/definitions.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { buildServer } from "../../src/server.js";
import { startTelemetry, stopTelemetry } from "../../src/telemetry/index.js";
import { ALL_TOOL_NAMES } from "../../src/tools/register.js";
import { sandboxSettings, startInMemory, startOnRecorder, startRecorder, TEST_LIMITS } from "../helpers.js";
import { logLines } from "../log-capture.js";
import {
  type OtlpReceiver,
  type ReceivedSpan,
  SPAN_KIND_CLIENT,
  SPAN_KIND_SERVER,
  startOtlpReceiver,
} from "../otlp-receiver.js";
import { skipRetryWaits } from "../retry-clock.js";

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_ID = "00f067aa0ba902b7";
const TRACEPARENT = `00-${TRACE_ID}-${PARENT_ID}-01`;
/** Text a person typed: it must reach no span, metric or log field unless content recording is on. */
const PERSON_TEXT = "Ticket about Marguerite's overdue invoice";
const KEY = "telemetry-key-5f0c1d2e3a4b";
const NAMES = { tools: ALL_TOOL_NAMES, prompts: new Set(PROMPTS.map((prompt) => prompt.name)) };
const OFF: TelemetrySettings = { metricsHost: "127.0.0.1", recordContent: false };

// One sandbox for the file: no test writes to it, and the one that reads its requests takes those of
// its own path, which no other test calls. The telemetry under test is the MCP server's, started per test.
let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ record: true });
});
afterAll(async () => {
  await sandbox.close();
});

let receiver: OtlpReceiver;
beforeEach(async () => {
  receiver = await startOtlpReceiver();
});
afterEach(async () => {
  await stopTelemetry();
  await receiver.close();
});

async function start(settings: Partial<TelemetrySettings> = {}, protocol = "http/json") {
  const env = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: protocol };
  const active = await startTelemetry({ ...OFF, ...settings }, env, NAMES);
  expect(active).toBeDefined();
}

const serverSpans = () => receiver.spans().filter((span) => span.kind === SPAN_KIND_SERVER);
const clientSpans = () => receiver.spans().filter((span) => span.kind === SPAN_KIND_CLIENT);
const only = (spans: ReceivedSpan[], name: string) => {
  const found = spans.filter((span) => span.name === name);
  expect(found.map((span) => span.name)).toEqual([name]);
  return found[0]!;
};

describe("telemetry off", () => {
  it("starts nothing when no endpoint and no metrics port is set", async () => {
    expect(await startTelemetry(OFF, {}, NAMES)).toBeUndefined();
    expect(await startTelemetry(OFF, { OTEL_EXPORTER_OTLP_ENDPOINT: "  " }, NAMES)).toBeUndefined();
    expect(
      await startTelemetry({ ...OFF, metricsPort: 0 }, { OTEL_SDK_DISABLED: "true" }, NAMES),
    ).toBeUndefined();
  });
});

describe("a tool call with _meta.traceparent, on the sandbox", () => {
  it("is a server span child of the client's, whose client span's traceparent reached the API", async () => {
    await start();
    setLogLevel("debug");
    const mcp = await startInMemory(sandboxSettings(sandbox));
    const result = await mcp.client.callTool({
      name: "tasks_query",
      arguments: { query: { filter: { title_contains: PERSON_TEXT } } },
      _meta: { traceparent: TRACEPARENT },
    });
    expect(result.isError).toBeUndefined();
    await mcp.close();
    await stopTelemetry();

    const call = only(serverSpans(), "tools/call tasks_query");
    expect(call.traceId).toBe(TRACE_ID);
    expect(call.parentSpanId).toBe(PARENT_ID);
    expect(call.service).toBe("agent-workspace-mcp");
    expect(call.statusCode).toBe(0);
    expect(call.attributes).toEqual({
      "mcp.method.name": "tools/call",
      "gen_ai.tool.name": "tasks_query",
      "gen_ai.operation.name": "execute_tool",
      "jsonrpc.request.id": expect.any(String),
      "mcp.protocol.version": "2025-11-25",
      "network.transport": "pipe",
    });
    const upstream = only(clientSpans(), "POST /api/v1/business/tasks/query");
    expect(upstream.traceId).toBe(TRACE_ID);
    expect(upstream.parentSpanId).toBe(call.spanId);
    expect(upstream.attributes).toMatchObject({
      "http.request.method": "POST",
      "url.template": "/api/v1/business/tasks/query",
      "agent_workspace.upstream.api": "workspace",
      "http.response.status_code": 200,
      "server.address": "127.0.0.1",
    });
    const sent = sandbox.requests.filter((request) => request.path === "/api/v1/business/tasks/query");
    expect(sent.map((request) => request.headers.traceparent)).toEqual([
      `00-${TRACE_ID}-${upstream.spanId}-01`,
    ]);
    // The log line written inside the call carries its span's ids.
    const line = logLines()
      .map((text) => JSON.parse(text) as Record<string, unknown>)
      .find((entry) => entry.message === "tool call");
    expect(line).toMatchObject({ trace_id: TRACE_ID, span_id: call.spanId, tool: "tasks_query" });
    // Every request of the session (initialize, tools/list, the call) was a span of its own.
    expect(serverSpans().map((span) => span.name)).toEqual([
      "initialize",
      "tools/list",
      "tools/call tasks_query",
    ]);

    const durations = receiver.points("mcp.server.operation.duration");
    expect(durations.find((point) => point.attributes["gen_ai.tool.name"] === "tasks_query")).toMatchObject({
      value: 1,
      attributes: { "mcp.method.name": "tools/call", "network.transport": "pipe" },
    });
    const upstreamRequests = receiver.points("http.client.request.duration");
    expect(
      upstreamRequests.map((point) => [
        point.attributes["url.template"],
        point.attributes["http.response.status_code"],
        point.value,
      ]),
    ).toEqual([["/api/v1/business/tasks/query", 200, 1]]);
    const everything = [receiver.allText(), ...logLines()].join("\n");
    expect(everything).not.toContain(sandbox.apiKey);
    expect(everything).not.toContain(PERSON_TEXT);
  });

  it("exports in http/protobuf too: the trace's id travels as its 16 bytes", async () => {
    await start({}, "http/protobuf");
    const mcp = await startInMemory(sandboxSettings(sandbox));
    await mcp.client.callTool({ name: "whoami", arguments: {}, _meta: { traceparent: TRACEPARENT } });
    await mcp.close();
    await stopTelemetry();
    const traces = receiver.exports.filter((e) => e.path === "/v1/traces");
    expect(traces.map((e) => e.contentType)).toEqual(["application/x-protobuf"]);
    expect(traces[0]!.body.includes(Buffer.from(TRACE_ID, "hex"))).toBe(true);
    expect(
      receiver.exports.some((e) => e.path === "/v1/metrics" && e.contentType === "application/x-protobuf"),
    ).toBe(true);
  });

  it("records arguments and results only when asked, and never the key", async () => {
    await start({ recordContent: true });
    const settings = { workspaceApiKey: KEY, workspaceProjectId: "6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b" };
    const mcp = await startOnRecorder(settings, () => ({ body: { data: [], next_cursor: null } }));
    await mcp.client.callTool({
      name: "tasks_query",
      arguments: { query: { filter: { title_contains: `${PERSON_TEXT} ${KEY}` } } },
    });
    await mcp.close();
    await stopTelemetry();
    const call = only(serverSpans(), "tools/call tasks_query");
    expect(call.attributes["gen_ai.tool.call.arguments"]).toContain(PERSON_TEXT);
    expect(call.attributes["gen_ai.tool.call.arguments"]).toContain(`${PERSON_TEXT} [redacted]`);
    expect(call.attributes["gen_ai.tool.call.result"]).toContain('"data":[]');
    expect(receiver.allText()).not.toContain(KEY);
  });
});

describe("failures as the conventions say", () => {
  it("a failing upstream: the call is a tool_error, its attempt carries the status", async () => {
    await start();
    const mcp = await startOnRecorder({ workspaceApiKey: KEY }, () => ({
      status: 500,
      body: { detail: "down" },
    }));
    const result = await mcp.call("whoami");
    expect(result.isError).toBe(true);
    await mcp.close();
    await stopTelemetry();
    const call = only(serverSpans(), "tools/call whoami");
    expect(call.attributes["error.type"]).toBe("tool_error");
    expect(call.statusCode).toBe(2);
    const attempt = only(clientSpans(), "GET /api/v1/business/whoami");
    expect(attempt.attributes).toMatchObject({ "http.response.status_code": 500, "error.type": "500" });
    expect(attempt.statusCode).toBe(2);
    expect(
      receiver
        .points("mcp.server.operation.duration")
        .find((p) => p.attributes["gen_ai.tool.name"] === "whoami"),
    ).toMatchObject({ attributes: { "error.type": "tool_error" }, value: 1 });
  });

  it("a retried 503: two attempts, the second numbered, the retry counted with its reason", async () => {
    const clock = skipRetryWaits();
    try {
      await start();
      let calls = 0;
      const mcp = await startOnRecorder({ workspaceApiKey: KEY }, () =>
        calls++ === 0 ? { status: 503, body: { detail: "busy" } } : { body: { user: {}, projects: [] } },
      );
      await mcp.call("whoami");
      await mcp.close();
      await stopTelemetry();
    } finally {
      clock.restore();
    }
    const call = only(serverSpans(), "tools/call whoami");
    const attempts = clientSpans();
    expect(
      attempts.map((span) => [
        span.attributes["http.response.status_code"],
        span.attributes["error.type"],
        span.attributes["http.request.resend_count"],
      ]),
    ).toEqual([
      [503, "503", undefined],
      [200, undefined, 1],
    ]);
    expect(attempts.every((span) => span.parentSpanId === call.spanId)).toBe(true);
    expect(receiver.points("agent_workspace.upstream.retries")).toEqual([
      {
        metric: "agent_workspace.upstream.retries",
        attributes: {
          "agent_workspace.upstream.api": "workspace",
          "url.template": "/api/v1/business/whoami",
          "agent_workspace.retry.reason": "503",
        },
        value: 1,
      },
    ]);
  });

  it("a cancelled call: its span and its attempt end as cancelled, and it is counted", async () => {
    await start();
    let arrived!: () => void;
    const requestArrived = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const mcp = await startOnRecorder({ workspaceApiKey: KEY }, () => {
      arrived();
      return new Promise(() => {}); // never answers
    });
    const controller = new AbortController();
    const call = mcp.call("whoami", {}, { signal: controller.signal });
    await requestArrived;
    controller.abort();
    await expect(call).rejects.toThrow();
    await mcp.close();
    await stopTelemetry();
    const span = only(serverSpans(), "tools/call whoami");
    expect(span.attributes["error.type"]).toBe("cancelled");
    expect(only(clientSpans(), "GET /api/v1/business/whoami").attributes["error.type"]).toBe("cancelled");
    expect(
      receiver
        .points("agent_workspace.requests.cancelled")
        .map((p) => [p.attributes["gen_ai.tool.name"], p.value]),
    ).toEqual([["whoami", 1]]);
  });

  it("a tool error before anything is sent: tool_error, and no attempt", async () => {
    await start();
    const mcp = await startOnRecorder({ workspaceApiKey: KEY });
    const result = await mcp.call("tasks_query", { query: { pagination: { page_size: "many" } } });
    expect(result.isError).toBe(true);
    await mcp.close();
    await stopTelemetry();
    expect(only(serverSpans(), "tools/call tasks_query").attributes["error.type"]).toBe("tool_error");
    expect(clientSpans()).toEqual([]);
  });

  it("an unknown tool: the JSON-RPC code, and the name the client sent kept out", async () => {
    await start();
    const mcp = await startOnRecorder({ workspaceApiKey: KEY });
    await expect(mcp.call(PERSON_TEXT)).rejects.toThrow();
    await mcp.close();
    await stopTelemetry();
    const span = only(serverSpans(), "tools/call");
    expect(span.attributes).toMatchObject({
      "gen_ai.tool.name": "_OTHER",
      "error.type": "-32602",
      "rpc.response.status_code": "-32602",
    });
    expect(receiver.allText()).not.toContain(PERSON_TEXT);
  });
});

describe("counted events", () => {
  it("an answer the sanitizer changed is counted by tool", async () => {
    await start();
    const mcp = await startInMemory(sandboxSettings(sandbox));
    const inbox = sandbox.ids.analyticsProjects[2];
    const result = await mcp.call("geo_keywords", { project_id: inbox });
    expect((result.structuredContent as Record<string, unknown>).sanitized).toEqual(expect.any(String));
    await mcp.call("geo_projects");
    await mcp.close();
    await stopTelemetry();
    expect(receiver.points("agent_workspace.answers.sanitized").map((p) => [p.attributes, p.value])).toEqual([
      [{ "gen_ai.tool.name": "geo_keywords" }, 1],
    ]);
  });

  it("a write confirmation is counted by its answer", async () => {
    await start();
    const upstream = await startRecorder();
    const settings = {
      ...TEST_LIMITS,
      workspaceBaseUrl: upstream.url,
      workspaceApiKey: KEY,
      workspaceProjectId: "6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b",
      confirmWrites: true,
    };
    const dispatcher = createDispatcher(settings);
    const server = buildServer(createUpstreams(settings, dispatcher));
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new V2Client(
      { name: "confirm", version: "1.0.0" },
      { capabilities: { elicitation: { form: {} } } },
    );
    client.setRequestHandler("elicitation/create", async () => ({ action: "decline" }));
    await client.connect(clientSide);
    const result = await client.callTool({
      name: "tasks_comments",
      arguments: { task_id: "0b7c1f52-9d3e-4a61-8f2b-6c4d5e7f8a90", body: PERSON_TEXT },
    });
    expect(result.structuredContent).toEqual({ sent: false, decision: "declined" });
    await client.close();
    await server.close();
    await dispatcher.close();
    await upstream.close();
    await stopTelemetry();
    expect(receiver.points("agent_workspace.confirmations").map((p) => [p.attributes, p.value])).toEqual([
      [{ "gen_ai.tool.name": "tasks_comments", "agent_workspace.confirmation.answer": "decline" }, 1],
    ]);
    expect(upstream.requests).toEqual([]);
    expect(receiver.allText()).not.toContain(PERSON_TEXT);
  });
});
