// Both protocol eras on one running server: SDK v2's client speaking 2026-07-28 and SDK 1.x's client
// speaking 2025-11-25 (with SDK v2's client on the older 2025 revisions beside them) list and call every
// tool over stdio, HTTP with sessions and HTTP --stateless, against the demo sandbox of the built CLI.
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttpTransport,
} from "@modelcontextprotocol/client";
import { StdioClientTransport as ModernStdioTransport } from "@modelcontextprotocol/client/stdio";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as LegacyStdioTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as LegacyHttpTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { exerciseEveryTool, type SpawnedDemoHttp, spawnDemoHttp } from "../every-tool.js";
import { CLI, childEnv } from "../helpers.js";

const MODERN = "2026-07-28";
const stdioServer = {
  command: process.execPath,
  args: [CLI, "--demo"],
  env: childEnv(),
  stderr: "ignore" as const,
};

/** SDK v2's client that speaks 2026-07-28 or nothing (no fallback to initialize). */
const modernClient = () =>
  new ModernClient({ name: "modern", version: "1.0.0" }, { versionNegotiation: { mode: { pin: MODERN } } });

/** SDK v2's client on one 2025 revision: the initialize handshake, offering only `version`. */
const olderClient = (version: string) =>
  new ModernClient({ name: `legacy-${version}`, version: "1.0.0" }, { supportedProtocolVersions: [version] });

/** SDK 1.x's transport, recording the protocol version the server's initialize answer agreed on. */
function recordingVersion(transport: Transport): { transport: Transport; version: () => string | undefined } {
  let version: string | undefined;
  const recording: Transport = {
    start: () => transport.start(),
    send: (message, options) => transport.send(message, options),
    close: () => transport.close(),
    setProtocolVersion: (value) => transport.setProtocolVersion?.(value),
  };
  transport.onclose = () => recording.onclose?.();
  transport.onerror = (error) => recording.onerror?.(error);
  transport.onmessage = (message: JSONRPCMessage, extra) => {
    const result = (message as { result?: { protocolVersion?: unknown } }).result;
    if (typeof result?.protocolVersion === "string") version ??= result.protocolVersion;
    recording.onmessage?.(message, extra);
  };
  return { transport: recording, version: () => version };
}

type Connect = (client: ModernClient) => Promise<void>;

/** A client connected by `connect`: begun when called, awaited by the test that takes it. */
async function connected(client: ModernClient, connect: Connect): Promise<ModernClient> {
  await connect(client);
  return client;
}

/** SDK 1.x's client connected over `transport`, and the version its initialize agreed on. */
async function connectedLegacy(transport: Transport) {
  const client = new LegacyClient({ name: "sdk-1.x", version: "1.0.0" });
  const recorded = recordingVersion(transport);
  await client.connect(recorded.transport);
  return { client, version: recorded.version };
}

async function expectModern(connecting: Promise<ModernClient>, sandbox: Sandbox) {
  const client = await connecting;
  try {
    expect([client.getProtocolEra(), client.getNegotiatedProtocolVersion()]).toEqual(["modern", MODERN]);
    await exerciseEveryTool(client, sandbox);
  } finally {
    await client.close();
  }
}

async function expectLegacy(connecting: ReturnType<typeof connectedLegacy>, sandbox: Sandbox) {
  const { client, version } = await connecting;
  try {
    expect(version()).toBe("2025-11-25");
    await exerciseEveryTool(client, sandbox);
  } finally {
    await client.close();
  }
}

/** An older revision still lists every tool and answers a call. */
async function expectOlder(version: string, connecting: Promise<ModernClient>) {
  const client = await connecting;
  try {
    expect([client.getProtocolEra(), client.getNegotiatedProtocolVersion()]).toEqual(["legacy", version]);
    expect((await client.listTools()).tools).toHaveLength(14);
    const result = await client.callTool({ name: "geo_models", arguments: { pagination: { limit: 2 } } });
    expect((result.structuredContent as { data: unknown[] }).data).toHaveLength(2);
  } finally {
    await client.close();
  }
}

