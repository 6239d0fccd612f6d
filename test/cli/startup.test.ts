// The built server, spawned: the tool selection is checked before it serves anything, applied over
// stdio, LOG_LEVEL decides what reaches stderr, and --redis-url is ignored on stdio.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { describe, expect, it } from "vitest";
import { decideStart } from "../../src/start-decision.js";
import { ANALYTICS_TOOLS, CLI, childEnv, runCli, startRecorder } from "../helpers.js";

const GEO = ANALYTICS_TOOLS;

function stdioSession(args: string[], env: Record<string, string> = {}) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, ...args],
    env: childEnv(env),
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  const client = new Client({ name: "startup-test", version: "1.0.0" });
  return { transport, client, stderr: () => stderr };
}

/**
 * The first line the CLI writes to stderr for a selection it cannot serve, from its own decision
 * (src/start-decision.ts) in process (the spawned runs below hold the exit code and the way there).
 */
async function selectionProblemInProcess(args: string[], env: Record<string, string>): Promise<string> {
  const decision = await decideStart(args, env);
  if (decision.kind !== "stop") throw new Error(`expected a stop, got ${decision.kind}`);
  return decision.stderr.split("\n")[0] ?? "";
}

// The spawned servers of the suites run side by side, the short runs of the first one after each other
// (it.sequential), so that the file starts no more than three processes at once.
describe.concurrent("tool selection at start", () => {
  // A toolset from a flag (checked as the tools are selected) and a switch from the environment (checked
  // as the settings are read): the two ways a selection stops the built CLI.
  it.sequential.each([
    [
      ["--toolsets", "workspace,billing"],
      {},
      '--toolsets (MCP_TOOLSETS): unknown toolset "billing"; valid toolsets: workspace, analytics',
    ],
    [[], { MCP_READ_ONLY: "maybe" }, 'MCP_READ_ONLY must be 1/true/yes/on or 0/false/no/off, got "maybe"'],
  ])("%j %j stops it over HTTP with exit code 2 and the valid names", async (args, env, message) => {
    const result = await runCli(["--transport", "http", ...args], env);
    expect([result.code, result.stdout]).toEqual([2, ""]);
    expect(result.stderr.split("\n")[0]).toBe(`agent-workspace-mcp: ${message}`);
  });

  it.each([
    [[], { MCP_TOOLSETS: "," }, "--toolsets (MCP_TOOLSETS) is empty; valid toolsets: workspace, analytics"],
    [
      [],
      { MCP_TOOLS: "whoami,tasks_lsit" },
      '--tools (MCP_TOOLS): unknown tool "tasks_lsit"; valid tools: whoami, tasks_query, tasks_comments, agent_runs_query, attachments_download_url, geo_projects, geo_prompts, geo_tags, geo_topics, geo_models, geo_websites, geo_citations, geo_keywords, geo_reports_sentiments',
    ],
  ])("%j %j is said with the valid names (in process)", async (args, env, message) => {
    expect(await selectionProblemInProcess(["--transport", "http", ...args], env)).toBe(
      `agent-workspace-mcp: ${message}`,
    );
  });

  // The chosen tools served over stdio: from flags, by the server of "stderr logging"; from the
  // environment (MCP_TOOLSETS, MCP_READ_ONLY), by the server of "--redis-url on stdio".
});

describe.concurrent("stderr logging", () => {
  // A concurrent test polls with its own context's expect.
  it("at LOG_LEVEL=warning writes a failed call's tool and status, and no info lines or key (serving only the tools --toolsets analytics --read-only chose)", async ({
    expect,
  }) => {
    const key = "stderr-secret-key-42";
    const upstream = await startRecorder(() => ({ status: 503, body: { detail: `down for ${key}` } }));
    const session = stdioSession(["--toolsets", "analytics", "--read-only"], {
      LOG_LEVEL: "warning",
      // No retry fits a budget of 0 ms, so the 503 fails the call at once instead of after two backoffs.
      UPSTREAM_RETRY_BUDGET_MS: "0",
      WORKSPACE_API_KEY: key,
      WORKSPACE_BASE_URL: upstream.url,
      ANALYTICS_BASE_URL: upstream.url,
    });
    try {
      await session.client.connect(session.transport);
      expect((await session.client.listTools()).tools.map((tool) => tool.name)).toEqual(GEO);
      expect((await session.client.callTool({ name: "geo_projects", arguments: {} })).isError).toBe(true);
      expect(upstream.requests.map((request) => request.path)).toEqual(["/v2/geo/business/projects"]);
      // The line is written before the answer; the pipe may deliver it a moment later.
      await expect.poll(session.stderr).toContain("tool call failed");
    } finally {
      await session.client.close();
      await upstream.close();
    }
    const lines = session
      .stderr()
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines).toEqual([
      {
        time: expect.any(String),
        level: "error",
        message: "tool call failed",
        tool: "geo_projects",
        status: 503,
      },
    ]);
    expect(session.stderr()).not.toContain(key);
  });
});

describe.concurrent("--redis-url on stdio", () => {
  it("is ignored with one warning that quotes no URL; the tools chosen in the environment are served from memory", async () => {
    const password = "stdio-redis-pass-77";
    // Nothing listens on port 9: were the URL used, the warning would be about an unreachable store.
    const session = stdioSession(["--demo"], {
      MCP_REDIS_URL: `redis://:${password}@127.0.0.1:9`,
      MCP_TOOLSETS: "workspace",
      MCP_READ_ONLY: "1",
    });
    await session.client.connect(session.transport);
    try {
      expect((await session.client.listTools()).tools.map((tool) => tool.name)).toEqual([
        "whoami",
        "tasks_query",
        "agent_runs_query",
        "attachments_download_url",
      ]);
      expect((await session.client.callTool({ name: "whoami", arguments: {} })).isError).toBeFalsy();
    } finally {
      await session.client.close();
    }
    const lines = session
      .stderr()
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.filter((line) => line.level === "warning")).toEqual([
      {
        time: expect.any(String),
        level: "warning",
        message:
          "--redis-url is ignored on stdio: one process serves one client, and keeps its state in memory",
      },
    ]);
    expect(session.stderr()).not.toContain(password);
    expect(session.stderr()).not.toContain("shared state store");
  });
});
