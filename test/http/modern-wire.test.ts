// The 2026-07-28 answer on the wire: the SDK's handler answers, our bridge to node:http writes it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setLogLevel } from "../../src/log.js";
import { type Recorder, startRecorder } from "../helpers.js";
import { type HttpHarness, modernToolCall, rawRequest, startHttp } from "../http-helpers.js";

const PROJECT = "5b0c7a52-3c1e-4f6a-9d2b-7e8f9a0b1c2d";
const TASKS = { items: [{ id: "t1", title: "Write the docs" }], next_cursor: null };

let upstream: Recorder;
let harness: HttpHarness;

beforeAll(async () => {
  setLogLevel("error"); // the server's request log is not this test's output
  upstream = await startRecorder(() => ({ body: TASKS }));
  harness = await startHttp([], {
    workspaceBaseUrl: upstream.url,
    workspaceApiKey: "k-modern-wire",
    workspaceProjectId: PROJECT,
  });
});

afterAll(async () => {
  await harness.close();
  await upstream.close();
});

const modernCall = (id: number) => modernToolCall(id, "tasks_query", { view: "list" });

describe("HTTP 2026-07-28 on the wire", () => {
  it("answers a tool call as one JSON body with its Content-Length, not a chunked stream", async () => {
    const answer = await rawRequest(harness.url, modernCall(3));
    expect(answer.status).toBe(200);
    expect(answer.headers["content-type"]).toBe("application/json");
    expect(answer.headers["transfer-encoding"]).toBeUndefined();
    expect(Number(answer.headers["content-length"])).toBe(Buffer.byteLength(JSON.stringify(answer.body)));
    expect(answer.body).toMatchObject({
      jsonrpc: "2.0",
      id: 3,
      result: { content: [{ type: "text", text: JSON.stringify(TASKS) }], structuredContent: TASKS },
    });
    expect(upstream.requests.at(-1)?.path).toBe("/api/v1/business/tasks/query");
  });

  it("refuses a request whose headers disagree with its body, as the SDK's handler does", async () => {
    const call = modernCall(4);
    const answer = await rawRequest(harness.url, {
      ...call,
      headers: { ...call.headers, "mcp-name": "whoami" },
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ jsonrpc: "2.0", id: 4, error: { code: -32020 } });
    expect(upstream.requests).toHaveLength(1); // nothing was sent for the refused request
  });
});
