// What a person meets at start: settings that cannot be used reach them through the client over stdio
// (every answer and the instructions say what is wrong and where to fix it) and stop an HTTP server
// (exit 2); unset settings are named on stderr at start; a busy port is one line. The built CLI,
// spawned, once for each of these; the words for each kind of setting are checked on the same code
// built in process (the problem server, the start-up line), which the CLI only passes its argv and env.
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { describe, type ExpectStatic, expect, it } from "vitest";
import { buildProblemServer } from "../../src/problem-server.js";
import { problemsText } from "../../src/settings-problems.js";
import { decideStart } from "../../src/start-decision.js";
import { ALL_TOOL_NAMES } from "../../src/tools/register.js";
import { unsetSettingsLine } from "../../src/unset-settings.js";
import { CLI, childEnv, connectInMemory, runCli } from "../helpers.js";

/** The env of mcp.json.example's entry, pasted as is: its placeholders left in. */
const EXAMPLE_ENV: Record<string, string> = JSON.parse(
  readFileSync(new URL("../../mcp.json.example", import.meta.url), "utf8"),
).mcpServers["agent-workspace"].env;

/** SDK v2's client connected to the built CLI spawned over stdio, and what the server wrote to stderr. */
async function connectedCli(args: string[], env: Record<string, string>) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, ...args],
    env: childEnv(env),
    stderr: "pipe",
  });
  let written = "";
  transport.stderr?.on("data", (chunk) => {
    written += chunk;
  });
  const client = new Client({ name: "settings-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, stderr: () => written };
}

/** What a client of the problem server was told, and what two calls answered. */
async function answersOf(client: Client) {
  try {
    const tools = (await client.listTools()).tools.map((tool) => tool.name);
    const whoami = await client.callTool({ name: "whoami", arguments: {} });
    const geo = await client.callTool({ name: "geo_prompts", arguments: { limit: 5 } });
    return { instructions: client.getInstructions(), tools, whoami, geo };
  } finally {
    await client.close();
  }
}

/** SDK v2's client on the spawned CLI over stdio: its answers, and what the server wrote to stderr. */
async function stdioAnswers(args: string[], env: Record<string, string>) {
  const { client, stderr } = await connectedCli(args, env);
  return { ...(await answersOf(client)), stderr };
}

/**
 * What the CLI serves over stdio for `args` and `env`, built in process as src/cli.ts builds it from its
 * decision (src/start-decision.ts): the problem server's answers (SDK v2's client, in memory), and the
 * problems' stderr text.
 */
async function answersInProcess(args: string[], env: Record<string, string>) {
  const decision = await decideStart(args, env);
  if (decision.kind !== "serve problems") throw new Error(`expected problems served, got ${decision.kind}`);
  const client = new Client({ name: "settings-test", version: "1.0.0" });
  await connectInMemory(buildProblemServer(problemsText(decision.problems, args, env)), client);
  return { ...(await answersOf(client)), stderr: decision.stderr };
}

const failed = (tool: string, text: string) => ({
  isError: true,
  content: [{ type: "text", text: `${tool}: ${text}` }],
});

// The spawned stdio server of the first suite serves while the in-process tests run, the short HTTP run
// after them (it.sequential), and the suites one after another: the file runs one process at a time.
describe.concurrent("settings that cannot be used", () => {
  it("mcp.json.example pasted as is: over stdio every answer and the instructions say what to fix", async () => {
    const text = [
      "agent-workspace-mcp cannot call the APIs: settings are wrong.",
      "- WORKSPACE_API_KEY still holds the example's placeholder: put the real value there (API key for both APIs, sent as X-API-KEY)",
      '- WORKSPACE_BASE_URL still holds the example\'s placeholder "<agent-workspace API base URL>": put the real value there (base URL of the agent-workspace API)',
      '- ANALYTICS_BASE_URL still holds the example\'s placeholder "<analytics API base URL>": put the real value there (base URL of the analytics API)',
      'Fix this where the MCP client starts this server, in its environment ("env") in the client\'s MCP configuration, then restart the server.',
    ].join("\n");
    const answers = await stdioAnswers([], EXAMPLE_ENV);
    expect(answers.instructions).toBe(`${text}\nEvery tool answers with this until then: tell the user.`);
    expect(answers.tools).toEqual([...ALL_TOOL_NAMES]);
    expect(answers.whoami).toEqual(failed("whoami", text));
    expect(answers.geo).toEqual(failed("geo_prompts", text));
    // Built in process from the same argv and env, the problem server says the same.
    const { stderr, ...told } = answers;
    const inProcess = await answersInProcess([], EXAMPLE_ENV);
    expect({ ...told, stderr: stderr().slice(0, inProcess.stderr.length) }).toEqual(inProcess);
    expect(stderr().split("\n").slice(0, 7)).toEqual([
      "agent-workspace-mcp: WORKSPACE_API_KEY still holds the example's placeholder: put the real value there",
      "  WORKSPACE_API_KEY               API key for both APIs, sent as X-API-KEY (secret: env only)",
      'agent-workspace-mcp: WORKSPACE_BASE_URL still holds the example\'s placeholder "<agent-workspace API base URL>": put the real value there',
      "  --workspace-base-url <url>      base URL of the agent-workspace API (env WORKSPACE_BASE_URL)",
      'agent-workspace-mcp: ANALYTICS_BASE_URL still holds the example\'s placeholder "<analytics API base URL>": put the real value there',
      "  --analytics-base-url <url>      base URL of the analytics API (env ANALYTICS_BASE_URL)",
      "(agent-workspace-mcp --help lists every setting)",
    ]);
  });

  it("a key never shows, even one shaped like a placeholder", async () => {
    const answers = await answersInProcess([], {
      ...EXAMPLE_ENV,
      WORKSPACE_API_KEY: "<sk-live-0123456789abcdef>",
    });
    expect(answers.stderr.split("\n")[0]).toBe(
      "agent-workspace-mcp: WORKSPACE_API_KEY still holds the example's placeholder: put the real value there",
    );
    expect(JSON.stringify(answers)).not.toContain("sk-live-0123456789abcdef");
  });

  it("a flag is named as a flag, and the place to fix it is the client's arguments", async () => {
    const answers = await answersInProcess(["--workspace-base-url", "ftp://api.example.com"], {
      WORKSPACE_PROJECT_ID: "not-a-uuid",
    });
    const text = [
      "agent-workspace-mcp cannot call the APIs: a setting is wrong.",
      '- --workspace-base-url must be an http(s) URL, got "ftp://api.example.com" (base URL of the agent-workspace API)',
      'Fix this where the MCP client starts this server, in its arguments ("args") in the client\'s MCP configuration, then restart the server.',
    ].join("\n");
    expect(answers.whoami).toEqual(failed("whoami", text));
  });

  it("in the Claude Desktop extension (MCP_SETTINGS_FROM=mcpb): the form's fields", async () => {
    const answers = await answersInProcess([], {
      MCP_SETTINGS_FROM: "mcpb",
      WORKSPACE_BASE_URL: "api.example.com",
      ANALYTICS_PROJECT_ID: "my project",
    });
    const text = [
      "agent-workspace-mcp cannot call the APIs: settings are wrong.",
      '- "Agent-workspace API base URL" must be an http(s) URL, got "api.example.com" (base URL of the agent-workspace API)',
      '- "Default analytics project" must be a uuid, got "my project" (default project of the geo_ tools)',
      "Fix this in the extension's settings (Claude Desktop: Settings → Extensions).",
    ].join("\n");
    expect(answers.geo).toEqual(failed("geo_prompts", text));
  });

  it.sequential("over HTTP the server refuses to start: exit 2, the problems on stderr, and a key shaped like a placeholder does not show", async () => {
    const result = await runCli(["--transport", "http", "--port", "0"], {
      ...EXAMPLE_ENV,
      WORKSPACE_API_KEY: "<sk-live-0123456789abcdef>",
    });
    expect([result.code, result.stdout]).toEqual([2, ""]);
    expect(result.stderr.split("\n")[0]).toBe(
      "agent-workspace-mcp: WORKSPACE_API_KEY still holds the example's placeholder: put the real value there",
    );
    expect(result.stderr).toContain("\n(agent-workspace-mcp --help lists every setting)\n");
    expect(result.stderr).not.toContain("sk-live-0123456789abcdef");
  });
});

/** The JSON lines of stderr whose level is warning, but for the calls' own. */
const warnings = (stderr: string) =>
  stderr
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as { level: string; message: string })
    .filter((line) => line.level === "warning" && line.message !== "tool call failed")
    .map((line) => line.message);

