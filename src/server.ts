// Builds the MCP server: the same factory serves stdio, stateful HTTP and stateless HTTP.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Upstreams } from "./clients/index.js";
import { registerTools } from "./tools/register.js";
import { SERVER_NAME, SERVER_VERSION } from "./version.js";

const INSTRUCTIONS = `Tools for an agent workspace (tasks, comments, agent runs, attachments) and for visibility analytics (geo_ tools).
Start with whoami (workspace project ids) or geo_projects (analytics project ids) unless a default project is configured.
Lists are paged: tasks_query and agent_runs_query return next_cursor; geo_ listings take pagination {limit, offset} and report info.total_rows.`;

export function buildServer(upstreams: Upstreams): Server {
  const server = new Server(
    { name: SERVER_NAME, version: SERVER_VERSION },
    { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS },
  );
  registerTools(server, upstreams);
  return server;
}
