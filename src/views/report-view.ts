// The report view (MCP Apps, io.modelcontextprotocol/ui): one ui:// resource that draws the tables of
// numbers the analytics tools and tasks_query counts answer as charts, in hosts that render MCP Apps.
// Additive: tool results are untouched, and only a client that declares the extension sees the tools'
// link to the view (tools/list stays byte-identical for every other client).
// The extension's package is used for its types and constants only: its server helpers take an
// McpServer (this server is the low-level Server), and its runtime would add the SDK client to installs.
import type {
  EXTENSION_ID,
  McpUiAppResourceConfig,
  McpUiAppToolConfig,
  McpUiReadResourceResult,
  RESOURCE_MIME_TYPE,
  RESOURCE_URI_META_KEY,
} from "@modelcontextprotocol/ext-apps/server";
import {
  type ClientCapabilities,
  type ListResourcesResult,
  type ListToolsResult,
  ResourceNotFoundError,
} from "@modelcontextprotocol/server";

// The package's constants, checked against it by the compiler (each type is the constant's literal).
const UI_EXTENSION: typeof EXTENSION_ID = "io.modelcontextprotocol/ui";
export const VIEW_MIME_TYPE: typeof RESOURCE_MIME_TYPE = "text/html;profile=mcp-app";
const LEGACY_URI_KEY: typeof RESOURCE_URI_META_KEY = "ui/resourceUri";

export const REPORT_VIEW_URI = "ui://agent-workspace-mcp/report-view.html";

/** The tools whose answers the view draws: tables of numbers (tasks_query: its `counts` view). */
export const REPORT_VIEW_TOOLS: ReadonlySet<string> = new Set([
  "geo_reports_sentiments",
  "geo_models",
  "geo_websites",
  "geo_topics",
  "geo_tags",
  "geo_prompts",
  "geo_keywords",
  "tasks_query",
]);

/** What the resource asks of the host: no external origin at all (the HTML is self-contained). */
const RESOURCE_UI: NonNullable<McpUiAppResourceConfig["_meta"]>["ui"] = {
  csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] },
  prefersBorder: true,
};

const RESOURCE = {
  uri: REPORT_VIEW_URI,
  name: "report_view",
  title: "Report chart",
  description:
    "Charts and a table of a geo_ report or listing, or of tasks_query counts; changes range, interval, dimension, measure and page by calling the tool again.",
  mimeType: VIEW_MIME_TYPE,
  _meta: { ui: RESOURCE_UI },
};

/** Both keys, as the extension's registerAppTool writes them: `ui.resourceUri`, and the older flat one. */
const TOOL_META: McpUiAppToolConfig["_meta"] = {
  ui: { resourceUri: REPORT_VIEW_URI },
  [LEGACY_URI_KEY]: REPORT_VIEW_URI,
};

/** Whether the client renders MCP Apps HTML views (it declares the extension with this MIME type). */
export function rendersViews(declared: ClientCapabilities | undefined): boolean {
  const ui = declared?.extensions?.[UI_EXTENSION] as { mimeTypes?: unknown } | undefined;
  return Array.isArray(ui?.mimeTypes) && ui.mimeTypes.includes(VIEW_MIME_TYPE);
}

const withView = new WeakMap<ListToolsResult, ListToolsResult>();

/** A tools/list answer with the view linked from the tools it draws; computed once per list. */
export function toolListWithView(list: ListToolsResult): ListToolsResult {
  let linked = withView.get(list);
  if (!linked) {
    linked = {
      ...list,
      tools: list.tools.map((tool) =>
        REPORT_VIEW_TOOLS.has(tool.name) ? { ...tool, _meta: { ...tool._meta, ...TOOL_META } } : tool,
      ),
    };
    withView.set(list, linked);
  }
  return linked;
}

/** resources/list: the view, when some tool of this server links to it. */
export function viewResources(tools: ReadonlySet<string>): ListResourcesResult {
  return { resources: [...tools].some((name) => REPORT_VIEW_TOOLS.has(name)) ? [RESOURCE] : [] };
}

/** resources/read of the view; any other URI is a miss (the SDK answers it -32602 with the URI). */
export async function readViewResource(
  uri: string,
  tools: ReadonlySet<string>,
): Promise<McpUiReadResourceResult> {
  if (uri !== REPORT_VIEW_URI || viewResources(tools).resources.length === 0) {
    throw new ResourceNotFoundError(uri, `Resource not found: ${uri.slice(0, 200)}`);
  }
  // Loaded on the first read: the HTML (~0.5 MB) stays off the start-up path of the bundle.
  const { reportViewHtml } = await import("./html.js");
  return {
    contents: [
      { uri: REPORT_VIEW_URI, mimeType: VIEW_MIME_TYPE, text: reportViewHtml(), _meta: { ui: RESOURCE_UI } },
    ],
  };
}
