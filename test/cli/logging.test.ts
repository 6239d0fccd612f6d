// MCP logging: tool call failures reach the client as notifications/message once it asks for them
// (logging/setLevel in the 2025 revisions, a logLevel in each 2026-07-28 request's _meta), and stderr
// always; they name the tool and the status only. A client that never asked gets none.
import type { LoggingMessageNotification } from "@modelcontextprotocol/client";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { setLogLevel } from "../../src/log.js";
import { freePort, type RecordedHarness, startInMemory, startOnRecorder } from "../helpers.js";
import { logLines } from "../log-capture.js";
import { type FakeRetryClock, skipRetryWaits } from "../retry-clock.js";

const KEY = "secret-key-0123456789";
const TASK = "55555555-5555-4555-8555-555555555555";

describe("log notifications to the client", () => {
  let mcp: RecordedHarness;
  let received: LoggingMessageNotification["params"][];

  beforeEach(async () => {
    // whoami answers 200; tasks_query 404; geo_projects 500 (the API's own error echoes the key).
    mcp = await startOnRecorder(
      {
        workspaceApiKey: KEY,
        workspaceProjectId: "11111111-1111-4111-8111-111111111111",
        analyticsProjectId: "22222222-2222-4222-8222-222222222222",
        retryBudgetMs: 0,
      },
      (request) => {
        if (request.path.endsWith("/tasks/query")) return { status: 404, body: { detail: "no such task" } };
        if (request.path.endsWith("/projects")) return { status: 500, body: { detail: `bad key ${KEY}` } };
        return { body: { projects: [] } };
      },
    );
    received = [];
    mcp.client.setNotificationHandler("notifications/message", (notification) => {
      received.push(notification.params);
    });
  });
  afterEach(async () => {
    await mcp.close();
  });

  const failure = (tool: string, level: string, fields: Record<string, unknown>) => ({
    level,
    logger: "agent-workspace-mcp",
    data: { message: "tool call failed", tool, ...fields },
  });

  it("declares the logging capability", () => {
    expect(mcp.client.getServerCapabilities()?.logging).toEqual({});
  });

  it("sends nothing to a client that has not set a level", async () => {
    await mcp.call("tasks_query", { view: "list" });
    await mcp.call("geo_projects");
    expect(received).toEqual([]);
  });

  it("at warning, sends failures at warning (4xx, bad arguments) and error (5xx), never the key", async () => {
    await mcp.client.setLoggingLevel("warning");
    await mcp.call("tasks_query", { view: "list" });
    await mcp.call("tasks_query", { view: "sideways" });
    await mcp.call("geo_projects");
    await mcp.call("whoami");
    expect(received).toEqual([
      failure("tasks_query", "warning", { status: 404 }),
      failure("tasks_query", "warning", { reason: "invalid arguments" }),
      failure("geo_projects", "error", { status: 500 }),
    ]);
    expect(JSON.stringify(received)).not.toContain(KEY);
  });

  it("filters by the level the client sets", async () => {
    expect(await mcp.client.setLoggingLevel("error")).toEqual({});
    await mcp.call("tasks_query", { view: "list" });
    await mcp.call("geo_projects");
    expect(received).toEqual([failure("geo_projects", "error", { status: 500 })]);
  });

  it("sends each successful call at debug once the client asks for debug", async () => {
    await mcp.call("whoami");
    expect(received).toEqual([]);
    await mcp.client.setLoggingLevel("debug");
    await mcp.call("whoami");
    expect(received).toEqual([
      {
        level: "debug",
        logger: "agent-workspace-mcp",
        data: { message: "tool call", tool: "whoami", ms: expect.any(Number) },
      },
    ]);
  });
});

describe("upstream attempts at debug on stderr", () => {
  let clock: FakeRetryClock;
  beforeEach(() => {
    clock = skipRetryWaits();
    setLogLevel("debug");
  });
  afterEach(() => clock.restore());

  /** The debug lines of upstream attempts, without their time (`ms`, checked to be a number). */
  const attempts = () =>
    logLines()
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.message === "upstream attempt")
      .map(({ time: _time, ms, ...line }) => {
        expect(typeof ms).toBe("number");
        return line;
      });

  it("each attempt: method, route, status or network code, and the wait before the next; never the key", async () => {
    let whoamiAnswers = 0;
    const mcp = await startOnRecorder(
      { workspaceApiKey: KEY, workspaceProjectId: "11111111-1111-4111-8111-111111111111" },
      (request) => {
        if (request.path.endsWith("/whoami")) {
          whoamiAnswers++;
          return whoamiAnswers < 3
            ? { status: 503, headers: { "retry-after": "1" }, body: { detail: "busy" } }
            : { body: { projects: [] } };
        }
        if (request.path.endsWith("/tasks/comments")) return { status: 503, body: { detail: "busy" } };
        return { status: 429, headers: { "retry-after": "120" }, body: { detail: "slow down" } };
      },
    );
    try {
      await mcp.call("whoami");
      await mcp.call("tasks_comments", { task_id: TASK, body: "hello" });
      await mcp.call("tasks_query", { view: "list" });
    } finally {
      await mcp.close();
    }
    const line = (route: string, attempt: number, fields: Record<string, unknown>) => ({
      level: "debug",
      message: "upstream attempt",
      method: route.endsWith("whoami") ? "GET" : "POST",
      route,
      attempt,
      ...fields,
    });
    expect(attempts()).toEqual([
      line("/api/v1/business/whoami", 1, { status: 503, waitMs: 1000 }),
      line("/api/v1/business/whoami", 2, { status: 503, waitMs: 1000 }),
      line("/api/v1/business/whoami", 3, { status: 200 }),
      line("/api/v1/business/tasks/comments", 1, { status: 503, retry: "no" }),
      line("/api/v1/business/tasks/query", 1, {
        status: 429,
        retry: "no: beyond the budget",
        waitMs: 120_000,
      }),
    ]);
    expect(logLines().join("")).not.toContain(KEY);
  });

  it("a refused connection names its code; at info no attempt is logged", async () => {
    const port = await freePort();
    const settings = {
      workspaceApiKey: KEY,
      workspaceBaseUrl: `http://127.0.0.1:${port}`,
      analyticsBaseUrl: `http://127.0.0.1:${port}`,
    };
    const mcp = await startInMemory(settings);
    try {
      await mcp.call("whoami");
      expect(attempts().map(({ network, waitMs, retry }) => ({ network, waitMs, retry }))).toEqual([
        { network: "ECONNREFUSED", waitMs: clock.waits[0], retry: undefined },
        { network: "ECONNREFUSED", waitMs: clock.waits[1], retry: undefined },
        { network: "ECONNREFUSED", waitMs: undefined, retry: "no: last attempt" },
      ]);
      setLogLevel("info");
      const before = attempts().length;
      await mcp.call("whoami");
      expect(attempts()).toHaveLength(before);
    } finally {
      await mcp.close();
    }
  });
});
