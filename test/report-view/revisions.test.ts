// The report view over real transports, in both protocol eras: the built CLI on --demo over stdio and
// HTTP, SDK v2's client speaking 2026-07-28 (capabilities per request) and a 2025 revision (capabilities
// at initialize). A client that declares MCP Apps sees the link and reads the view; one that does not
// sees no link, and still lists and reads the resource.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPORT_VIEW_TOOLS, REPORT_VIEW_URI } from "../../src/views/report-view.js";
import { type SpawnedDemoHttp, spawnDemoHttp } from "../every-tool.js";
import { CLI, childEnv } from "../helpers.js";

const MIME = "text/html;profile=mcp-app";
const UI = { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [MIME] } } };
const ERAS: [string, NonNullable<ConstructorParameters<typeof Client>[1]>][] = [
  ["2026-07-28", { versionNegotiation: { mode: { pin: "2026-07-28" } } }],
  ["2025-11-25", { supportedProtocolVersions: ["2025-11-25"] }],
];

type Options = (typeof ERAS)[number][1];

/** A client of `options`, declaring MCP Apps or not, connected over `transport`. */
async function connectedClient(
  options: Options,
  declares: boolean,
  transport: StdioClientTransport | StreamableHTTPClientTransport,
): Promise<Client> {
  const client = new Client(
    { name: "report-view-eras", version: "1.0.0" },
    { ...options, ...(declares && { capabilities: UI }) },
  );
  await client.connect(transport);
  return client;
}

const DECLARES = [true, false];
let httpServer: SpawnedDemoHttp;
let httpUrl: URL;
/** Over stdio a process serves one client: each client and its server, started before the tests. */
const stdioClients = new Map<string, Promise<Client>>();
beforeAll(async () => {
  // Every process of the file starts at once: the four stdio clients' servers and the HTTP server.
  for (const [version, options] of ERAS) {
    for (const declares of DECLARES) {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [CLI, "--demo"],
        env: childEnv(),
        stderr: "ignore",
      });
      const connecting = connectedClient(options, declares, transport);
      connecting.catch(() => {}); // its test reports it
      stdioClients.set(`${version} ${declares}`, connecting);
    }
  }
  httpServer = spawnDemoHttp();
  httpUrl = await httpServer.url;
});
afterAll(async () => {
  // Closes what a test did not take (one filtered out); closing twice is harmless.
  await Promise.allSettled([...stdioClients.values()].map(async (client) => (await client).close()));
  await httpServer.stop();
});

const transports = {
  stdio: (version: string, _options: Options, declares: boolean) =>
    stdioClients.get(`${version} ${declares}`) as Promise<Client>,
  http: (_version: string, options: Options, declares: boolean) =>
    connectedClient(options, declares, new StreamableHTTPClientTransport(httpUrl)),
};

describe.each(Object.keys(transports) as (keyof typeof transports)[])("over %s", (transport) => {
  it.each(ERAS)(
    "%s: linked and read for a client that declares MCP Apps; not linked for one that does not",
    async (version, options) => {
      for (const declares of DECLARES) {
        const client = await transports[transport](version, options, declares);
        try {
          expect(client.getNegotiatedProtocolVersion()).toBe(version);
          const linked = (await client.listTools()).tools.filter((tool) => tool._meta?.ui !== undefined);
          expect(linked.map((tool) => tool.name).sort()).toEqual(
            declares ? [...REPORT_VIEW_TOOLS].sort() : [],
          );
          expect((await client.listResources()).resources.map((resource) => resource.uri)).toEqual([
            REPORT_VIEW_URI,
          ]);
          const [content] = (await client.readResource({ uri: REPORT_VIEW_URI })).contents;
          expect(content?.mimeType).toBe(MIME);
          expect(content && "text" in content && content.text.startsWith("<!doctype html>")).toBe(true);
        } finally {
          await client.close();
        }
      }
    },
  );
});
