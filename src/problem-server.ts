// The server stdio serves while the settings cannot be used (src/settings-problems.ts says what is
// wrong): loaded only then.
import { Server } from "@modelcontextprotocol/server";
import { errorResult } from "./tools/errors.js";
import { TOOL_LIST } from "./tools/register.js";
import { SERVER_NAME, SERVER_VERSION } from "./version.js";

/**
 * The server stdio serves while the settings cannot be used: it lists every tool, so the assistant
 * calls them, and each call is an isError result saying what is wrong; the instructions say it too.
 */
export function buildProblemServer(text: string): Server {
  const server = new Server(
    { name: SERVER_NAME, version: SERVER_VERSION },
    {
      capabilities: { tools: { listChanged: false } },
      instructions: `${text}\nEvery tool answers with this until then: tell the user.`,
    },
  );
  server.setRequestHandler("tools/list", () => TOOL_LIST);
  server.setRequestHandler("tools/call", (request) => errorResult(`${request.params.name}: ${text}`));
  return server;
}