const OLDER = ["2025-06-18", "2025-03-26"];

/** Over stdio a process serves one client: each test's client and its server, started before the tests. */
interface StdioClients {
  modern: Promise<ModernClient>;
  legacy: ReturnType<typeof connectedLegacy>;
  older: Map<string, Promise<ModernClient>>;
}

let sandbox: Sandbox;
let stdio: StdioClients;
const http = new Map<string, SpawnedDemoHttp>();
const httpUrls = new Map<string, URL>();
beforeAll(async () => {
  // Every process of the file starts at once: the stdio clients' servers and the two HTTP servers.
  const connectStdio: Connect = (client) => client.connect(new ModernStdioTransport(stdioServer));
  stdio = {
    modern: connected(modernClient(), connectStdio),
    legacy: connectedLegacy(new LegacyStdioTransport(stdioServer)),
    older: new Map(OLDER.map((version) => [version, connected(olderClient(version), connectStdio)])),
  };
  for (const connecting of [stdio.modern, stdio.legacy, ...stdio.older.values()]) {
    connecting.catch(() => {}); // reported by the test that takes it
  }
  for (const flags of [[], ["--stateless"]]) http.set(flags.join(), spawnDemoHttp(flags));
  // The demo's sandbox is seeded like this one, so the same ids hold.
  sandbox = await startSandbox();
  for (const [flags, server] of http) httpUrls.set(flags, await server.url);
});
afterAll(async () => {
  // Closes what a test did not take (one filtered out); closing twice is harmless.
  const clients = [stdio.modern, stdio.legacy.then(({ client }) => client), ...stdio.older.values()];
  await Promise.allSettled(clients.map(async (client) => (await client).close()));
  await Promise.all([...http.values()].map((server) => server.stop()));
  await sandbox.close();
});

describe("over stdio (one process per client)", () => {
  it("SDK v2's client speaks 2026-07-28 and calls every tool", async () => {
    await expectModern(stdio.modern, sandbox);
  });

  it("SDK 1.x's client speaks 2025-11-25 and calls every tool", async () => {
    await expectLegacy(stdio.legacy, sandbox);
  });

  it.each(OLDER)("a %s client lists the tools and calls one", async (version) => {
    await expectOlder(version, stdio.older.get(version) as Promise<ModernClient>);
  });
});

describe.each([
  ["with 2025 sessions (the default)", []],
  ["with --stateless", ["--stateless"]],
])("over HTTP %s, both eras on one running server", (_mode, flags) => {
  const server = { url: () => httpUrls.get(flags.join()) as URL };

  it("SDK v2's client speaks 2026-07-28 and calls every tool", async () => {
    const connect: Connect = (client) => client.connect(new ModernHttpTransport(server.url()));
    await expectModern(connected(modernClient(), connect), sandbox);
  });

  it("SDK 1.x's client speaks 2025-11-25 and calls every tool", async () => {
    await expectLegacy(connectedLegacy(new LegacyHttpTransport(server.url())), sandbox);
  });

  it.each(OLDER)("a %s client lists the tools and calls one", async (version) => {
    const connect: Connect = (client) => client.connect(new ModernHttpTransport(server.url()));
    await expectOlder(version, connected(olderClient(version), connect));
  });

  it("a client that probes first (auto) lands on 2026-07-28", async () => {
    const client = new ModernClient(
      { name: "auto", version: "1.0.0" },
      { versionNegotiation: { mode: "auto" } },
    );
    await client.connect(new ModernHttpTransport(server.url()));
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
    await client.close();
  });

  it("server/discover names the revisions and capabilities served", async () => {
    const client = modernClient();
    await client.connect(new ModernHttpTransport(server.url()));
    const discovered = client.getDiscoverResult();
    await client.close();
    expect(discovered?.supportedVersions).toContain(MODERN);
    expect(discovered?.capabilities).toEqual({
      tools: { listChanged: false },
      logging: {},
      prompts: { listChanged: false },
      completions: {},
      resources: {},
    });
    expect(discovered?.instructions).toContain("Agent-workspace tools");
  });
});
