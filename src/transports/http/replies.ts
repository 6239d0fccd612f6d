// Answers the HTTP layer gives itself, before or instead of the MCP transport: always JSON, and a
// JSON-RPC error body on /mcp so that an MCP client can show what went wrong.
import type { OutgoingHttpHeaders, ServerResponse } from "node:http";
import { ProtocolErrorCode } from "@modelcontextprotocol/server";

/**
 * The JSON-RPC codes of the HTTP layer's own refusals: the SDK's, and the two implementation-defined
 * server errors the SDK's streamable HTTP transports use for a refused request and an unknown session.
 */
export const RpcCode = {
  parseError: ProtocolErrorCode.ParseError,
  invalidRequest: ProtocolErrorCode.InvalidRequest,
  serverError: -32000,
  sessionNotFound: -32001,
  internalError: ProtocolErrorCode.InternalError,
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
  const text = JSON.stringify(body);
  const length = Buffer.byteLength(text);
  res.writeHead(status, { ...headers, "content-type": "application/json", "content-length": length });
  res.end(text);
}

export function sendProblem(res: ServerResponse, problem: HttpProblem): void {
  const { status, code, message, headers } = problem;
  sendJson(res, status, { jsonrpc: "2.0", error: { code, message }, id: null }, headers);
}
