// Every protocol revision over every transport, against the demo sandbox of the built CLI: SDK v2's
// client speaking 2026-07-28, SDK 1.x's client speaking 2025-11-25 and SDK v2's client on the older 2025
// revisions, over stdio, HTTP with sessions and HTTP --stateless. Each subject (every tool, the
// instructions, the prompts, the report view) has its own describe block; the processes serve them all.
// A stdio process serves one client, so each stdio client is connected once, before the tests, and
// serves every subject in turn.
import {
  CLIENT_CAPABILITIES_META_KEY,
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttpTransport,
} from "@modelcontextprotocol/client";
import { StdioClientTransport as ModernStdioTransport } from "@modelcontextprotocol/client/stdio";
import { StdioClientTransport as LegacyStdioTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as LegacyHttpTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SANDBOX_SINGLE_PROJECT_API_KEY, type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { sandboxGuide } from "../../src/server.js";
import { exerciseEveryTool, type SpawnedDemoHttp, spawnDemoHttp } from "../every-tool.js";
import { CLI, childEnv } from "../helpers.js";
import {
  askingEachTime,
  type ConnectedLegacy,
  completeProject,
  connected,
  connectedLegacy,
  exercisePrompts,
  exerciseWorkflows,
  expectReportView,
  MODERN,
  modernClient,
  OLDER,
  olderClient,
  type PromptClient,
  UI,
} from "../revision-clients.js";

const stdioServer = {
  command: process.execPath,
  args: [CLI, "--demo"],
  env: childEnv(),
  stderr: "ignore" as const,
};

/** The stdio clients, each with its own process, started before the tests; a test awaits the one it takes. */
interface StdioClients {
  /**
   * SDK v2's on 2026-07-28, declaring MCP Apps as a host that renders views does (over stdio it sends
   * its server/discover probe to a short-lived process of its own first, then starts its session's:
   * the one client of the suite on the SDK's base transport, so that this path stays covered).
   */
  modern: Promise<ModernClient>;
  /** SDK 1.x's on 2025-11-25, declaring nothing. */
  legacy: Promise<ConnectedLegacy>;
  /** SDK v2's on 2025-11-25, declaring MCP Apps: the report view's 2025 client that sees the link. */
  declaring2025: Promise<ModernClient>;
  older: Map<string, Promise<ModernClient>>;
}

let sandbox: Sandbox;
let stdio: StdioClients;
const http = new Map<string, SpawnedDemoHttp>();
const httpUrls = new Map<string, URL>();
beforeAll(async () => {
  // Every process of the file starts at once: the stdio clients' servers and the two HTTP servers.
  const overStdio = (client: ModernClient) => client.connect(new ModernStdioTransport(stdioServer));
  stdio = {
    modern: connected(modernClient({ capabilities: UI }), overStdio),
    legacy: connectedLegacy(new LegacyStdioTransport(stdioServer)),
    declaring2025: connected(olderClient("2025-11-25", { capabilities: UI }), overStdio),
    older: new Map(OLDER.map((version) => [version, connected(olderClient(version), overStdio)])),
  };
  for (const connecting of [stdio.modern, stdio.legacy, stdio.declaring2025, ...stdio.older.values()]) {
    connecting.catch(() => {}); // reported by the test that takes it
  }
  for (const flags of [[], ["--stateless"]]) http.set(flags.join(), spawnDemoHttp(flags));
  // The demo's sandbox is seeded like this one, so the same ids hold.
  sandbox = await startSandbox();
  for (const [flags, server] of http) httpUrls.set(flags, await server.url);
});
afterAll(async () => {
  const clients = [stdio.modern, stdio.legacy, stdio.declaring2025, ...stdio.older.values()];
  await Promise.allSettled(clients.map(async (client) => (await client).close()));
  await Promise.all([...http.values()].map((server) => server.stop()));
  await sandbox.close();
});

const HTTP_MODES: [string, string[]][] = [
  ["with 2025 sessions (the default)", []],
  ["with --stateless", ["--stateless"]],
];
const httpUrl = (flags: string[]) => httpUrls.get(flags.join()) as URL;

/** Over HTTP each test connects clients of its own: runs `check` on one, then closes it. */
async function closingAfter<T extends { close(): Promise<void> }>(
  connecting: Promise<T>,
  check: (client: T) => Promise<void>,
): Promise<void> {
  const client = await connecting;
  try {
    await check(client);
  } finally {
    await client.close();
  }
}

const overHttp = (url: URL, headers?: Record<string, string>) => (client: ModernClient) =>
  client.connect(new ModernHttpTransport(url, headers && { requestInit: { headers } }));
const legacyOverHttp = (url: URL, headers?: Record<string, string>) =>
  connectedLegacy(new LegacyHttpTransport(url, headers && { requestInit: { headers } }));

function expectModernEra(client: ModernClient): void {
  expect([client.getProtocolEra(), client.getNegotiatedProtocolVersion()]).toEqual(["modern", MODERN]);
}

/** An older revision still lists every tool and answers a call. */
async function expectOlder(version: string, client: ModernClient): Promise<void> {
  expect([client.getProtocolEra(), client.getNegotiatedProtocolVersion()]).toEqual(["legacy", version]);
  expect((await client.listTools()).tools).toHaveLength(14);
  const result = await client.callTool({ name: "geo_models", arguments: { pagination: { limit: 2 } } });
  expect((result.structuredContent as { data: unknown[] }).data).toHaveLength(2);
}

describe("every tool", () => {
  describe("over stdio (one process per client)", () => {
    it("SDK v2's client speaks 2026-07-28 and calls every tool", async () => {
      const client = await stdio.modern;
      expectModernEra(client);
      await exerciseEveryTool(client, sandbox);
    });

    it("SDK 1.x's client speaks 2025-11-25 and calls every tool", async () => {
      const { client, version } = await stdio.legacy;
      expect(version()).toBe("2025-11-25");
      await exerciseEveryTool(client, sandbox);
    });

    it.each(OLDER)("a %s client lists the tools and calls one", async (version) => {
      await expectOlder(version, await (stdio.older.get(version) as Promise<ModernClient>));
    });
  });

  describe.each(HTTP_MODES)("over HTTP %s, both eras on one running server", (_mode, flags) => {
    it("SDK v2's client speaks 2026-07-28 and calls every tool", async () => {
      await closingAfter(connected(modernClient(), overHttp(httpUrl(flags))), async (client) => {
        expectModernEra(client);
        await exerciseEveryTool(client, sandbox);
      });
    });

    it("SDK 1.x's client speaks 2025-11-25 and calls every tool", async () => {
      await closingAfter(legacyOverHttp(httpUrl(flags)), async ({ client, version }) => {
        expect(version()).toBe("2025-11-25");
        await exerciseEveryTool(client, sandbox);
      });
    });

    it.each(OLDER)("a %s client lists the tools and calls one", async (version) => {
      await closingAfter(connected(olderClient(version), overHttp(httpUrl(flags))), (client) =>
        expectOlder(version, client),
      );
    });

    it("a client that probes first (auto) lands on 2026-07-28", async () => {
      const client = new ModernClient(
        { name: "auto", version: "1.0.0" },
        { versionNegotiation: { mode: "auto" } },
      );
      await closingAfter(connected(client, overHttp(httpUrl(flags))), async () => {
        expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
      });
    });

    it("server/discover names the revisions and capabilities served", async () => {
      const client = await connected(modernClient(), overHttp(httpUrl(flags)));
      const discovered = client.getDiscoverResult();
      await client.close();
      expect(discovered?.supportedVersions).toContain(MODERN);
      expect(discovered?.capabilities).toEqual({
        tools: { listChanged: false },
        logging: {},
        prompts: { listChanged: false },
        completions: {},
        resources: {},
        extensions: { "io.modelcontextprotocol/skills": {} },
      });
      expect(discovered?.instructions).toContain("Agent-workspace tools");
    });
  });
});

// The demo's instructions end with the date its sandbox's data runs to, so that the assistant asks for
// periods that have data.
describe("the instructions", () => {
  it("over stdio, in both eras: --demo's end with the date the sandbox's data runs to", async () => {
    const modern = await stdio.modern;
    const { client: legacy } = await stdio.legacy;
    expect(modern.getNegotiatedProtocolVersion()).toBe(MODERN);
    for (const client of [modern, legacy]) {
      expect(client.getInstructions()?.split("\n").at(-1)).toBe(sandboxGuide(sandbox.today));
    }
  });
});

describe("the prompts", () => {
  describe("over stdio", () => {
    it("2026-07-28: SDK v2's client lists, renders and completes the prompts", async () => {
      const client = await stdio.modern;
      expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
      await exercisePrompts(client, sandbox);
    });

    it("2025-11-25: SDK 1.x's client lists, renders and completes the prompts", async () => {
      const { client } = await stdio.legacy;
      expect(client.getServerCapabilities()?.completions).toEqual({});
      await exercisePrompts(client, sandbox);
    });

    it("in both eras, every call of every GEO workflow, made as its message writes it, answers rows", async () => {
      const modern = await stdio.modern;
      const { client: legacy } = await stdio.legacy;
      expect(modern.getNegotiatedProtocolVersion()).toBe(MODERN);
      const made = [await exerciseWorkflows(modern), await exerciseWorkflows(legacy)];
      expect(made[0]).toBeGreaterThan(20);
      expect(made[1]).toBe(made[0]);
    });
  });

  describe.each(HTTP_MODES)("over HTTP %s", (_mode, flags) => {
    it("2026-07-28: SDK v2's client lists, renders and completes the prompts", async () => {
      await closingAfter(connected(modernClient(), overHttp(httpUrl(flags))), async (client) => {
        expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
        await exercisePrompts(client, sandbox);
      });
    });

    it("2025-11-25: SDK 1.x's client lists, renders and completes the prompts", async () => {
      await closingAfter(legacyOverHttp(httpUrl(flags)), ({ client }) => exercisePrompts(client, sandbox));
    });

    it("each user's X-API-KEY completes from that user's own projects, in both eras", async () => {
      const single = { "x-api-key": SANDBOX_SINGLE_PROJECT_API_KEY };
      // The main key's listings are cached by now (the tests above); another key must not read them.
      const modern = await connected(modernClient(), overHttp(httpUrl(flags), single));
      const { client: legacy } = await legacyOverHttp(httpUrl(flags), single);
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

    it("with X-MCP-Toolsets: workspace, only task_triage", async () => {
      const workspaceOnly = { "x-mcp-toolsets": "workspace" };
      await closingAfter(
        connected(modernClient(), overHttp(httpUrl(flags), workspaceOnly)),
        async (client) => {
          expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(["task_triage"]);
        },
      );
    });
  });
});

// A client that declares MCP Apps sees the link and reads the view; one that does not sees no link, and
// still lists and reads the resource. 2026-07-28 carries the capabilities in each request, 2025 at initialize.
describe("the report view (MCP Apps)", () => {
  describe("over stdio", () => {
    it("2026-07-28: linked and read for a client that declares MCP Apps; not linked for a request that does not", async () => {
      const client = await stdio.modern;
      expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
      await expectReportView(askingEachTime(client), true);
      // The request's own capabilities stand in for the client's: here, none.
      await expectReportView(askingEachTime(client, { [CLIENT_CAPABILITIES_META_KEY]: {} }), false);
    });

    it("2025-11-25: linked and read for a client that declares MCP Apps; not linked for SDK 1.x's, which does not", async () => {
      const declaring = await stdio.declaring2025;
      expect(declaring.getNegotiatedProtocolVersion()).toBe("2025-11-25");
      await expectReportView(askingEachTime(declaring), true);
      const { client, version } = await stdio.legacy;
      expect(version()).toBe("2025-11-25");
      await expectReportView(client, false);
    });
  });

  describe("over HTTP with 2025 sessions (the default)", () => {
    const ERAS: [string, (options: { capabilities?: typeof UI }) => ModernClient][] = [
      [MODERN, modernClient],
      ["2025-11-25", (options) => olderClient("2025-11-25", options)],
    ];
    it.each(ERAS)(
      "%s: linked and read for a client that declares MCP Apps; not linked for one that does not",
      async (version, client) => {
        for (const declares of [true, false]) {
          const connecting = connected(client(declares ? { capabilities: UI } : {}), overHttp(httpUrl([])));
          await closingAfter(connecting, async (connected) => {
            expect(connected.getNegotiatedProtocolVersion()).toBe(version);
            await expectReportView(connected, declares);
          });
        }
      },
    );
  });
});