/**
 * The start-up warnings of the CLI spawned over stdio: all of stderr up to its "ready" line. `expect` is
 * the calling test's own (a concurrent test polls with its context's).
 */
async function startupWarnings(expect: ExpectStatic, args: string[], env: Record<string, string>) {
  const { client, stderr } = await connectedCli(args, env);
  try {
    await expect.poll(stderr).toContain('"ready"');
  } finally {
    await client.close();
  }
  return { warnings: warnings(stderr()), stderr: stderr() };
}

/** The start-up line for `args` and `env`, as src/serve.ts writes it (as a warning), built in process. */
async function unsetLineInProcess(args: string[], env: Record<string, string>): Promise<string[]> {
  const decision = await decideStart(args, env);
  if (decision.kind !== "serve") throw new Error(`expected serve, got ${decision.kind}`);
  const { config, tools } = decision;
  const line = unsetSettingsLine(config.upstream, tools, config.transport);
  return line === undefined ? [] : [line];
}

describe("start-up names what is unset", () => {
  it("the built CLI over stdio: the line among its start-up warnings, and no key", async ({ expect }) => {
    const env = {
      MCP_SETTINGS_FROM: "mcpb",
      WORKSPACE_API_KEY: "workspace-key-0123",
      ANALYTICS_BASE_URL: "http://127.0.0.1:9",
    };
    const inForm = await startupWarnings(expect, [], env);
    expect(inForm.warnings).toEqual([
      '"Agent-workspace API base URL" is not set: the workspace tools will fail.',
    ]);
    expect(await unsetLineInProcess([], env)).toEqual(inForm.warnings);
    expect(inForm.stderr).not.toContain("workspace-key-0123");
  });

  it("over stdio: the key and base URLs, and which tools will fail; nothing once they are set", async () => {
    expect(await unsetLineInProcess([], {})).toEqual([
      "WORKSPACE_API_KEY is not set: every tool will fail; WORKSPACE_BASE_URL is not set: the workspace tools will fail; ANALYTICS_BASE_URL is not set: the geo_ tools will fail.",
    ]);
    expect(
      await unsetLineInProcess(["--toolsets", "analytics"], { ANALYTICS_API_KEY: "analytics-key-0123" }),
    ).toEqual(["ANALYTICS_BASE_URL is not set: the geo_ tools will fail."]);
    expect(
      await unsetLineInProcess([], {
        WORKSPACE_API_KEY: "workspace-key-0123",
        WORKSPACE_BASE_URL: "http://127.0.0.1:9",
        ANALYTICS_BASE_URL: "http://127.0.0.1:9",
      }),
    ).toEqual([]);
  });

  it("over HTTP: an unset key is said with the header a client may send instead", async () => {
    const env = { WORKSPACE_BASE_URL: "http://127.0.0.1:9", ANALYTICS_BASE_URL: "http://127.0.0.1:9" };
    expect(await unsetLineInProcess(["--transport", "http", "--port", "0"], env)).toEqual([
      "WORKSPACE_API_KEY is not set: every tool will fail for a client that sends no X-API-KEY header.",
    ]);
  });
});

describe("a port that cannot be had", () => {
  it("in use: one line naming the port and --port / MCP_PORT, exit 2", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const { port } = taken.address() as { port: number };
    try {
      const result = await runCli(["--transport", "http", "--port", String(port)], { LOG_LEVEL: "error" });
      expect(result).toEqual({
        code: 2,
        stdout: "",
        stderr: `agent-workspace-mcp: port ${port} on 127.0.0.1 is in use: choose another with --port or MCP_PORT (0 picks a free one)\n`,
      });
    } finally {
      taken.close();
    }
  });
});
