// Every client set-up of the docs (scripts/client-snippets.mjs), started as its client would start it:
// the install step done as written into a temporary npm prefix whose bin is on the PATH, the command,
// arguments and environment read from the block's own text (JSON parsed, command lines split as a shell
// does), placeholders filled in, the sandbox on (MCP_DEMO=1, or the block's own --demo). Each one lists
// the tools and calls whoami through SDK v2's client; the HTTP blocks connect to the demo HTTP server
// with their URL and headers.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { promisify } from "node:util";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { filledIn, NAME, SNIPPETS } from "../../scripts/client-snippets.mjs";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { listeningUrl } from "../every-tool.js";
import { CLI, TOOL_NAMES } from "../helpers.js";
import { takingTurns } from "../turns.js";

const run = promisify(execFile);
const REPO = dirname(dirname(CLI));
const TOKEN = "server-token-of-the-test";
/** An API key the sandbox does not know. */
const UNKNOWN_KEY = "a-key-the-sandbox-does-not-know";

type Launch =
  | { kind: "stdio"; command: string; args: string[]; env: Record<string, string> }
  | { kind: "http"; url: string; headers: Record<string, string> };

/** A command line's words, as a POSIX shell splits them: quotes, and backslash-newline continuations. */
function shellWords(text: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  const source = text.replace(/\\\n/g, " ");
  for (let i = 0; i < source.length; i++) {
    const char = source[i]!;
    if (/\s/.test(char)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (char === '"' || char === "'") {
      const end = source.indexOf(char, i + 1);
      word = (word ?? "") + source.slice(i + 1, end);
      i = end;
    } else word = (word ?? "") + char;
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** What `claude mcp add …` / `gemini mcp add …` configure: options anywhere, positionals, `--` ends options. */
function mcpAdd(words: string[]): Launch {
  const env: Record<string, string> = {};
  const headers: Record<string, string> = {};
  let transport = "stdio";
  const positionals: string[] = [];
  for (let i = 3; i < words.length; i++) {
    const word = words[i]!;
    if (word === "--") {
      positionals.push(...words.slice(i + 1));
      break;
    }
    if (["--env", "-e"].includes(word)) {
      const [key, ...value] = words[++i]!.split("=");
      env[key!] = value.join("=");
    } else if (["--header", "-H"].includes(word)) {
      const [key, ...value] = words[++i]!.split(":");
      headers[key!.trim()] = value.join(":").trim();
    } else if (["--transport", "-t"].includes(word)) transport = words[++i]!;
    else if (["--scope", "-s"].includes(word)) i++;
    else if (word.startsWith("-")) throw new Error(`unknown option ${word}`);
    else positionals.push(word);
  }
  const [name, commandOrUrl, ...args] = positionals;
  expect(name).toBe(NAME);
  return transport === "http"
    ? { kind: "http", url: commandOrUrl!, headers }
    : { kind: "stdio", command: commandOrUrl!, args, env };
}

/** The server an Inspector command line starts or connects to (everything before its own options). */
function inspectorTarget(words: string[]): Launch {
  expect(words.slice(0, 3)).toEqual(["npx", "-y", "@modelcontextprotocol/inspector"]);
  const rest = words.slice(3).filter((word) => word !== "--cli");
  const end = rest.findIndex((word) => ["--method", "--transport", "--header"].includes(word));
  const target = end === -1 ? rest : rest.slice(0, end);
  if (target[0]!.startsWith("http")) {
    const headers: Record<string, string> = {};
    rest.forEach((word, i) => {
      if (word !== "--header") return;
      const [key, ...value] = rest[i + 1]!.split(":");
      headers[key!.trim()] = value.join(":").trim();
    });
    return { kind: "http", url: target[0]!, headers };
  }
  return { kind: "stdio", command: target[0]!, args: target.slice(1), env: {} };
}

/** Each server a block's text configures, read as its client reads it. */
function launchesOf(id: string, text: string): Launch[] {
  const { client } = SNIPPETS[id]!;
  if (client === "json") {
    const config = JSON.parse(text) as {
      mcpServers?: Record<string, unknown>;
      servers?: Record<string, unknown>;
    };
    const entry = (config.mcpServers ?? config.servers)![NAME] as {
      command?: string;
      args?: string[];
      env?: Record<string, string>;
      url?: string;
      headers?: Record<string, string>;
    };
    if (entry.url) return [{ kind: "http", url: entry.url, headers: entry.headers ?? {} }];
    return [{ kind: "stdio", command: entry.command!, args: entry.args ?? [], env: entry.env ?? {} }];
  }
  const lines = text.replace(/\\\n/g, " ").split("\n");
  if (client === "inspector") return lines.map((line) => inspectorTarget(shellWords(line)));
  if (client === "claude" || client === "gemini") {
    const words = shellWords(text);
    expect(words.slice(0, 3)).toEqual([client, "mcp", "add"]);
    return [mcpAdd(words)];
  }
  throw new Error(`${id}: not a client block`);
}

/**
 * What the client runs for a launch: `cmd /c <command> <args>` (Windows) runs the command with its
 * arguments, and VS Code fills each `${input:…}` with what the user typed when asked: their key.
 */
function asStarted(launch: Launch, key: string): Launch {
  if (launch.kind !== "stdio") return launch;
  const env = Object.fromEntries(
    Object.entries(launch.env).map(([name, value]) => [name, value.replace(/^\$\{input:[\w-]+\}$/, key)]),
  );
  if (launch.command !== "cmd") return { ...launch, env };
  expect(launch.args[0]).toBe("/c");
  return { ...launch, command: launch.args[1]!, args: launch.args.slice(2), env };
}

let work: string;
let prefix: string;
let sandbox: Sandbox;
let httpServer: ChildProcess;
let httpUrl: string;
let expectedWhoami: unknown;

/** The PATH of a user who did the install step: its prefix's bin, then Node's (and npm's) folder. */
const userPath = () => [join(prefix, "bin"), dirname(process.execPath), process.env.PATH].join(delimiter);

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "client-snippets-"));
  prefix = join(work, "prefix");
  mkdirSync(join(work, "cwd"));
  const install = SNIPPETS.install.text.split("\n").map((line) => shellWords(line.replace(/#.*/, "")));
  expect(install).toEqual([
    ["npm", "install"],
    ["npm", "install", "-g", "."],
  ]);
  // `npm test` has just built dist/ (the first line's effect); the second puts the command on the PATH,
  // run in the checkout itself: npm links the folder into the prefix and writes nothing in it. Its
  // `prepare` would build dist/ again (npm 11 runs it for a folder), under the other tests running it:
  // scripts are skipped, dist/ being that build already. The sandbox and the demo HTTP server (the
  // checkout's own CLI, not the install's) start meanwhile.
  const installed = run("npm", install[1]!.slice(1), {
    cwd: REPO,
    env: {
      ...process.env,
      npm_config_prefix: prefix,
      npm_config_audit: "false",
      npm_config_fund: "false",
      npm_config_ignore_scripts: "true",
    },
  });
  httpServer = spawn(process.execPath, [CLI, "--demo", "--transport", "http", "--port", "0"], {
    env: { PATH: process.env.PATH ?? "", MCP_AUTH_TOKEN: TOKEN },
    stdio: ["ignore", "ignore", "pipe"],
  });
  [httpUrl, sandbox] = await Promise.all([listeningUrl(httpServer), startSandbox(), installed]);

  expect(existsSync(join(prefix, "bin", "agent-workspace-mcp"))).toBe(true);
}, 120_000);

afterAll(async () => {
  // No client of a launch still running when its prefix and the HTTP server go.
  await Promise.allSettled(seen.values());
  httpServer?.kill("SIGTERM");
  if (httpServer && httpServer.exitCode === null) await once(httpServer, "exit");
  await sandbox?.close();
  rmSync(work, { recursive: true, force: true });
});

/** Placeholder values: the checkout as the clone, the demo HTTP server, the sandbox's key and ids. */
const values = () => ({
  clone: REPO,
  url: httpUrl,
  token: TOKEN,
  key: sandbox.apiKey,
  workspaceBaseUrl: "https://workspace.example.com",
  analyticsBaseUrl: "https://analytics.example.com",
  project: sandbox.workspaceProjectId,
  workspace: sandbox.ids.workspaceId,
});

async function connect(launch: Launch): Promise<Client> {
  const client = new Client({ name: "snippet-test", version: "1.0.0" });
  if (launch.kind === "http") {
    await client.connect(
      new StreamableHTTPClientTransport(new URL(launch.url), { requestInit: { headers: launch.headers } }),
    );
    return client;
  }
  await client.connect(
    new StdioClientTransport({
      command: launch.command,
      args: launch.args,
      // npm_config_prefix: where the install step put the package, which npx finds there as it would
      // find the published one on the registry.
      env: { ...launch.env, MCP_DEMO: "1", PATH: userPath(), npm_config_prefix: prefix },
      cwd: join(work, "cwd"),
      stderr: "ignore",
    }),
  );
  return client;
}

/** Started launches, by their JSON: blocks that configure the very same spawn are started once. */
const seen = new Map<string, ReturnType<typeof start>>();
function listAndCall(launch: Launch) {
  const key = JSON.stringify(launch);
  if (!seen.has(key)) {
    const started = startInTurn(launch);
    started.catch(() => {}); // a failed launch fails the test that awaits it
    seen.set(key, started);
  }
  return seen.get(key)!;
}

/** Three launches at a time. */
const inTurn = takingTurns(3);
const startInTurn = (launch: Launch) => inTurn(() => start(launch));

async function start(launch: Launch) {
  const client = await connect(launch);
  try {
    const { tools } = await client.listTools();
    const result = await client.callTool({ name: "whoami", arguments: {} });
    return { tools: tools.map((tool) => tool.name), result };
  } finally {
    await client.close();
  }
}

const RUNNABLE = Object.entries(SNIPPETS)
  .filter(([, snippet]) => snippet.client !== "shell")
  .map(([id]) => id);

/** The launches of a block, as its test reads them (none if they cannot be read: its test says why). */
function launchesOrNone(id: string, placeholders: ReturnType<typeof values>): Launch[] {
  try {
    return launchesOf(id, filledIn(id, placeholders)).map((launch) => asStarted(launch, placeholders.key));
  } catch {
    return [];
  }
}

describe("client set-ups of the docs, started as written against the sandbox", () => {
  beforeAll(async () => {
    // What the sandbox's whoami answers through the server: asked of the demo HTTP server, with its token only.
    const started = listAndCall({
      kind: "http",
      url: httpUrl,
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    // Every block's launches start now, a few at a time, in the order the tests take them.
    for (const id of RUNNABLE) for (const launch of launchesOrNone(id, values())) listAndCall(launch);
    for (const launch of launchesOrNone("remote-cursor", { ...values(), key: UNKNOWN_KEY })) {
      listAndCall(launch);
    }
    const reference = await started;
    expect(reference.result.isError).toBeUndefined();
    expectedWhoami = reference.result.structuredContent;
    expect(JSON.stringify(expectedWhoami)).toContain(sandbox.ids.userId);
  }, 60_000);

  it.each(RUNNABLE)(
    "%s: lists the 14 tools and calls whoami",
    async (id) => {
      const launches = launchesOf(id, filledIn(id, values())).map((launch) =>
        asStarted(launch, values().key),
      );
      expect(launches.length).toBeGreaterThan(0);
      for (const launch of launches) {
        const { tools, result } = await listAndCall(launch);
        expect(tools.sort(), JSON.stringify(launch)).toEqual([...TOOL_NAMES].sort());
        expect(result.isError, JSON.stringify(result.content)).toBeUndefined();
        expect(result.structuredContent).toEqual(expectedWhoami);
      }
    },
    60_000,
  );

  it("over HTTP against --demo, a header key the sandbox does not know gets the 401 that names the header", async () => {
    const [launch] = launchesOf(
      "remote-cursor",
      filledIn("remote-cursor", { ...values(), key: UNKNOWN_KEY }),
    );
    const { result } = await listAndCall(launch!);
    expect(result).toEqual({
      isError: true,
      content: [
        {
          type: "text",
          text: "whoami: 401 Unauthorized: the API key sent in the X-API-KEY header was refused. Fix the X-API-KEY header in this client's settings for the MCP server and reconnect.",
        },
      ],
    });
  });
});
