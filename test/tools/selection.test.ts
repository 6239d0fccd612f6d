// Choosing the tools an assistant sees: toolsets, an exact allow-list and read-only at start, and the
// X-MCP-* headers that narrow them per HTTP session; hidden tools are neither listed nor callable.
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError, type ConfigKey, type ToolSelection } from "../../src/config/types.js";
import { ANALYTICS_GUIDE, DATA_GUIDE, WORKSPACE_GUIDE } from "../../src/server.js";
import { ALL_TOOL_NAMES, TOOL_LIST, toolListFor } from "../../src/tools/register.js";
import { selectionFromHeaders, selectTools, TOOLSETS } from "../../src/tools/selection.js";
import {
  ANALYTICS_TOOLS,
  type McpHarness,
  type Recorder,
  startMcp,
  startRecorder,
  TOOL_NAMES,
  WORKSPACE_TOOLS,
} from "../helpers.js";

const WORKSPACE = WORKSPACE_TOOLS;
const ANALYTICS = ANALYTICS_TOOLS;
const ALL = TOOL_NAMES;
const VALID_TOOLS = `valid tools: ${ALL.join(", ")}`;

const names = (selected: ReadonlySet<string>) => [...selected];

describe("selecting tools at start", () => {
  it("has one toolset per API, taken from each endpoint's api", () => {
    expect(Object.fromEntries(TOOLSETS)).toEqual({ workspace: WORKSPACE, analytics: ANALYTICS });
  });

  it.each([
    [{ readOnly: false }, ALL],
    [{ toolsets: ["workspace", "analytics"], readOnly: false }, ALL],
    [{ toolsets: ["analytics"], readOnly: false }, ANALYTICS],
    [{ toolsets: ["workspace"], readOnly: true }, WORKSPACE.filter((name) => name !== "tasks_comments")],
    [{ tools: ["geo_tags", "whoami"], readOnly: false }, ["whoami", "geo_tags"]],
    [{ toolsets: ["workspace"], tools: ["whoami", "geo_tags"], readOnly: false }, ["whoami"]],
    [{ readOnly: true }, ALL.filter((name) => name !== "tasks_comments")],
  ])("%j serves %j", (selection, expected) => {
    expect(names(selectTools(selection))).toEqual(expected);
  });

  it.each<[ToolSelection, string, ConfigKey[]]>([
    [
      { toolsets: ["workspace", "analitics"], readOnly: false },
      '--toolsets (MCP_TOOLSETS): unknown toolset "analitics"; valid toolsets: workspace, analytics',
      ["tools.toolsets"],
    ],
    [
      { toolsets: [], readOnly: false },
      "--toolsets (MCP_TOOLSETS) is empty; valid toolsets: workspace, analytics",
      ["tools.toolsets"],
    ],
    [
      { tools: ["whoami", "tasks_list", "geo_tag"], readOnly: false },
      `--tools (MCP_TOOLS): unknown tools "tasks_list", "geo_tag"; ${VALID_TOOLS}`,
      ["tools.tools"],
    ],
    [{ tools: [], readOnly: false }, `--tools (MCP_TOOLS) is empty; ${VALID_TOOLS}`, ["tools.tools"]],
    [
      { tools: ["tasks_comments"], readOnly: true },
      `the tool selection leaves no tool to serve; choose among: ${ALL.join(", ")}`,
      ["tools.toolsets", "tools.tools", "tools.readOnly"],
    ],
  ])("rejects %j", (selection, message, settings) => {
    expect(() => selectTools(selection)).toThrow(new ConfigError(message, settings));
  });

  it("prepares one tools/list answer per distinct selection and reuses it", () => {
    const workspace = selectTools({ toolsets: ["workspace"], readOnly: false });
    const sameAgain = selectTools({ tools: [...WORKSPACE].reverse(), readOnly: false });
    expect(toolListFor(workspace)).toBe(toolListFor(sameAgain));
    expect(toolListFor(workspace).tools).toEqual(TOOL_LIST.tools.slice(0, 5));
    // The published tool objects are shared, not converted again.
    expect(toolListFor(workspace).tools[0]).toBe(TOOL_LIST.tools[0]);
  });
});

describe("the cost of tools/list", () => {
  const bytesOf = (selection: Parameters<typeof selectTools>[0]) =>
    Buffer.byteLength(JSON.stringify(toolListFor(selectTools(selection))));

  // The README's table (npm run tool-size) reports these; the bounds leave ~10% room, so growth is a decision.
  it.each([
    ["workspace", 12_500, { toolsets: ["workspace"], readOnly: false }],
    ["analytics", 40_500, { toolsets: ["analytics"], readOnly: false }],
    ["all", 53_000, { readOnly: false }],
  ])("%s stays under %i bytes", (_name, bound, selection) => {
    expect(bytesOf(selection)).toBeLessThan(bound);
  });
});

