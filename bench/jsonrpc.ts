// Lean JSON-RPC drivers: just enough MCP to call a server over streamable HTTP (an undici pool) or over
// a child's stdio (stdio-driver.ts), so the figures measure the server rather than a client library.
import { type Dispatcher, Pool } from "undici";

export const PROTOCOL_VERSION = "2025-06-18";
/** The stateless revision: no initialize, no session; every request carries the envelope below. */
export const MODERN_PROTOCOL_VERSION = "2026-07-28";

/** `legacy`: the 2025 revisions, opened with initialize; `modern`: 2026-07-28, per-request envelope. */
export type Era = "legacy" | "modern";

/**
 * The per-request `_meta` envelope of 2026-07-28 (the SDK's PROTOCOL_VERSION_META_KEY,
 * CLIENT_CAPABILITIES_META_KEY and CLIENT_INFO_META_KEY; test/bench/driver.test.ts holds them equal).
 * Version and capabilities are required, client info recommended.
 */
export const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": MODERN_PROTOCOL_VERSION,
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1.0.0" },
} as const;

/** `params` with the modern envelope added to its `_meta` (params of its own kept). */
export function withModernMeta(params: Record<string, unknown> | undefined): Record<string, unknown> {
  const own = params?._meta as Record<string, unknown> | undefined;
  return { ...params, _meta: own ? { ...MODERN_META, ...own } : MODERN_META };
}

/** Body fields that 2026-07-28 mirrors in the Mcp-Name header, by method. */
const NAME_FIELD: Record<string, string> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
};

/**
 * The HTTP headers a 2026-07-28 request carries besides content type and Accept: MCP-Protocol-Version
 * and Mcp-Method always, Mcp-Name for the methods that name a tool, prompt or resource. Non-ASCII
 * names would need the revision's base64 form; the bench names none.
 */
export function modernHeaders(method: string, params: Record<string, unknown> | undefined) {
  const headers: Record<string, string> = {
    "mcp-protocol-version": MODERN_PROTOCOL_VERSION,
    "mcp-method": method,
  };
  const field = NAME_FIELD[method];
  const name = field === undefined ? undefined : params?.[field];
  if (typeof name === "string") headers["mcp-name"] = name;
  return headers;
}

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

/**
 * Why a server does not serve 2026-07-28 through `driver` (a modern one), or undefined when it does:
 * its `server/discover` answer must list the revision among supportedVersions.
 */
export async function modernRefusal(driver: McpDriver, timeoutMs = 5_000): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const silence = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer to server/discover in ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    const answer = await Promise.race([
      driver.request("server/discover", undefined, { whole: true }),
      silence,
    ]);
    const { result, error } = decode(answer);
    const versions = (result as { supportedVersions?: unknown } | undefined)?.supportedVersions;
    if (Array.isArray(versions) && versions.includes(MODERN_PROTOCOL_VERSION)) return undefined;
    return error ? `server/discover: ${error.code} ${error.message}` : `server/discover: ${excerpt(answer)}`;
  } catch (error) {
    return error instanceof Error ? error.message.slice(0, 300) : String(error);
  } finally {
    clearTimeout(timer);
  }
}

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
  /** Modern era: the headers of each request, by method and Mcp-Name, made once. */
  private readonly modernHeaders = new Map<string, Record<string, string>>();
  /** Session id the server gave at initialize; undefined when it runs without sessions. */
  sessionId: string | undefined;

  private constructor(
    private readonly pool: Pool,
    private readonly path: string,
    readonly era: Era,
  ) {}

  /**
   * Up to `connections` sockets. Legacy: opens a session (or, on a stateless server, just
   * initializes). Modern: nothing to open; every request carries the envelope and its headers.
   */
  static async connect(
    url: string,
    connections = 64,
    pool?: Pool,
    era: Era = "legacy",
    /** Sent with every request (credentials: X-API-KEY, or an access token). */
    extraHeaders: Record<string, string> = {},
  ): Promise<HttpMcpDriver> {
    const { origin, pathname } = new URL(url);
    const driver = new HttpMcpDriver(pool ?? new Pool(origin, { connections, pipelining: 1 }), pathname, era);
    driver.headers = { ...driver.headers, ...extraHeaders };
    if (era === "legacy") await driver.initialize();
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

  private async post(
    message: Record<string, unknown>,
    requestHeaders = this.headers,
  ): Promise<Buffer | undefined> {
    const { statusCode, headers, body } = await exchange(this.pool, {
      path: this.path,
      method: "POST",
      headers: requestHeaders,
      body: JSON.stringify(message),
    });
    if (statusCode === 202) return undefined;
    if (statusCode !== 200) {
      throw new Error(`${String(message.method)} answered ${statusCode}: ${body.toString("utf8")}`);
    }
    return messageBytes(String(headers["content-type"] ?? ""), body);
  }

  private headersFor(method: string, params: Record<string, unknown> | undefined): Record<string, string> {
    const extra = modernHeaders(method, params);
    const key = `${method}\n${extra["mcp-name"] ?? ""}`;
    let headers = this.modernHeaders.get(key);
    if (!headers) {
      headers = { ...this.headers, ...extra };
      this.modernHeaders.set(key, headers);
    }
    return headers;
  }

  async request(method: string, params?: Record<string, unknown>, options?: RequestOptions): Promise<Answer> {
    const id = this.nextId++;
    const bytes =
      this.era === "legacy"
        ? await this.post({ jsonrpc: "2.0", id, method, params })
        : await this.post(
            { jsonrpc: "2.0", id, method, params: withModernMeta(params) },
            this.headersFor(method, params),
          );
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
