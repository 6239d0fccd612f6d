// The streamable HTTP transport on node's own request and response objects. It behaves as the SDK's
// StreamableHTTPServerTransport does without an event store (same status codes, messages, SSE framing),
// but skips what made that one cost about half of an HTTP call: the conversion to web-standard Request,
// Response and stream objects and back (@hono/node-server), and a socket write per SSE chunk. An answer
// sent at once goes out in one write with its headers; tools/list is written from its prepared text.
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import type { Transport, TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  isInitializeRequest,
  type JSONRPCMessage,
  type MessageExtraInfo,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";
import { type CheckedMessage, checkMessage } from "../../jsonrpc.js";
import { serializeLine } from "../../prepared.js";
import { SUPPORTED_PROTOCOL_VERSIONS } from "../../session.js";
import { HttpProblem, RpcCode } from "./replies.js";

/** The SDK's bound on a JSON-RPC batch. */
const MAX_BATCH_SIZE = 100;
/** A comment line on every open event stream this often, so that proxies do not time it out. */
const KEEP_ALIVE_MS = 15_000;

const SSE_HEADERS: OutgoingHttpHeaders = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache, no-transform",
  connection: "keep-alive",
  "x-accel-buffering": "no",
};

/** One POST's event stream: the requests it carries and the answers still owed on it. */
interface RequestStream {
  res: ServerResponse;
  unanswered: Set<RequestId>;
  keepAlive?: NodeJS.Timeout;
}

export interface NodeTransportOptions {
  /** Stateful when given: initialize makes a session id with it. */
  sessionIdGenerator?: () => string;
  onsessioninitialized?: (sessionId: string) => void;
}

const sseEvent = (message: JSONRPCMessage) => `event: message\ndata: ${serializeLine(message)}\n`;
/** Of a message this server sends (well formed by construction): a result or an error. */
const isResponse = (message: JSONRPCMessage) => "result" in message || "error" in message;

/** An initialize request; the SDK's full check runs only on what claims to be one. */
const isInitialize = ({ kind, message }: CheckedMessage) =>
  kind === "request" &&
  (message as { method: string }).method === "initialize" &&
  isInitializeRequest(message);

export class NodeStreamableTransport implements Transport {
  sessionId?: string;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;

  private readonly streams = new Map<RequestId, RequestStream>();
  private standalone?: RequestStream;
  private initialized = false;
  private closed = false;
  private headers?: OutgoingHttpHeaders;

  constructor(private readonly options: NodeTransportOptions = {}) {}

  async start(): Promise<void> {}

  /** Answers one request to /mcp; `body` is the parsed POST body. Refusals throw an HttpProblem. */
  async handleRequest(req: IncomingMessage, res: ServerResponse, body?: unknown): Promise<void> {
    if (this.closed) throw sessionNotFound();
    if (req.method === "POST") return this.handlePost(req, res, body);
    if (req.method === "GET") return this.handleGet(req, res);
    this.checkSession(req);
    res.writeHead(200).end();
    await this.close();
  }

  private handlePost(req: IncomingMessage, res: ServerResponse, body: unknown): void {
    if (Array.isArray(body) && body.length > MAX_BATCH_SIZE) {
      throw new HttpProblem(
        400,
        RpcCode.invalidRequest,
        `Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages`,
      );
    }
    const checked = checkMessages(body);
    if (checked.some(isInitialize)) this.initialize(checked);
    else this.checkSession(req);

    const extra: MessageExtraInfo = { requestInfo: { headers: req.headers } };
    const messages = checked.map((item) => item.message);
    const requestIds = checked
      .filter((item) => item.kind === "request")
      .map((item) => (item.message as { id: RequestId }).id);
    if (requestIds.length === 0) {
      res.writeHead(202).end();
      for (const message of messages) this.onmessage?.(message, extra);
      return;
    }
    const stream: RequestStream = { res, unanswered: new Set(requestIds) };
    for (const id of requestIds) this.streams.set(id, stream);
    res.once("close", () => this.streamClosed(stream));
    for (const message of messages) this.onmessage?.(message, extra);
    if (stream.unanswered.size > 0 && !res.writableEnded) this.armKeepAlive(stream);
  }

  /**
   * A client that drops the connection carrying its pending calls will never read their answers: they
   * are cancelled as if it had sent notifications/cancelled, so their upstream requests stop at once.
   */
  private streamClosed(stream: RequestStream): void {
    const dropped = stream.res.writableFinished ? [] : [...stream.unanswered];
    this.endStream(stream);
    for (const requestId of dropped) {
      const params = { requestId, reason: "the client closed the connection" };
      this.onmessage?.({ jsonrpc: "2.0", method: "notifications/cancelled", params });
    }
  }

