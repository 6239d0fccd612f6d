// Every tool called once with valid arguments against the sandbox, and what each answer must show:
// shared by the end-to-end tests of each transport and protocol revision.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, expect } from "vitest";
import type { Sandbox } from "../src/sandbox/index.js";
import { TOOL_LIST } from "../src/tools/register.js";
import { CLI, childEnv, TOOL_NAMES } from "./helpers.js";

/** What the tests use of an MCP client: SDK 1.x's and SDK v2's both fit. */
export interface ToolClient {
  listTools(): Promise<{ tools: ListedTool[] }>;
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>;
}

/** A valid call of every tool, with ids from the sandbox. */
export function callsFor(ids: Sandbox["ids"]): [string, Record<string, unknown>][] {
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
export function checkResult(name: string, result: CallToolResult, sandbox: Sandbox): void {
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

type ListedTool = { name: string; inputSchema?: unknown; outputSchema?: unknown };
const schemasOf = (tools: ListedTool[]) =>
  tools.map(({ name, inputSchema, outputSchema }) => ({ name, inputSchema, outputSchema }));

/**
 * A built server's tools carry the schemas the build converted (scripts/published-schemas.mjs): each
 * must be what the sources convert to at load.
 */
export function expectSchemasOfSources(tools: ListedTool[]): void {
  expect(schemasOf(tools)).toEqual(schemasOf(TOOL_LIST.tools));
}

export async function exerciseEveryTool(client: ToolClient, sandbox: Sandbox): Promise<void> {
  const { tools } = await client.listTools();
  expect(tools.map((tool) => tool.name)).toEqual(TOOL_NAMES);
  expectSchemasOfSources(tools);
  for (const [name, args] of callsFor(sandbox.ids)) {
    checkResult(name, (await client.callTool({ name, arguments: args })) as CallToolResult, sandbox);
  }
}

/**
 * The built CLI serving the sandbox over HTTP on a free port, with `flags` added: started before the
 * enclosing suite's tests, stopped after them. `url()` is its /mcp URL once started.
 */
export function demoHttpServer(flags: string[] = []): { url: () => URL } {
  let server: SpawnedDemoHttp | undefined;
  let url: URL | undefined;
  beforeAll(async () => {
    server = spawnDemoHttp(flags);
    url = await server.url;
  });
  afterAll(async () => {
    await server?.stop();
  });
  return {
    url: () => {
      if (!url) throw new Error("the demo HTTP server has not started");
      return url;
    },
  };
}

/** Waits for the server's `listening` log line on stderr (and keeps reading, so stderr stays open). */
export function listeningUrl(child: ChildProcess): Promise<string> {
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

export interface SpawnedDemoHttp {
  /** Its /mcp URL, once it listens. */
  url: Promise<URL>;
  /** Ends it (SIGTERM) and waits for its exit. */
  stop(): Promise<void>;
}

/**
 * The built CLI serving the sandbox over HTTP on a free port, with `flags` added, spawned at once: a file
 * can start several servers (and stdio clients) together, then await each `url`.
 */
export function spawnDemoHttp(flags: string[] = []): SpawnedDemoHttp {
  const child = spawn(process.execPath, [CLI, "--demo", "--transport", "http", "--port", "0", ...flags], {
    env: childEnv(),
    stdio: ["ignore", "ignore", "pipe"],
  });
  const exited = once(child, "exit");
  const url = listeningUrl(child).then((text) => new URL(text));
  // Failures are reported where these are awaited.
  exited.catch(() => {});
  url.catch(() => {});
  return {
    url,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}
