// tasks_comments creates data: once its request may have reached the upstream it is never sent again,
// so a failure cannot post a comment twice. Only a refused connection (nothing sent) is retried.
import type { Progress } from "@modelcontextprotocol/client";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type FaultHandler, type FaultUpstream, faults, startFaultUpstream } from "../fault-upstream.js";
import { freePort, type InMemoryHarness, startInMemory, textOf } from "../helpers.js";
import { cueRetryWaits } from "../retry-clock.js";

const KEY = "create-key-0123456789";
const PROJECT = "11111111-1111-4111-8111-111111111111";
const TASK = "55555555-5555-4555-8555-555555555555";
const TIMEOUT_MS = 400;
const COMMENT = { task_id: TASK, body: "Shipped." };
const SENT = { action: "create", task_id: TASK, body: "Shipped." };
const NOT_RETRIED =
  "It was not retried, because tasks_comments creates data: check whether it took effect before calling it again.";

describe("tasks_comments is sent at most once once it may have arrived", () => {
  let upstream: FaultUpstream;
  let mcp: InMemoryHarness;

  beforeAll(async () => {
    upstream = await startFaultUpstream();
    mcp = await startInMemory({
      workspaceBaseUrl: upstream.url,
      workspaceApiKey: KEY,
      workspaceProjectId: PROJECT,
      timeoutMs: TIMEOUT_MS,
    });
  });
  afterAll(async () => {
    await mcp.close();
    await upstream.allSocketsClosed();
    await upstream.close();
  });
  afterEach(() => {
    upstream.requests.length = 0;
  });

  async function commentAgainst(handler: FaultHandler): Promise<string> {
    upstream.answerWith(handler);
    const text = textOf(await mcp.call("tasks_comments", COMMENT));
    expect(upstream.requests.map(({ method, path, body }) => ({ method, path, body }))).toEqual([
      { method: "POST", path: "/api/v1/business/tasks/comments", body: SENT },
    ]);
    return text;
  }

  it("a 503 reaches the upstream once", async () => {
    expect(await commentAgainst(faults.status(503, { detail: "overloaded" }, { "retry-after": "1" }))).toBe(
      `tasks_comments: the workspace API failed with 503. The API said: overloaded. ${NOT_RETRIED}`,
    );
  });

  it("a reset mid-answer reaches the upstream once", async () => {
    expect(await commentAgainst(faults.resetMidBody())).toBe(
      `tasks_comments: lost the connection to the workspace API at ${upstream.url} (ECONNRESET). ${NOT_RETRIED}`,
    );
  });

  it("a timeout reaches the upstream once", async () => {
    expect(await commentAgainst(faults.hang())).toBe(
      `tasks_comments: the workspace API did not answer within ${TIMEOUT_MS} ms (UPSTREAM_TIMEOUT_MS). ${NOT_RETRIED}`,
    );
    await upstream.requests[0]?.socketClosed;
  });

  it("a 429 reaches the upstream once", async () => {
    expect(await commentAgainst(faults.status(429, {}, { "retry-after": "1" }))).toBe(
      "tasks_comments: 429 Too Many Requests: rate limited. Retry after 1 s.",
    );
  });
});

describe("a refused connection sent nothing, so even tasks_comments retries it", () => {
  it("posts the comment once the upstream starts listening during the backoff", async () => {
    const port = await freePort();
    const mcp = await startInMemory({
      workspaceBaseUrl: `http://127.0.0.1:${port}`,
      workspaceApiKey: KEY,
      workspaceProjectId: PROJECT,
    });
    // The backoff lasts until the upstream listens, instead of its 250 to 500 ms.
    const clock = cueRetryWaits();
    let upstream: Promise<FaultUpstream> | undefined;
    const progress: Progress[] = [];
    try {
      const result = await mcp.call("tasks_comments", COMMENT, {
        onprogress: (update) => {
          progress.push(update);
          upstream ??= startFaultUpstream(port).then((started) => {
            started.answerWith(faults.ok({ id: "c1", task_id: TASK, body: "Shipped." }));
            clock.endWaits();
            return started;
          });
        },
      });
      expect(result.structuredContent).toEqual({ id: "c1", task_id: TASK, body: "Shipped." });
      expect(progress[0]?.message).toMatch(
        /^connection refused \(ECONNREFUSED\); retrying in 0\.\d s \(attempt 2 of 3\)$/,
      );
      expect(clock.waits).toHaveLength(1);
      const started = await (upstream as Promise<FaultUpstream>);
      expect(started.requests.map(({ method, body }) => ({ method, body }))).toEqual([
        { method: "POST", body: SENT },
      ]);
    } finally {
      clock.restore();
      await mcp.close();
      await (await upstream)?.close();
    }
  });
});
