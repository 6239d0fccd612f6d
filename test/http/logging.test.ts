// Log notifications over HTTP, where the AI SDK's client reported each unasked one as an error: none
// until a 2025 session sets a level, and none for a 2026-07-28 request without a logLevel in its _meta.
import { LOG_LEVEL_META_KEY } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SERVER_NAME } from "../../src/version.js";
import { type Recorder, startRecorder } from "../helpers.js";
import {
  type HttpHarness,
  MCP_HEADERS,
  modernToolCall,
  openRawSession,
  rawRequest,
  sseMessages,
  startHttp,
  toolCallBody,
} from "../http-helpers.js";

const BAD_ARGUMENTS = { view: "bogus" };
/** What the server logs for a call refused over its arguments, as a client receives it. */
const REFUSED_ENTRY = {
  jsonrpc: "2.0",
  method: "notifications/message",
  params: {
    level: "warning",
    logger: SERVER_NAME,
    data: { message: "tool call failed", tool: "tasks_query", reason: "invalid arguments" },
  },
};

let upstream: Recorder;
let harness: HttpHarness;

beforeAll(async () => {
  upstream = await startRecorder();
  harness = await startHttp([], {
    workspaceBaseUrl: upstream.url,
    workspaceApiKey: "k-http-logging",
    workspaceProjectId: "5b0c7a52-3c1e-4f6a-9d2b-7e8f9a0b1c2d",
  });
});

afterAll(async () => {
  await harness.close();
  await upstream.close();
});

/** The messages of a 2025 session's POST answer: its event stream, or its one JSON body. */
async function post2025(sessionId: string, body: string): Promise<unknown[]> {
  const answer = await rawRequest(harness.url, {
    method: "POST",
    headers: { ...MCP_HEADERS, "mcp-session-id": sessionId },
    body,
  });
  expect(answer.status).toBe(200);
  return typeof answer.body === "string" ? sseMessages(answer.body) : [answer.body];
}

/** The messages of a 2026-07-28 tool call's answer; `logLevel` goes in its _meta when given. */
async function post2026(id: number, logLevel?: string): Promise<unknown[]> {
  const meta = logLevel ? { [LOG_LEVEL_META_KEY]: logLevel } : {};
  const answer = await rawRequest(harness.url, modernToolCall(id, "tasks_query", BAD_ARGUMENTS, meta));
  expect(answer.status).toBe(200);
  return typeof answer.body === "string" ? sseMessages(answer.body) : [answer.body];
}

const methods = (messages: unknown[]) =>
  messages.map((message) => (message as { method?: string }).method ?? "(answer)");

describe("log notifications over HTTP", () => {
  it("2025 session: none before logging/setLevel, then the entries at that level and above", async () => {
    const session = await openRawSession(harness.url);
    const before = await post2025(session, toolCallBody("tasks_query", BAD_ARGUMENTS, 2));
    expect(methods(before)).toEqual(["(answer)"]);

    const setLevel = { jsonrpc: "2.0", id: 3, method: "logging/setLevel", params: { level: "warning" } };
    expect(await post2025(session, JSON.stringify(setLevel))).toEqual([
      { jsonrpc: "2.0", id: 3, result: {} },
    ]);

    const after = await post2025(session, toolCallBody("tasks_query", BAD_ARGUMENTS, 4));
    expect(methods(after)).toEqual(["notifications/message", "(answer)"]);
    expect(after[0]).toEqual(REFUSED_ENTRY);
    expect(after[1]).toMatchObject({ id: 4, result: { isError: true } });
    expect(upstream.requests).toEqual([]); // refused calls send nothing
  });

  it("2026-07-28: none without a logLevel in _meta; with one, the entries at that level and above", async () => {
    expect(methods(await post2026(5))).toEqual(["(answer)"]);
    expect(methods(await post2026(6, "error"))).toEqual(["(answer)"]);
    const asked = await post2026(7, "warning");
    expect(methods(asked)).toEqual(["notifications/message", "(answer)"]);
    expect(asked[0]).toEqual(REFUSED_ENTRY);
    expect(asked[1]).toMatchObject({ id: 7, result: { isError: true } });
  });
});
