// Streamable HTTP on /mcp (one server and transport per session), GET /healthz for liveness.
import { randomUUID } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest, isJSONRPCRequest } from "@modelcontextprotocol/sdk/types.js";
import { ConfigError } from "../config.js";
import { log } from "../log.js";
import { SERVER_NAME, SERVER_VERSION } from "../version.js";
import type { RunningTransport } from "./stdio.js";

export interface HttpOptions {
  host: string;
  port: number;
  maxBodyBytes?: number;
}

export interface RunningHttp extends RunningTransport {
  url: string;
  port: number;
  sessionCount(): number;
}

const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

class HttpProblem extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code?: number,
  ) {
    super(message);
  }
}

function sendJsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  if (res.headersSent) return;
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }));
}

async function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw new HttpProblem(413, `Request body exceeds ${maxBytes} bytes`);
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw new HttpProblem(400, "Parse error: the body is not valid JSON");
  }
}

/**
 * A client that drops the connection carrying its pending calls will never read their answers: cancel
 * them as if it had sent notifications/cancelled, so their upstream requests stop at once.
 */
function cancelOnDisconnect(res: ServerResponse, transport: StreamableHTTPServerTransport, body: unknown) {
  const ids = (Array.isArray(body) ? body : [body]).filter(isJSONRPCRequest).map((message) => message.id);
  if (ids.length === 0) return;
  res.once("close", () => {
    if (res.writableFinished) return;
    for (const requestId of ids) {
      const params = { requestId, reason: "the client closed the connection" };
      transport.onmessage?.({ jsonrpc: "2.0", method: "notifications/cancelled", params });
    }
  });
}

/** Builds a session's server from its initialize request's headers; throws ConfigError on a bad header. */
export type SessionServerFactory = (headers: IncomingHttpHeaders) => Server;

/** The session's server, or a 400 naming the header at fault (X-MCP-Toolsets, X-MCP-Tools, X-MCP-Read-Only). */
function serverForRequest(createMcpServer: SessionServerFactory, req: IncomingMessage): Server {
  try {
    return createMcpServer(req.headers);
  } catch (error) {
    if (error instanceof ConfigError) throw new HttpProblem(400, `Bad Request: ${error.message}`, -32600);
    throw error;
  }
}

export async function serveHttp(
  createMcpServer: SessionServerFactory,
  options: HttpOptions,
): Promise<RunningHttp> {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const sessions = new Map<string, StreamableHTTPServerTransport>();

  async function startSession(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const server = serverForRequest(createMcpServer, req);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => {
        sessions.set(id, transport);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
      void server.close();
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  async function handleMcp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const sessionHeader = req.headers["mcp-session-id"];
    const sessionId = Array.isArray(sessionHeader) ? sessionHeader[0] : sessionHeader;
    const body = req.method === "POST" ? await readJsonBody(req, maxBodyBytes) : undefined;
    if (sessionId !== undefined) {
      const transport = sessions.get(sessionId);
      if (!transport) return sendJsonRpcError(res, 404, -32001, "Session not found: initialize a new one");
      cancelOnDisconnect(res, transport, body);
      return transport.handleRequest(req, res, body);
    }
    if (req.method === "POST" && isInitializeRequest(body)) return startSession(req, res, body);
    sendJsonRpcError(res, 400, -32000, "Bad Request: no valid Mcp-Session-Id; send initialize first");
  }

  const httpServer = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (path === "/healthz" && req.method === "GET") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ status: "ok", name: SERVER_NAME, version: SERVER_VERSION }));
      return;
    }
    if (path !== "/mcp") {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: "Not found: the MCP endpoint is /mcp" }));
      return;
    }
    handleMcp(req, res).catch((error: unknown) => {
      if (error instanceof HttpProblem) {
        sendJsonRpcError(
          res,
          error.status,
          error.code ?? (error.status === 400 ? -32700 : -32600),
          error.message,
        );
        if (error.status === 413) req.resume();
        return;
      }
      log("error", "MCP request failed", { error: error instanceof Error ? error.message : String(error) });
      sendJsonRpcError(res, 500, -32603, "Internal error");
    });
  });

  await new Promise<void>((resolve, reject) => {
    httpServer.once("error", reject);
    httpServer.listen(options.port, options.host, () => resolve());
  });
  const { port } = httpServer.address() as AddressInfo;
  const host = options.host.includes(":") ? `[${options.host}]` : options.host;

  let markClosed!: () => void;
  const closed = new Promise<void>((resolve) => {
    markClosed = resolve;
  });
  async function close(): Promise<void> {
    await Promise.all([...sessions.values()].map((transport) => transport.close()));
    await new Promise<void>((resolve) => {
      httpServer.close(() => resolve());
      httpServer.closeAllConnections();
    });
    markClosed();
  }
  return { url: `http://${host}:${port}/mcp`, port, closed, close, sessionCount: () => sessions.size };
}
