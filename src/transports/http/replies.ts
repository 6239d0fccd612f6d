// Answers the HTTP layer gives itself, before or instead of the MCP transport: always JSON, and a
// JSON-RPC error body on /mcp so that an MCP client can show what went wrong.
import type { OutgoingHttpHeaders, ServerResponse } from "node:http";

/** JSON-RPC error codes used by the streamable HTTP transport. */
export const RpcCode = {
  parseError: -32700,
  invalidRequest: -32600,
  serverError: -32000,
  sessionNotFound: -32001,
  internalError: -32603,
} as const;

/** A request refused before it reaches the MCP transport: the status, a JSON-RPC code and a message. */
export class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly headers: OutgoingHttpHeaders = {},
  ) {
    super(message);
  }
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: OutgoingHttpHeaders = {},
) {
  if (res.headersSent) return;
  res.writeHead(status, { ...headers, "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

export function sendProblem(res: ServerResponse, problem: HttpProblem): void {
  const { status, code, message, headers } = problem;
  sendJson(res, status, { jsonrpc: "2.0", error: { code, message }, id: null }, headers);
}
