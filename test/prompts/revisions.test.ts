// The prompts in both protocol eras, over stdio and over HTTP (sessions and --stateless), against the
// built CLI on --demo: SDK v2's client on 2026-07-28 and SDK 1.x's client on 2025-11-25 list them,
// render one and complete an argument; over HTTP each user's X-API-KEY completes from that user's projects.
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttpTransport,
} from "@modelcontextprotocol/client";
import { StdioClientTransport as ModernStdioTransport } from "@modelcontextprotocol/client/stdio";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as LegacyStdioTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as LegacyHttpTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SANDBOX_SINGLE_PROJECT_API_KEY, type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { type SpawnedDemoHttp, spawnDemoHttp } from "../every-tool.js";
import { CLI, childEnv } from "../helpers.js";

const MODERN = "2026-07-28";

/** What both SDKs' clients offer for prompts, as far as these tests use it. */
interface PromptClient {
  listPrompts(): Promise<{ prompts: { name: string }[] }>;
  getPrompt(params: {
    name: string;
    arguments?: Record<string, string>;
  }): Promise<{ messages: { content: { type: string; text?: string } }[] }>;
  complete(params: {
    ref: { type: "ref/prompt"; name: string };
    argument: { name: string; value: string };
  }): Promise<{ completion: { values: string[] } }>;
  close(): Promise<void>;
}

const modernClient = () =>
  new ModernClient({ name: "modern", version: "1.0.0" }, { versionNegotiation: { mode: { pin: MODERN } } });
const legacyClient = () => new LegacyClient({ name: "sdk-1.x", version: "1.0.0" });

const firstLine = (result: Awaited<ReturnType<PromptClient["getPrompt"]>>) => {
  const content = result.messages[0]?.content;
  return content?.type === "text" ? content.text?.split("\n")[0] : undefined;
};

const completeProject = async (client: PromptClient, prompt: string, value: string) =>
  (await client.complete({ ref: { type: "ref/prompt", name: prompt }, argument: { name: "project", value } }))
    .completion.values;

/** Lists, renders and completes, as the demo's main key sees it. */
async function exercisePrompts(client: PromptClient, sandbox: Sandbox): Promise<void> {
  try {
    const listed = await client.listPrompts();
    expect(listed.prompts.map((prompt) => prompt.name)).toEqual(["visibility_report", "task_triage"]);
    const triage = await client.getPrompt({
      name: "task_triage",
      arguments: { project: "Growth Marketing" },
    });
    expect(firstLine(triage)).toBe('Triage of the workspace project "Growth Marketing".');
    const report = await client.getPrompt({
      name: "visibility_report",
      arguments: { project: sandbox.analyticsProjectId, period: "2025-12" },
    });
    expect(firstLine(report)).toBe(
      'Visibility report for the analytics project "Acme" ("https://www.acme.example"): 2025-12-01 to 2025-12-31, against 2025-11-01 to 2025-11-30.',
    );
    expect(await completeProject(client, "visibility_report", "acme")).toEqual(["Acme", "Acme Labs"]);
    expect(await completeProject(client, "task_triage", "")).toEqual([
      "Growth Marketing",
      "Platform",
      "Inbox",
    ]);
    await expect(
      client.getPrompt({ name: "task_triage", arguments: { project: "Finance" } }),
    ).rejects.toThrow(
      'task_triage: no workspace project "Finance" for this API key; whoami lists: Growth Marketing, Platform, Inbox',
    );
  } finally {
    await client.close();
  }
}

const stdioServer = {
  command: process.execPath,
  args: [CLI, "--demo"],
  env: childEnv(),
  stderr: "ignore" as const,
};

/** `client` once connected: begun when called, awaited by the test that takes it. */
async function connected<T>(client: T, connect: (client: T) => Promise<void>): Promise<T> {
  await connect(client);
  return client;
}

let sandbox: Sandbox;
/** Over stdio a process serves one client: each test's client and its server, started before the tests. */
let stdio: {
  modern: Promise<ModernClient>;
  legacy: Promise<LegacyClient>;
  workspaceOnly: Promise<ModernClient>;
};
const http = new Map<string, SpawnedDemoHttp>();
const httpUrls = new Map<string, URL>();
beforeAll(async () => {
  // Every process of the file starts at once: the stdio clients' servers and the two HTTP servers.
  stdio = {
    modern: connected(modernClient(), (client) => client.connect(new ModernStdioTransport(stdioServer))),
    legacy: connected(legacyClient(), (client) => client.connect(new LegacyStdioTransport(stdioServer))),
    workspaceOnly: connected(modernClient(), (client) =>
      client.connect(
        new ModernStdioTransport({ ...stdioServer, args: [CLI, "--demo", "--toolsets", "workspace"] }),
      ),
    ),
  };
  for (const connecting of Object.values(stdio)) connecting.catch(() => {}); // its test reports it
  for (const flags of [[], ["--stateless"]]) http.set(flags.join(), spawnDemoHttp(flags));
  // The demo's sandbox is seeded like this one, so the same ids hold.
  sandbox = await startSandbox();
  for (const [flags, server] of http) httpUrls.set(flags, await server.url);
});
afterAll(async () => {
  // Closes what a test did not take (one filtered out); closing twice is harmless.
  await Promise.allSettled(Object.values(stdio).map(async (client) => (await client).close()));
  await Promise.all([...http.values()].map((server) => server.stop()));
  await sandbox.close();
});

describe("over stdio", () => {
  it("2026-07-28: SDK v2's client lists, renders and completes the prompts", async () => {
    const client = await stdio.modern;
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
    await exercisePrompts(client, sandbox);
  });

  it("2025-11-25: SDK 1.x's client lists, renders and completes the prompts", async () => {
    const client = await stdio.legacy;
    expect(client.getServerCapabilities()?.completions).toEqual({});
    await exercisePrompts(client, sandbox);
  });

  it("with --toolsets workspace, only task_triage", async () => {
    const client = await stdio.workspaceOnly;
    try {
      expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(["task_triage"]);
    } finally {
      await client.close();
    }
  });
});

describe.each([
  ["with 2025 sessions (the default)", []],
  ["with --stateless", ["--stateless"]],
])("over HTTP %s", (_mode, flags) => {
  const server = { url: () => httpUrls.get(flags.join()) as URL };

  it("2026-07-28: SDK v2's client lists, renders and completes the prompts", async () => {
    const client = modernClient();
    await client.connect(new ModernHttpTransport(server.url()));
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
    await exercisePrompts(client, sandbox);
  });

  it("2025-11-25: SDK 1.x's client lists, renders and completes the prompts", async () => {
    const client = legacyClient();
    await client.connect(new LegacyHttpTransport(server.url()));
    await exercisePrompts(client, sandbox);
  });

  it("each user's X-API-KEY completes from that user's own projects, in both eras", async () => {
    const single = { requestInit: { headers: { "x-api-key": SANDBOX_SINGLE_PROJECT_API_KEY } } };
    // The main key's listings are cached by now (the tests above); another key must not read them.
    const modern = modernClient();
    await modern.connect(new ModernHttpTransport(server.url(), single));
    const legacy = legacyClient();
    await legacy.connect(new LegacyHttpTransport(server.url(), single));
    try {
      for (const client of [modern, legacy] as PromptClient[]) {
        expect(await completeProject(client, "task_triage", "")).toEqual(["Operations"]);
        expect(await completeProject(client, "visibility_report", "")).toEqual(["Initech"]);
      }
    } finally {
      await modern.close();
      await legacy.close();
    }
  });
});
