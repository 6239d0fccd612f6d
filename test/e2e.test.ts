// End to end: the built server (dist/cli.js) spawned as a real process, over stdio and over HTTP,
// driven by the SDK's Client, against the sandbox. `npm test` builds dist/ first.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../src/sandbox/index.js";
import { SERVER_VERSION } from "../src/version.js";
import { CLI, childEnv, runCli, TOOL_NAMES } from "./helpers.js";

/** A valid call of every tool, with ids from the sandbox. */
function callsFor(ids: Sandbox["ids"]): [string, Record<string, unknown>][] {
  return [
    ["whoami", {}],
    ["tasks_query", { view: "list", query: { pagination: { page_size: 5 } } }],
    ["tasks_comments", { task_id: ids.taskId, body: "end-to-end comment" }],
    ["agent_runs_query", { scope: "task_runs", task_id: ids.taskId, limit: 3 }],
    [
      "attachments_download_url",
      { target: "comment", attachment_id: ids.commentAttachmentId, comment_id: ids.commentId },
    ],
    ["geo_projects", {}],
    ["geo_prompts", { metrics: ["answers_count"], pagination: { limit: 3 } }],
    ["geo_tags", { metrics: ["query_count"], pagination: { limit: 3 } }],
    ["geo_topics", { metrics: ["prompts_count"], pagination: { limit: 3 } }],
    ["geo_models", { pagination: { limit: 3 } }],
    ["geo_websites", { pagination: { limit: 3 } }],
    ["geo_citations", { pagination: { limit: 3 } }],
    ["geo_keywords", { pagination: { limit: 3 } }],
    ["geo_reports_sentiments", { dimensions: ["topic"], measures: ["total_keyword_occurrences"] }],
  ];
}

/** What each call must show of the sandbox's seeded data. */
function checkResult(name: string, result: CallToolResult, sandbox: Sandbox): void {
  expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBeUndefined();
  const body = result.structuredContent as Record<string, unknown>;
  expect(result.content).toEqual([{ type: "text", text: JSON.stringify(body) }]);
  const ids = sandbox.ids;
  switch (name) {
    case "whoami":
      expect((body.projects as { id: string }[]).map((p) => p.id)).toEqual(ids.workspaceProjects);
      break;
    case "tasks_query":
      expect((body.items as unknown[]).length).toBe(5);
      expect(body.has_more).toBe(true);
      break;
    case "tasks_comments":
      expect([body.task_id, body.body]).toEqual([ids.taskId, "end-to-end comment"]);
      break;
    case "agent_runs_query":
      expect((body.items as { task_id: string }[]).every((run) => run.task_id === ids.taskId)).toBe(true);
      break;
    case "attachments_download_url":
      expect(body.url).toEqual(expect.stringContaining(ids.commentAttachmentId));
      break;
    case "geo_projects":
      expect((body.data as { id: string }[]).map((p) => p.id)).toEqual(ids.analyticsProjects);
      break;
    case "geo_reports_sentiments":
      expect((body.data as Record<string, unknown>[]).every((row) => "topic" in row)).toBe(true);
      break;
    default:
      expect((body.data as unknown[]).length).toBe(3);
      expect((body.info as { total_rows: number }).total_rows).toBeGreaterThan(3);
  }
}

async function exerciseEveryTool(client: Client, sandbox: Sandbox): Promise<void> {
  const { tools } = await client.listTools();
  expect(tools.map((tool) => tool.name)).toEqual(TOOL_NAMES);
  for (const [name, args] of callsFor(sandbox.ids)) {
    checkResult(name, (await client.callTool({ name, arguments: args })) as CallToolResult, sandbox);
  }
}

describe("the built server, spawned", () => {
  let sandbox: Sandbox;

  beforeAll(async () => {
    sandbox = await startSandbox();
  });
  afterAll(async () => {
    await sandbox.close();
  });

  it("over stdio against a configured upstream: lists 14 tools and every call returns structuredContent", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI],
      env: childEnv({
        WORKSPACE_API_KEY: sandbox.apiKey,
        WORKSPACE_BASE_URL: sandbox.workspaceBaseUrl,
        ANALYTICS_BASE_URL: sandbox.analyticsBaseUrl,
        WORKSPACE_PROJECT_ID: sandbox.workspaceProjectId,
        ANALYTICS_PROJECT_ID: sandbox.analyticsProjectId,
      }),
      stderr: "pipe",
    });
    const client = new Client({ name: "e2e-stdio", version: "1.0.0" });
    await client.connect(transport);
    try {
      await exerciseEveryTool(client, sandbox);
    } finally {
      await client.close();
    }
  });

  it("over stdio with --demo: every tool works with no configuration at all", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "--demo"],
      env: childEnv(),
      stderr: "pipe",
    });
    const client = new Client({ name: "e2e-demo", version: "1.0.0" });
    await client.connect(transport);
    try {
      // The demo's sandbox is seeded like this one, so the same ids hold.
      await exerciseEveryTool(client, sandbox);
    } finally {
      await client.close();
    }
  });

  it("over HTTP with --demo: /healthz answers and every tool works; SIGTERM exits 0", async () => {
    const child = spawn(process.execPath, [CLI, "--demo", "--transport", "http", "--port", "0"], {
      env: childEnv(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      const url = await listeningUrl(child);
      const health = await fetch(new URL("/healthz", url));
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({
        status: "ok",
        name: "agent-workspace-mcp",
        version: SERVER_VERSION,
      });

      const client = new Client({ name: "e2e-http", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      await exerciseEveryTool(client, sandbox);
      await client.close();
    } finally {
      child.kill("SIGTERM");
    }
    const [code] = await once(child, "exit");
    expect(code).toBe(0);
  });

  it("exits by itself when the client closes its stdin", async () => {
    const child = spawn(process.execPath, [CLI], { env: childEnv(), stdio: ["pipe", "pipe", "pipe"] });
    await once(child.stderr!, "readable");
    child.stdin!.end();
    const [code] = await once(child, "exit");
    expect(code).toBe(0);
  });

  it("--version prints the package version and --help the usage, on stdout", async () => {
    expect(await runCli(["--version"])).toEqual({ code: 0, stdout: `${SERVER_VERSION}\n`, stderr: "" });
    const help = await runCli(["--help"]);
    expect([help.code, help.stderr]).toEqual([0, ""]);
    expect(help.stdout.split("\n")[0]).toBe("Usage: agent-workspace-mcp [options]");
  });

  it("a malformed setting or flag stops it at start with a message naming it", async () => {
    const badProject = await runCli([], { WORKSPACE_PROJECT_ID: "not-a-uuid" });
    expect([badProject.code, badProject.stdout]).toEqual([2, ""]);
    expect(badProject.stderr.split("\n")[0]).toBe(
      'agent-workspace-mcp: WORKSPACE_PROJECT_ID must be a uuid, got "not-a-uuid"',
    );
    const badFlag = await runCli(["--transport", "websocket"]);
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr.split("\n")[0]).toBe(
      'agent-workspace-mcp: --transport must be stdio or http, got "websocket"',
    );
  });
});

/** Waits for the server's `listening` log line on stderr (and keeps reading, so stderr stays open). */
function listeningUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffered = "";
    child.stderr!.on("data", (chunk) => {
      buffered += chunk;
      for (const line of buffered.split("\n").slice(0, -1)) {
        if (!line.startsWith("{")) continue;
        const entry = JSON.parse(line) as { message?: string; url?: string };
        if (entry.message === "listening" && entry.url) resolve(entry.url);
      }
    });
    child.once("exit", () => reject(new Error(`server exited before listening: ${buffered}`)));
  });
}
