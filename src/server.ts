// Builds the MCP server: the same factory serves stdio, stateful HTTP and stateless HTTP.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import type { Upstreams } from "./clients/index.js";
import { registerTools } from "./tools/register.js";
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

export function buildServer(upstreams: Upstreams): Server {
  const server = new Server(
    { name: SERVER_NAME, version: SERVER_VERSION },
    {
      capabilities: { tools: { listChanged: false } },
      instructions: INSTRUCTIONS,
      jsonSchemaValidator: sharedValidator,
    },
  );
  registerTools(server, upstreams);
  return server;
}
