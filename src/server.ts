// Builds the MCP server: the same factory serves stdio, stateful HTTP and stateless HTTP, one McpSession
// (session.ts) per stdio process, HTTP session or stateless request.
import type { Upstreams } from "./clients/index.js";
import { McpSession, type ServerIdentity } from "./session.js";
import { ALL_TOOL_NAMES, ENDPOINTS } from "./tools/register.js";
import { SERVER_NAME, SERVER_VERSION } from "./version.js";

export const WORKSPACE_GUIDE = `Agent-workspace tools: tasks, comments, agent runs and attachment links. Start with whoami for the project ids unless a default project is configured; tasks_query and agent_runs_query page with next_cursor.`;
export const ANALYTICS_GUIDE = `Visibility-analytics (geo_) tools: prompts, tags, topics, models, websites, citations, keywords and a sentiment report. Start with geo_projects for the project ids unless a default project is configured; listings page with pagination {limit, offset} and report info.total_rows.`;

/** Guidance for the tools a server actually has: one line per API it serves. */
function instructionsFor(tools: ReadonlySet<string>): string {
  const apis = new Set(
    ENDPOINTS.filter((endpoint) => tools.has(endpoint.name)).map((endpoint) => endpoint.api),
  );
  const lines: string[] = [];
  if (apis.has("workspace")) lines.push(WORKSPACE_GUIDE);
  if (apis.has("analytics")) lines.push(ANALYTICS_GUIDE);
  return lines.join("\n");
}

export interface ServerOptions {
  /** The tools this server publishes and answers; the others are refused. Default: all. */
  tools?: ReadonlySet<string>;
}

/** One MCP session: connect it to a transport (stdio, an HTTP session, a stateless request). */
export function buildServer(upstreams: Upstreams, options: ServerOptions = {}): McpSession {
  const tools = options.tools ?? ALL_TOOL_NAMES;
  const identity: ServerIdentity = {
    serverInfo: { name: SERVER_NAME, version: SERVER_VERSION },
    capabilities: { tools: { listChanged: false }, logging: {} },
    instructions: instructionsFor(tools),
  };
  return new McpSession(upstreams, tools, identity);
}
