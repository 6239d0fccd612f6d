// The Claude Desktop bundle as a host uses it: built by scripts/bundle-mcpb.mjs, unpacked with mcpb's
// unpack, started exactly as the manifest's mcp_config says once mcpb's substitution (the code Claude
// Desktop runs) has filled in the form, then listed and called over stdio in both protocol eras.
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import {
  getMcpConfigForManifest,
  type McpbManifestAny,
  type McpbUserConfigValues,
  unpackExtension,
  validateManifest,
} from "@anthropic-ai/mcpb";
import { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { ENDPOINTS } from "../../src/tools/register.js";
import { REPORT_VIEW_FILE } from "../../src/views/html.js";
import { REPORT_VIEW_URI, VIEW_MIME_TYPE } from "../../src/views/report-view.js";
import { expectSchemasOfSources } from "../every-tool.js";
import { InPlaceStdioClientTransport } from "../stdio-client.js";
import { takingTurns } from "../turns.js";

const root = new URL("../..", import.meta.url).pathname;
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));

/** The bound docs/bundle.md states for the .mcpb file: "under N KB". */
const documentedKb = Number(readFileSync(join(root, "docs/bundle.md"), "utf8").match(/under (\d+) KB/)?.[1]);

/** SDK v2's client pinned to 2026-07-28, and one offering only 2025-11-25 (the initialize handshake). */
const ERAS = [
  {
    era: "modern",
    version: "2026-07-28",
    client: () =>
      new Client(
        { name: "bundle-test", version: "1.0.0" },
        { versionNegotiation: { mode: { pin: "2026-07-28" } } },
      ),
  },
  {
    era: "legacy",
    version: "2025-11-25",
    client: () =>
      new Client({ name: "bundle-test", version: "1.0.0" }, { supportedProtocolVersions: ["2025-11-25"] }),
  },
] as const;

let work: string;
let bundle: string;
let unpacked: string;
let manifest: McpbManifestAny;
let sandbox: Sandbox;

/** The form values each test of an era starts the unpacked bundle with. */
const FORMS = {
  demo: (): McpbUserConfigValues => ({ demo: true }),
  keyed: (): McpbUserConfigValues => ({
    api_key: sandbox.apiKey,
    workspace_base_url: sandbox.workspaceBaseUrl,
    analytics_base_url: sandbox.analyticsBaseUrl,
    workspace_project_id: sandbox.workspaceProjectId,
    toolsets: "workspace",
    read_only: true,
  }),
  empty: (): McpbUserConfigValues => ({}),
};
type Form = keyof typeof FORMS;

const [MODERN, LEGACY] = ERAS;
/**
 * The servers the tests start: the sandbox form in both eras, and each other form in one era. A form
 * only fills in the command line, before any client connects, so what it changes does not depend on the
 * era.
 */
const STARTS: Array<[(typeof ERAS)[number], Form]> = [
  [MODERN, "demo"],
  [LEGACY, "demo"],
  [MODERN, "keyed"],
  [LEGACY, "empty"],
];
/**
 * The servers, spawned and connected once the bundle is unpacked, three at a time: the starts overlap,
 * while the tests, which share the sandbox's record of requests, run one at a time.
 */
const started = new Map<string, Promise<Client>>();
/** Three servers start at a time. */
const inTurn = takingTurns(3);
const startedKey = (era: (typeof ERAS)[number], form: Form) => `${era.era} ${form}`;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "mcpb-test-"));
  const built = promisify(execFile)(process.execPath, ["scripts/bundle-mcpb.mjs", "--out-dir", work], {
    cwd: root,
  });
  [sandbox] = await Promise.all([startSandbox({ record: true }), built]);
  bundle = join(work, `${pkg.name}-${pkg.version}.mcpb`);
  unpacked = join(work, "installed");
  expect(await unpackExtension({ mcpbPath: bundle, outputDir: unpacked, silent: true })).toBe(true);
  manifest = JSON.parse(readFileSync(join(unpacked, "manifest.json"), "utf8"));
  for (const [era, form] of STARTS) {
    const client = inTurn(() => connect(FORMS[form](), era));
    client.catch(() => {}); // a failed start fails the test that awaits it
    started.set(startedKey(era, form), client);
  }
}, 120_000);