describe("X-MCP-* headers", () => {
  it("read into a selection; absent headers select nothing more", () => {
    expect(
      selectionFromHeaders({
        "x-mcp-toolsets": "workspace, analytics",
        "x-mcp-tools": "whoami",
        "x-mcp-read-only": "true",
      }),
    ).toEqual({ toolsets: ["workspace", "analytics"], tools: ["whoami"], readOnly: true });
    expect(selectionFromHeaders({})).toEqual({ toolsets: undefined, tools: undefined, readOnly: false });
  });

  it("reject a read-only value that is not a switch, without quoting it", () => {
    expect(() => selectionFromHeaders({ "x-mcp-read-only": "maybe" })).toThrow(
      new ConfigError("X-MCP-Read-Only must be 1/true/yes/on or 0/false/no/off"),
    );
  });
});

describe("a server with a selection, over HTTP", () => {
  let upstream: Recorder;
  let mcp: McpHarness | undefined;
  afterEach(async () => {
    await mcp?.close();
    mcp = undefined;
    await upstream.close();
  });

  async function start(serverTools: ReadonlySet<string>, headers?: Record<string, string>) {
    upstream = await startRecorder(() => ({ body: { projects: [] } }));
    mcp = await startMcp(
      { workspaceBaseUrl: upstream.url, analyticsBaseUrl: upstream.url, workspaceApiKey: "k-123456" },
      { tools: serverTools, headers },
    );
    return mcp;
  }

  const listed = async (harness: McpHarness) =>
    (await harness.client.listTools()).tools.map((tool) => tool.name);

  it.each([
    ["workspace", [WORKSPACE_GUIDE, DATA_GUIDE]],
    ["analytics", [ANALYTICS_GUIDE, DATA_GUIDE]],
    ["workspace,analytics", [WORKSPACE_GUIDE, ANALYTICS_GUIDE, DATA_GUIDE]],
  ])("with toolsets %s, its instructions speak only of the tools it has", async (toolsets, guides) => {
    const harness = await start(selectTools({ toolsets: toolsets.split(","), readOnly: false }));
    expect(harness.client.getInstructions()).toBe(guides.join("\n"));
  });

  it("lists only its tools and refuses a hidden one without calling upstream", async () => {
    const harness = await start(selectTools({ toolsets: ["workspace"], readOnly: true }));
    expect(await listed(harness)).toEqual([
      "whoami",
      "tasks_query",
      "agent_runs_query",
      "attachments_download_url",
    ]);
    await expect(harness.call("tasks_comments", { task_id: "x", body: "hi" })).rejects.toMatchObject({
      code: -32602,
      message:
        'MCP error -32602: Unknown tool: "tasks_comments" is not enabled on this server (see its --toolsets, --tools and --read-only settings). Available: whoami, tasks_query, agent_runs_query, attachments_download_url.',
    });
    await expect(harness.call("tasks_delete")).rejects.toMatchObject({
      code: -32602,
      message:
        'MCP error -32602: Unknown tool: "tasks_delete" does not exist. Available: whoami, tasks_query, agent_runs_query, attachments_download_url.',
    });
    expect(upstream.requests).toEqual([]);
    expect((await harness.call("whoami")).isError).toBeUndefined();
    expect(upstream.requests.map((request) => request.path)).toEqual(["/api/v1/business/whoami"]);
  });

  it("narrows by headers: toolsets, tools and read-only intersect what the server serves", async () => {
    const harness = await start(ALL_TOOL_NAMES, {
      "X-MCP-Toolsets": "workspace",
      "X-MCP-Read-Only": "1",
    });
    expect(await listed(harness)).toEqual([
      "whoami",
      "tasks_query",
      "agent_runs_query",
      "attachments_download_url",
    ]);
  });

  it("never widens by headers: a tool the server does not serve stays hidden", async () => {
    const harness = await start(new Set(["whoami", "geo_projects"]), {
      "X-MCP-Tools": "whoami,tasks_comments,geo_tags",
    });
    expect(await listed(harness)).toEqual(["whoami"]);
    await expect(harness.call("geo_projects")).rejects.toMatchObject({
      code: -32602,
      message:
        'MCP error -32602: Unknown tool: "geo_projects" is not enabled on this server (see its --toolsets, --tools and --read-only settings). Available: whoami.',
    });
  });

  it.each([
    [
      { "X-MCP-Toolsets": "workspace,billing" },
      "Bad Request: X-MCP-Toolsets holds 1 name that is not a toolset; valid toolsets: workspace, analytics",
    ],
    [{ "X-MCP-Tools": "" }, `Bad Request: X-MCP-Tools is empty; ${VALID_TOOLS}`],
    [
      { "X-MCP-Read-Only": "perhaps" },
      "Bad Request: X-MCP-Read-Only must be 1/true/yes/on or 0/false/no/off",
    ],
    [
      { "X-MCP-Tools": "tasks_comments" },
      "Bad Request: the tool selection leaves no tool to serve; choose among: whoami, geo_projects",
    ],
  ])("answers 400 with a JSON error to a malformed header %j", async (headers, message) => {
    const harness = await start(new Set(["whoami", "geo_projects"]));
    const response = await fetch(harness.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...headers,
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      }),
    });
    expect(response.status).toBe(400);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(await response.json()).toEqual({ jsonrpc: "2.0", error: { code: -32600, message }, id: null });
  });
});
