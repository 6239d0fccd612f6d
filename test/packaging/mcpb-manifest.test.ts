// The Claude Desktop bundle's manifest follows the code, passes mcpb's schema, and, filled in by mcpb's
// own substitution (the code Claude Desktop runs), gives the server exactly the settings of the form.
import { readFileSync } from "node:fs";
import { getMcpConfigForManifest, MANIFEST_SCHEMAS, type McpbUserConfigValues } from "@anthropic-ai/mcpb";
import { describe, expect, it } from "vitest";
import { buildManifest, ENTRY_POINT, MANIFEST_VERSION } from "../../src/build/mcpb-manifest.js";
import { parseCommandLine } from "../../src/config/parse.js";
import { SETTINGS } from "../../src/config/settings.js";
import type { Config } from "../../src/config/types.js";
import { FIELD_TITLES } from "../../src/settings-names.js";
import { ENDPOINTS } from "../../src/tools/register.js";

const read = (file: string) => JSON.parse(readFileSync(new URL(`../../${file}`, import.meta.url), "utf8"));
const pkg = read("package.json");
const listing = read("server.json");
const manifest = MANIFEST_SCHEMAS[MANIFEST_VERSION].parse(buildManifest(pkg, listing));
const BUNDLE_DIR = "/Applications/Claude/extensions/agent-workspace-mcp";
const PROJECT = "11111111-1111-4111-8111-111111111111";
const WORKSPACE = "22222222-2222-4222-8222-222222222222";

/** What the host starts for these form values: mcpb's substitution, then the server's own parser. */
async function started(
  values: McpbUserConfigValues,
): Promise<{ args: string[]; env: Record<string, string>; config: Config }> {
  const mcp = await getMcpConfigForManifest({
    manifest,
    extensionPath: BUNDLE_DIR,
    systemDirs: {},
    userConfig: values,
    pathSeparator: "/",
  });
  if (!mcp) throw new Error("the host would not start the server");
  const command = parseCommandLine([], mcp.env ?? {});
  if (command.kind !== "serve") throw new Error(`expected serve, got ${command.kind}`);
  return { args: mcp.args ?? [], env: mcp.env ?? {}, config: command.config };
}

describe("the bundle's manifest", () => {
  it("passes mcpb's schema with the package's name, version and Node range, and lists the endpoint table", () => {
    expect(MANIFEST_SCHEMAS[MANIFEST_VERSION].safeParse(buildManifest(pkg, listing)).success).toBe(true);
    expect([manifest.name, manifest.version, manifest.manifest_version]).toEqual([
      pkg.name,
      pkg.version,
      "0.2",
    ]);
    expect(manifest.compatibility?.runtimes).toEqual({ node: pkg.engines.node });
    expect(manifest.tools?.map((tool) => tool.name)).toEqual(ENDPOINTS.map((endpoint) => endpoint.name));
    expect(manifest.server).toMatchObject({
      type: "node",
      entry_point: ENTRY_POINT,
      mcp_config: { command: "node", args: [`\${__dirname}/${ENTRY_POINT}`] },
    });
  });

  it("sets one variable of the settings table per form field, the keys sensitive, and says messages name the fields", () => {
    const { MCP_SETTINGS_FROM, ...env } = manifest.server.mcp_config.env ?? {};
    expect(MCP_SETTINGS_FROM).toBe("mcpb");
    const fields = Object.keys(manifest.user_config ?? {});
    expect(Object.values(env)).toEqual(fields.map((field) => `\${user_config.${field}}`));
    expect(fields.map((field) => manifest.user_config?.[field]?.title)).toEqual(Object.values(FIELD_TITLES));
    const known = new Set(SETTINGS.map((setting) => setting.env));
    expect(Object.keys(env).filter((name) => !known.has(name))).toEqual([]);
    const sensitive = fields.filter((field) => manifest.user_config?.[field]?.sensitive);
    expect(sensitive.map((field) => Object.keys(env)[fields.indexOf(field)])).toEqual([
      "WORKSPACE_API_KEY",
      "ANALYTICS_API_KEY",
    ]);
  });

  it("with only the sandbox turned on, leaves every other setting unset (a text field's default is empty)", async () => {
    const { args, env, config } = await started({ demo: true });
    expect(args).toEqual([`${BUNDLE_DIR}/${ENTRY_POINT}`]);
    expect(Object.values(env).filter((value) => value.includes("${"))).toEqual([]);
    expect(config.demo).toBe(true);
    expect(config.tools).toEqual({
      toolsets: undefined,
      tools: undefined,
      readOnly: false,
      noReportView: false,
    });
    expect(config.upstream).toMatchObject({
      workspaceApiKey: undefined,
      analyticsApiKey: undefined,
      workspaceBaseUrl: undefined,
      analyticsBaseUrl: undefined,
      workspaceProjectId: undefined,
      workspaceId: undefined,
      analyticsProjectId: undefined,
      settingsFrom: "mcpb",
    });
  });

  it("passes every field filled in to its setting, booleans as true/false", async () => {
    const { config } = await started({
      api_key: "key-1",
      analytics_api_key: "key-2",
      workspace_base_url: "https://workspace.test/",
      analytics_base_url: "https://analytics.test",
      workspace_project_id: PROJECT,
      workspace_id: WORKSPACE,
      analytics_project_id: PROJECT,
      toolsets: "workspace, analytics",
      read_only: true,
      demo: false,
    });
    expect(config.demo).toBe(false);
    expect(config.tools).toEqual({
      toolsets: ["workspace", "analytics"],
      tools: undefined,
      readOnly: true,
      noReportView: false,
    });
    expect(config.upstream).toMatchObject({
      workspaceApiKey: "key-1",
      analyticsApiKey: "key-2",
      workspaceBaseUrl: "https://workspace.test",
      analyticsBaseUrl: "https://analytics.test",
      workspaceProjectId: PROJECT,
      workspaceId: WORKSPACE,
      analyticsProjectId: PROJECT,
    });
  });

  it("is the table docs/bundle.md shows: field, title, kind and variable, in order", () => {
    const doc = readFileSync(new URL("../../docs/bundle.md", import.meta.url), "utf8");
    const rows = [...doc.matchAll(/^\| `(\w+)` \| ([^|]+) \| ([^|]+) \| `(\w+)` \|$/gm)].map((row) =>
      row.slice(1),
    );
    const env = Object.entries(manifest.server.mcp_config.env ?? {});
    expect(rows).toEqual(
      Object.entries(manifest.user_config ?? {}).map(([field, spec], index) => [
        field,
        spec.title,
        `${spec.type === "boolean" ? "on/off" : "text"}${spec.sensitive ? ", sensitive" : ""}`,
        env[index]?.[0],
      ]),
    );
  });

  it("reads a field cleared in the form (an empty string) as unset", async () => {
    const { config } = await started({ api_key: "", workspace_base_url: "", toolsets: "", read_only: false });
    expect([
      config.upstream.workspaceApiKey,
      config.upstream.workspaceBaseUrl,
      config.tools.toolsets,
    ]).toEqual([undefined, undefined, undefined]);
  });
});
