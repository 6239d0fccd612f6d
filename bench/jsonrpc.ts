// Lean JSON-RPC drivers: just enough MCP to call a server over streamable HTTP (an undici pool) or over
// a child's stdio (stdio-driver.ts), so the figures measure the server rather than a client library.
import { type Dispatcher, Pool } from "undici";

export const PROTOCOL_VERSION = "2025-06-18";

export interface JsonRpcAnswer {
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

/**
 * What the load loops need of a response: its start and whether it is a tool error, found as its bytes
 * arrive (stdio) or in the body undici gathered (HTTP). Every byte is still read and searched, but a
 * 48 KB tools/list answer is neither kept, decoded nor parsed while the driver shares the CPUs with the
 * server: decoding it to a string cost the driver more than the server spent answering it.
 */
export interface Answer {
  /** Its first HEAD_BYTES bytes, decoded. */
  head: string;
  /** `"isError":true` occurs in it: a tool error. */
  toolError: boolean;
  /** The whole response, when it was asked for with `{ whole: true }`. */
  text?: string;
}

export const HEAD_BYTES = 512;
/** The marker of a tool error, `"isError":true`, as found from its rare `E` (see holdsToolError). */
const TOOL_ERROR_FROM_E = Buffer.from('Error":true');
const TOOL_ERROR_START = Buffer.from('"is');
/** Bytes a marker split across two reads can have on either side of the split. */
export const TOOL_ERROR_EDGE = TOOL_ERROR_START.length + TOOL_ERROR_FROM_E.length - 1;

/**
 * Whether `bytes` hold `"isError":true`. A search for the whole marker stops at every `"` of the JSON
 * (15 µs for a 48 KB tool list); searching from its `E`, rare in JSON, and checking the three bytes
 * before takes a tenth of that.
 */
export function holdsToolError(bytes: Buffer): boolean {
  let at = bytes.indexOf(TOOL_ERROR_FROM_E);
  while (at >= 0) {
    const start = at - TOOL_ERROR_START.length;
    if (start >= 0 && bytes.compare(TOOL_ERROR_START, 0, TOOL_ERROR_START.length, start, at) === 0) {
      return true;
    }
    at = bytes.indexOf(TOOL_ERROR_FROM_E, at + 1);
  }
  return false;
}

export interface RequestOptions {
  /** Keep the whole response (sizes, a decoded answer), not only what the checks need. */
  whole?: boolean;
}

export interface McpDriver {
  request(method: string, params?: Record<string, unknown>, options?: RequestOptions): Promise<Answer>;
  close(): Promise<void>;
}

export function decode(answer: Answer): JsonRpcAnswer {
  if (answer.text === undefined) {
    throw new Error("decode needs the whole answer: request it with { whole: true }");
  }
  return JSON.parse(answer.text) as JsonRpcAnswer;
}

/** The start of an answer, for error messages. */
export const excerpt = (answer: Answer) => answer.head;

/** A result that is not a tool error; the SDK writes `result` first in every response it sends. */
export const succeeded = (answer: Answer) => answer.head.startsWith('{"result":') && !answer.toolError;

export const INITIALIZE_PARAMS = {
  protocolVersion: PROTOCOL_VERSION,
  capabilities: {},
  clientInfo: { name: "bench", version: "1.0.0" },
};

const DATA_FIELD = Buffer.from("data: ");
export const NEWLINE = 0x0a;

/** The message carried by an SSE stream (its one `data:` line) or a plain JSON body. */
export function messageBytes(contentType: string, body: Buffer): Buffer {
  if (!contentType.startsWith("text/event-stream")) return body;
  const start = body.indexOf(DATA_FIELD);
  if (start < 0) throw new Error(`no data line in SSE answer: ${body.toString("utf8", 0, 200)}`);
  const end = body.indexOf(NEWLINE, start);
  return body.subarray(start + DATA_FIELD.length, end < 0 ? undefined : end);
}

export interface Exchange {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/**
 * Gathers one answer for undici's dispatch(): chunks joined once at the end, with none of the body
 * stream, request object and promise chain that `pool.request` builds per call. The limit and the
 * MCP paths both read their answers this way.
 */
class ExchangeHandler implements Dispatcher.DispatchHandler {
  private statusCode = 0;
  private headers: Exchange["headers"] = {};
  private readonly chunks: Buffer[] = [];

