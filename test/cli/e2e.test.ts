// End to end: the built server (dist/cli.js) spawned as a real process, over stdio and over HTTP,
// driven by the SDK's Client, against the sandbox. `npm test` builds dist/ first; test:node-versions
// runs this file on the lowest Node the package allows. --demo over stdio, in every protocol revision,
// is test/protocol/revisions.test.ts's.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { USAGE } from "../../src/config/help.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { sandboxGuide } from "../../src/server.js";
import { SERVER_VERSION } from "../../src/version.js";
import { exerciseEveryTool, listeningUrl } from "../every-tool.js";
import {
  CLI,
  childEnv,
  childStdioTransport,
  expectCliStopsAsInProcess,
  runCli,
  settingsOutcomeInProcess,
} from "../helpers.js";

// Each test spawns its own processes and waits on them: the two serving ones run side by side
// (describe.concurrent), then the short runs, one test after the other (it.sequential), so that the
// file starts no more than two servers at once. The configured stdio server is also the one that
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
    expect(help).toEqual({ code: 0, stdout: USAGE, stderr: "" });
    expect(USAGE.split("\n")[0]).toBe("Usage: agent-workspace-mcp [options]");
  });

  // Each case's words in process, from the CLI's own decision (src/start-decision.ts); the transport it
  // cannot use spawned, to hold that the process writes the same, nothing to stdout, and exits 2 rather
  // than serve stdio.
  it.each([
    [
      ["--transport", "http"],
      { WORKSPACE_PROJECT_ID: "not-a-uuid" },
      [
        'agent-workspace-mcp: WORKSPACE_PROJECT_ID must be a uuid, got "not-a-uuid"',
        "  --workspace-project-id <uuid>   default project of the workspace tools (env WORKSPACE_PROJECT_ID)",
      ],
    ],
    [
      ["--transport", "websocket"],
      {},
      [
        'agent-workspace-mcp: --transport must be stdio or http, got "websocket"',
        "  --transport <stdio|http>        how clients connect: stdio or http (default: stdio; env MCP_TRANSPORT)",
      ],
    ],
    [["--transport", "http", "--bogus"], {}, ["agent-workspace-mcp: Unknown option '--bogus'"]],
  ])(
    "%j %j, malformed, stops it with the problem and that setting's help line only (in process)",
    async (args, env, lines) => {
      expect(await settingsOutcomeInProcess(args, env as Record<string, string>)).toEqual({
        stops: true,
        stderr: [...lines, "(agent-workspace-mcp --help lists every setting)", ""].join("\n"),
      });
    },
  );

  it.sequential("a malformed setting stops the built CLI as worked out in process: exit code 2, that stderr, nothing on stdout", async () => {
    const args = ["--transport", "websocket"];
    await expectCliStopsAsInProcess(args);
  });
});