afterAll(async () => {
  // Each test closes its own client; this closes any a test did not get to.
  await Promise.allSettled([...started.values()].map(async (client) => (await client).close()));
  await sandbox?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** What the host spawns for these form values, and a client of `era` connected to it over stdio. */
async function connect(values: McpbUserConfigValues, era: (typeof ERAS)[number]) {
  const mcp = await getMcpConfigForManifest({
    manifest,
    extensionPath: unpacked,
    systemDirs: {},
    userConfig: values,
    pathSeparator: "/",
  });
  if (!mcp) throw new Error("the host would not start the server");
  const transport = new InPlaceStdioClientTransport({
    command: mcp.command,
    args: mcp.args,
    env: mcp.env,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  const client = era.client();
  try {
    await client.connect(transport);
  } catch (error) {
    throw new Error(`the bundled server did not start: ${(error as Error).message}\n${stderr}`);
  }
  expect([client.getProtocolEra(), client.getNegotiatedProtocolVersion()]).toEqual([era.era, era.version]);
  return client;
}

/** whoami's answer straight from the sandbox, for the key given. */
async function whoamiFromSandbox() {
  const response = await fetch(`${sandbox.workspaceBaseUrl}/api/v1/business/whoami`, {
    headers: { "x-api-key": sandbox.apiKey },
  });
  expect(response.status).toBe(200);
  return response.json();
}

describe("the .mcpb file", () => {
  it("holds the manifest, the server as one file and the license, and is under the size docs/bundle.md states", () => {
    const files = readdirSync(unpacked, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name).slice(unpacked.length + 1))
      .sort();
    expect(files).toEqual(["LICENSE", "manifest.json", "server/index.mjs"]);
    expect(documentedKb).toBeGreaterThan(0);
    expect(statSync(bundle).size).toBeLessThan(documentedKb * 1024);
  });

  it("passes mcpb validate as unpacked", () => {
    const printed = vi.spyOn(console, "log").mockImplementation(() => {});
    try {
      expect(validateManifest(join(unpacked, "manifest.json"))).toBe(true);
      expect(printed).toHaveBeenCalledWith("Manifest schema validation passes!");
    } finally {
      printed.mockRestore();
    }
  });
});

describe.each(ERAS)("the unpacked bundle, to a $era client ($version) over stdio", (era) => {
  it("with the sandbox turned on: every tool of the endpoint table, whoami answers the sandbox's identity, the report view is inline", async () => {
    const client = await started.get(startedKey(era, "demo"))!;
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(ENDPOINTS.map((endpoint) => endpoint.name));
      expectSchemasOfSources(tools);
      const result = await client.callTool({ name: "whoami", arguments: { response_format: "full" } });
      expect(result.isError).toBeUndefined();
      // The demo's sandbox is seeded as the test's own: the same identity and projects.
      expect(result.structuredContent).toEqual(await whoamiFromSandbox());
      // The one-file server carries the view: nothing beside it to read.
      const { contents } = await client.readResource({ uri: REPORT_VIEW_URI });
      expect(contents).toEqual([
        expect.objectContaining({
          uri: REPORT_VIEW_URI,
          mimeType: VIEW_MIME_TYPE,
          text: readFileSync(REPORT_VIEW_FILE, "utf8"),
        }),
      ]);
    } finally {
      await client.close();
    }
  });
});

describe("the unpacked bundle over stdio, in one era each", () => {
  it("with the key and base URLs of a sandbox on 127.0.0.1, workspace toolset, read-only: those tools, and the key sent (to a modern client)", async () => {
    const client = await started.get(startedKey(MODERN, "keyed"))!;
    // Every server has started (and connected) before the record is cleared: what is recorded is this call's.
    await Promise.allSettled(started.values());
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(
        ENDPOINTS.filter((endpoint) => endpoint.api === "workspace" && endpoint.readOnly).map((e) => e.name),
      );
      sandbox.requests.length = 0;
      const result = await client.callTool({ name: "whoami", arguments: { response_format: "full" } });
      expect(result.isError).toBeUndefined();
      expect(
        sandbox.requests.map(({ method, path, headers }) => [method, path, headers["x-api-key"]]),
      ).toEqual([["GET", "/api/v1/business/whoami", sandbox.apiKey]]);
      expect(result.structuredContent).toEqual(await whoamiFromSandbox());
    } finally {
      await client.close();
    }
  });

  it("with the form left empty: the tools, and a call says which field to fill in, as docs/bundle.md shows (to a legacy client)", async () => {
    const client = await started.get(startedKey(LEGACY, "empty"))!;
    try {
      expect((await client.listTools()).tools).toHaveLength(ENDPOINTS.length);
      const result = await client.callTool({ name: "whoami", arguments: {} });
      const advice =
        'No API key: fill in "API key" in this extension\'s settings (Claude Desktop: Settings → Extensions), or turn on "Sandbox (demo data)" to try the tools on invented data.';
      expect([result.isError, result.content]).toEqual([true, [{ type: "text", text: `whoami: ${advice}` }]]);
      expect(readFileSync(join(root, "docs/bundle.md"), "utf8").replaceAll("\n", " ")).toContain(
        `\`${advice}\``,
      );
    } finally {
      await client.close();
    }
  });
});