  private handleGet(req: IncomingMessage, res: ServerResponse): void {
    if (!req.headers.accept?.includes("text/event-stream")) {
      throw new HttpProblem(406, RpcCode.serverError, "Not Acceptable: Client must accept text/event-stream");
    }
    this.checkSession(req);
    if (this.standalone) {
      throw new HttpProblem(409, RpcCode.serverError, "Conflict: Only one SSE stream is allowed per session");
    }
    const stream: RequestStream = { res, unanswered: new Set() };
    this.standalone = stream;
    res.writeHead(200, this.sseHeaders());
    res.flushHeaders();
    res.once("close", () => this.endStream(stream));
    this.armKeepAlive(stream);
  }

  private initialize(messages: CheckedMessage[]): void {
    if (this.initialized && this.sessionId !== undefined) {
      throw new HttpProblem(400, RpcCode.invalidRequest, "Invalid Request: Server already initialized");
    }
    if (messages.length > 1) {
      throw new HttpProblem(
        400,
        RpcCode.invalidRequest,
        "Invalid Request: Only one initialization request is allowed",
      );
    }
    this.sessionId = this.options.sessionIdGenerator?.();
    this.initialized = true;
    if (this.sessionId) this.options.onsessioninitialized?.(this.sessionId);
  }

  /** The session and protocol-version checks every request but initialize passes. */
  private checkSession(req: IncomingMessage): void {
    if (this.options.sessionIdGenerator) {
      if (!this.initialized) {
        throw new HttpProblem(400, RpcCode.serverError, "Bad Request: Server not initialized");
      }
      const header = req.headers["mcp-session-id"];
      if (!header) {
        throw new HttpProblem(400, RpcCode.serverError, "Bad Request: Mcp-Session-Id header is required");
      }
      if (header !== this.sessionId) throw sessionNotFound();
    }
    const version = req.headers["mcp-protocol-version"];
    if (typeof version === "string" && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      const supported = SUPPORTED_PROTOCOL_VERSIONS.join(", ");
      throw new HttpProblem(
        400,
        RpcCode.serverError,
        `Bad Request: Unsupported protocol version: ${version} (supported versions: ${supported})`,
      );
    }
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const response = isResponse(message);
    const requestId = response ? (message as { id: RequestId }).id : options?.relatedRequestId;
    if (requestId === undefined) {
      if (response) {
        throw new Error(
          "Cannot send a response on a standalone SSE stream unless resuming a previous client request",
        );
      }
      this.standalone?.res.write(sseEvent(message));
      return;
    }
    // A stream the client has closed is gone: what was meant for it is dropped.
    const stream = this.streams.get(requestId);
    if (!stream) return;
    const { res } = stream;
    const event = sseEvent(message);
    if (response) {
      stream.unanswered.delete(requestId);
      this.streams.delete(requestId);
    }
    if (!response || stream.unanswered.size > 0) {
      if (!res.headersSent) res.writeHead(200, this.sseHeaders());
      res.write(event);
      return;
    }
    // The last answer of a stream nothing was written to yet: with its length, headers and body are one
    // socket write instead of a chunked body's several.
    if (!res.headersSent) {
      res.writeHead(200, { ...this.sseHeaders(), "content-length": Buffer.byteLength(event) });
    }
    res.end(event);
    this.endStream(stream);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const open = new Set([...this.streams.values()]);
    if (this.standalone) open.add(this.standalone);
    for (const stream of open) {
      if (!stream.res.headersSent) stream.res.writeHead(200, this.sseHeaders());
      stream.res.end();
      this.endStream(stream);
    }
    this.onclose?.();
  }

  /** Made once: the session id is set at initialize, before any stream of the session is answered. */
  private sseHeaders(): OutgoingHttpHeaders {
    this.headers ??=
      this.sessionId === undefined ? SSE_HEADERS : { ...SSE_HEADERS, "mcp-session-id": this.sessionId };
    return this.headers;
  }

  private armKeepAlive(stream: RequestStream): void {
    stream.keepAlive = setInterval(() => {
      if (!stream.res.headersSent) stream.res.writeHead(200, this.sseHeaders());
      stream.res.write(": keepalive\n\n");
    }, KEEP_ALIVE_MS);
    stream.keepAlive.unref();
  }

  /** Forgets a stream that was answered, closed by the client, or ended by close(). */
  private endStream(stream: RequestStream): void {
    clearInterval(stream.keepAlive);
    for (const id of stream.unanswered) {
      if (this.streams.get(id) === stream) this.streams.delete(id);
    }
    stream.unanswered.clear();
    if (this.standalone === stream) this.standalone = undefined;
  }
}

function sessionNotFound(): HttpProblem {
  return new HttpProblem(404, RpcCode.sessionNotFound, "Session not found");
}

function checkMessages(body: unknown): CheckedMessage[] {
  const raw = Array.isArray(body) ? body : [body];
  const checked: CheckedMessage[] = [];
  for (const item of raw) {
    const message = checkMessage(item);
    if (!message) throw new HttpProblem(400, RpcCode.parseError, "Parse error: Invalid JSON-RPC message");
    checked.push(message);
  }
  return checked;
}
