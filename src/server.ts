// Builds the MCP server: the same factory serves stdio, stateful HTTP and stateless HTTP. Each session
// answers tool calls itself (session.ts) and builds the SDK Server below only for the rest.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { SetLevelRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import type { Upstreams } from "./clients/index.js";
import type { SessionLog } from "./log.js";
import { McpSession } from "./session.js";
import { ALL_TOOL_NAMES, ENDPOINTS, registerTools } from "./tools/register.js";
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

let ajv: AjvJsonSchemaValidator | undefined;

/**
 * Without this the SDK builds an Ajv instance for every Server, i.e. for every HTTP session (and every
 * stateless request). It only serves elicitation, which these tools never use: one shared instance,
 * made on first use.
 */
const sharedValidator: jsonSchemaValidator = {
  getValidator: (schema) => {
    ajv ??= new AjvJsonSchemaValidator();
    return ajv.getValidator(schema);
  },
};

export interface ServerOptions {
  /** The tools this server publishes and answers; the others are refused. Default: all. */
  tools?: ReadonlySet<string>;
}

/** The SDK's Server for what McpSession hands on: initialize, logging/setLevel, malformed calls. */
function buildSdkServer(upstreams: Upstreams, tools: ReadonlySet<string>, sessionLog: SessionLog): Server {
  const server = new Server(
    { name: SERVER_NAME, version: SERVER_VERSION },
    {
      capabilities: { tools: { listChanged: false }, logging: {} },
      instructions: instructionsFor(tools),
      jsonSchemaValidator: sharedValidator,
    },
  );
  // Replaces the SDK's own handler: the level lives with this session's log, which filters by it.
  server.setRequestHandler(SetLevelRequestSchema, (request) => {
    sessionLog.setClientLevel(request.params.level);
    return {};
  });
  registerTools(server, upstreams, tools, sessionLog);
  return server;
}

/** One MCP session: connect it to a transport (stdio, an HTTP session, a stateless request). */
export function buildServer(upstreams: Upstreams, options: ServerOptions = {}): McpSession {
  const tools = options.tools ?? ALL_TOOL_NAMES;
  return new McpSession(upstreams, tools, (sessionLog) => buildSdkServer(upstreams, tools, sessionLog));
}