  constructor(
    private readonly resolve: (exchange: Exchange) => void,
    private readonly reject: (error: Error) => void,
  ) {}

  /** Its presence tells undici that this handler speaks the current handler interface. */
  onRequestStart(): void {}

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Exchange["headers"],
  ) {
    this.statusCode = statusCode;
    this.headers = headers;
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.chunks.push(chunk);
  }

  onResponseEnd(): void {
    const { chunks } = this;
    const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    this.resolve({ statusCode: this.statusCode, headers: this.headers, body });
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.reject(error);
  }
}

/** One request through `dispatcher`, answered with its status, headers and whole body as bytes. */
export function exchange(dispatcher: Dispatcher, options: Dispatcher.DispatchOptions): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    dispatcher.dispatch(options, new ExchangeHandler(resolve, reject));
  });
}

export class HttpMcpDriver implements McpDriver {
  private nextId = 1;
  private headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  };
  /** Session id the server gave at initialize; undefined when it runs without sessions. */
  sessionId: string | undefined;

  private constructor(
    private readonly pool: Pool,
    private readonly path: string,
  ) {}

  /** Opens a session (or, on a stateless server, just initializes) with up to `connections` sockets. */
  static async connect(url: string, connections = 64, pool?: Pool): Promise<HttpMcpDriver> {
    const { origin, pathname } = new URL(url);
    const driver = new HttpMcpDriver(pool ?? new Pool(origin, { connections, pipelining: 1 }), pathname);
    await driver.initialize();
    return driver;
  }

  private async initialize(): Promise<void> {
    const { statusCode, headers, body } = await this.pool.request({
      path: this.path,
      method: "POST",
      headers: this.headers,
      body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: INITIALIZE_PARAMS }),
    });
    const text = await body.text();
    if (statusCode !== 200) throw new Error(`initialize answered ${statusCode}: ${text.slice(0, 200)}`);
    const session = headers["mcp-session-id"];
    this.sessionId = Array.isArray(session) ? session[0] : session;
    this.headers = {
      ...this.headers,
      "mcp-protocol-version": PROTOCOL_VERSION,
      ...(this.sessionId ? { "mcp-session-id": this.sessionId } : {}),
    };
    await this.post({ jsonrpc: "2.0", method: "notifications/initialized" });
  }

  private async post(message: Record<string, unknown>): Promise<Buffer | undefined> {
    const { statusCode, headers, body } = await exchange(this.pool, {
      path: this.path,
      method: "POST",
      headers: this.headers,
      body: JSON.stringify(message),
    });
    if (statusCode === 202) return undefined;
    if (statusCode !== 200) {
      throw new Error(`${String(message.method)} answered ${statusCode}: ${body.toString("utf8")}`);
    }
    return messageBytes(String(headers["content-type"] ?? ""), body);
  }

  async request(method: string, params?: Record<string, unknown>, options?: RequestOptions): Promise<Answer> {
    const bytes = await this.post({ jsonrpc: "2.0", id: this.nextId++, method, params });
    if (!bytes) throw new Error(`${method} got no answer`);
    return {
      head: bytes.toString("utf8", 0, HEAD_BYTES),
      toolError: holdsToolError(bytes),
      text: options?.whole ? bytes.toString("utf8") : undefined,
    };
  }

  /** Ends the session (DELETE) when there is one; the pool stays open (memory.ts shares one). */
  async endSession(): Promise<void> {
    if (!this.sessionId) return;
    const { body } = await this.pool.request({ path: this.path, method: "DELETE", headers: this.headers });
    await body.dump();
  }

  async close(): Promise<void> {
    await this.endSession();
    await this.pool.close();
  }
}
