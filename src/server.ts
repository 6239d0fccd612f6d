// Builds the MCP server: the same factory serves stdio, stateful HTTP and stateless HTTP.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { SetLevelRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import type { Upstreams } from "./clients/index.js";
import { SessionLog } from "./log.js";
import { ALL_TOOL_NAMES, registerTools } from "./tools/register.js";
import { SERVER_NAME, SERVER_VERSION } from "./version.js";

const INSTRUCTIONS = `Tools for an agent workspace (tasks, comments, agent runs, attachments) and for visibility analytics (geo_ tools).
Start with whoami (workspace project ids) or geo_projects (analytics project ids) unless a default project is configured.
Lists are paged: tasks_query and agent_runs_query return next_cursor; geo_ listings take pagination {limit, offset} and report info.total_rows.`;

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

export function buildServer(upstreams: Upstreams, options: ServerOptions = {}): Server {
  const server = new Server(
    { name: SERVER_NAME, version: SERVER_VERSION },
    {
      capabilities: { tools: { listChanged: false }, logging: {} },
      instructions: INSTRUCTIONS,
      jsonSchemaValidator: sharedValidator,
    },
  );
  const sessionLog = new SessionLog();
  // Replaces the SDK's own handler: the level lives with this session's log, which filters by it.
  server.setRequestHandler(SetLevelRequestSchema, (request) => {
    sessionLog.setClientLevel(request.params.level);
    return {};
  });
  registerTools(server, upstreams, options.tools ?? ALL_TOOL_NAMES, sessionLog);
  return server;
}
