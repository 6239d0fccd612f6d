// End to end: the built server (dist/cli.js) spawned as a real process, over stdio and over HTTP,
// driven by the SDK's Client, against the sandbox. `npm test` builds dist/ first.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { sandboxGuide } from "../../src/server.js";
import { SERVER_VERSION } from "../../src/version.js";
import { exerciseEveryTool, listeningUrl } from "../every-tool.js";
import { CLI, childEnv, childStdioTransport, runCli } from "../helpers.js";

// Each test spawns its own processes and waits on them: the three serving ones run side by side
// (describe.concurrent), then the short runs, one test after the other (it.sequential), so that the
// file starts no more than three servers at once. The configured stdio server is also the one that
// shows the process ends when its client closes stdin.
describe.concurrent("the built server, spawned", () => {
  let sandbox: Sandbox;

  beforeAll(async () => {
    sandbox = await startSandbox();
  });
  afterAll(async () => {
    await sandbox.close();
  });

  it("over stdio against a configured upstream: lists 14 tools and every call returns structuredContent; exits by itself when the client closes its stdin", async () => {
    const child = spawn(process.execPath, [CLI], {
      env: childEnv({
        WORKSPACE_API_KEY: sandbox.apiKey,
        WORKSPACE_BASE_URL: sandbox.workspaceBaseUrl,
        ANALYTICS_BASE_URL: sandbox.analyticsBaseUrl,
        WORKSPACE_PROJECT_ID: sandbox.workspaceProjectId,
        ANALYTICS_PROJECT_ID: sandbox.analyticsProjectId,
      }),
      stdio: ["pipe", "pipe", "ignore"],
    });
    const exited = once(child, "exit");
    try {
      const client = new Client({ name: "e2e-stdio", version: "1.0.0" });
      await client.connect(childStdioTransport(child));
      await exerciseEveryTool(client, sandbox);
      await client.close(); // ends its stdin, and only that
      const [code, signal] = await exited;
      expect([code, signal]).toEqual([0, null]);
    } finally {
      child.kill("SIGKILL");
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
      // The assistant is told the date the sandbox's data runs to.
      expect(client.getInstructions()?.split("\n").at(-1)).toBe(sandboxGuide(sandbox.today));
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
      expect(client.getInstructions()?.split("\n").at(-1)).toBe(sandboxGuide(sandbox.today));
      await exerciseEveryTool(client, sandbox);
      await client.close();
    } finally {
      child.kill("SIGTERM");
    }
    const [code] = await once(child, "exit");
    expect(code).toBe(0);
  });

  it.sequential("--version prints the package version and --help the usage, on stdout", async () => {
    const [version, help] = await Promise.all([runCli(["--version"]), runCli(["--help"])]);
    expect(version).toEqual({ code: 0, stdout: `${SERVER_VERSION}\n`, stderr: "" });
    expect([help.code, help.stderr]).toEqual([0, ""]);
    expect(help.stdout.split("\n")[0]).toBe("Usage: agent-workspace-mcp [options]");
  });

  it.sequential("a malformed setting or flag stops it over HTTP with the problem and that setting's help line only", async () => {
    const [badProject, badFlag, unknownFlag] = await Promise.all([
      runCli(["--transport", "http"], { WORKSPACE_PROJECT_ID: "not-a-uuid" }),
      runCli(["--transport", "websocket"]),
      runCli(["--transport", "http", "--bogus"]),
    ]);
    expect(badProject).toEqual({
      code: 2,
      stdout: "",
      stderr: [
        'agent-workspace-mcp: WORKSPACE_PROJECT_ID must be a uuid, got "not-a-uuid"',
        "  --workspace-project-id <uuid>   default project of the workspace tools (env WORKSPACE_PROJECT_ID)",
        "(agent-workspace-mcp --help lists every setting)",
        "",
      ].join("\n"),
    });
    expect(badFlag).toEqual({
      code: 2,
      stdout: "",
      stderr: [
        'agent-workspace-mcp: --transport must be stdio or http, got "websocket"',
        "  --transport <stdio|http>        how clients connect: stdio or http (default: stdio; env MCP_TRANSPORT)",
        "(agent-workspace-mcp --help lists every setting)",
        "",
      ].join("\n"),
    });
    expect(unknownFlag).toEqual({
      code: 2,
      stdout: "",
      stderr:
        "agent-workspace-mcp: Unknown option '--bogus'\n(agent-workspace-mcp --help lists every setting)\n",
    });
  });
});
