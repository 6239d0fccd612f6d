// MCP logging: tool call failures reach the client as notifications/message once it asks for them
// (logging/setLevel in the 2025 revisions, a logLevel in each 2026-07-28 request's _meta), and stderr
// always; they name the tool and the status only. A client that never asked gets none.
import type { LoggingMessageNotification } from "@modelcontextprotocol/client";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type RecordedHarness, startOnRecorder } from "../helpers.js";

const KEY = "secret-key-0123456789";

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
