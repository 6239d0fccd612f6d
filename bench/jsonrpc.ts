// Lean JSON-RPC drivers: just enough MCP to call a server over streamable HTTP (an undici pool) or over
// a child's stdio pipes, so the figures measure the server rather than a client library.
import { type ChildProcess, spawn } from "node:child_process";
import { type Dispatcher, Pool } from "undici";

export const PROTOCOL_VERSION = "2025-06-18";

export interface JsonRpcAnswer {
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

/**
 * Requests answer with the bytes of the response as they arrived. The load loops only look at a few of
 * them, so the driver neither parses nor decodes 48 KB of tools/list per call while it shares the CPUs
 * with the server: decoding it to a string cost more than the server spent answering it.
 */
export interface McpDriver {
  request(method: string, params?: Record<string, unknown>): Promise<Buffer>;
  close(): Promise<void>;
}

export const decode = (raw: Buffer) => JSON.parse(raw.toString("utf8")) as JsonRpcAnswer;

/** The start of an answer, for error messages. */
export const excerpt = (raw: Buffer) => raw.toString("utf8", 0, 500);

export const startsWith = (raw: Buffer, prefix: Buffer) =>
  raw.length >= prefix.length && raw.compare(prefix, 0, prefix.length, 0, prefix.length) === 0;

const RESULT_START = Buffer.from('{"result":');
const TOOL_ERROR = Buffer.from('"isError":true');

/** A result that is not a tool error; the SDK writes `result` first in every response it sends. */
export const succeeded = (raw: Buffer) => startsWith(raw, RESULT_START) && !raw.includes(TOOL_ERROR);

const INITIALIZE_PARAMS = {
  protocolVersion: PROTOCOL_VERSION,
  capabilities: {},
  clientInfo: { name: "bench", version: "1.0.0" },
};

const DATA_FIELD = Buffer.from("data: ");
const NEWLINE = 0x0a;

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

  async request(method: string, params?: Record<string, unknown>): Promise<Buffer> {
    const answer = await this.post({ jsonrpc: "2.0", id: this.nextId++, method, params });
    if (!answer) throw new Error(`${method} got no answer`);
    return answer;
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

const ID_KEY = Buffer.from('"id":');
const CLOSING_BRACE = 0x7d;

/**
 * The id of a response line: read from its end, where the SDK and this server write it for results
 * (no scan of a 48 KB line), else found by parsing the line.
 */
function idOf(line: Buffer): number | undefined {
  if (line[line.length - 1] === CLOSING_BRACE) {
    const key = line.lastIndexOf(ID_KEY);
    const id = key < 0 ? Number.NaN : Number(line.toString("latin1", key + ID_KEY.length, line.length - 1));
    if (Number.isInteger(id)) return id;
  }
  const { id } = JSON.parse(line.toString("utf8")) as { id?: unknown };
  return typeof id === "number" ? id : undefined;
}

/** Newline-delimited JSON-RPC over a spawned server's stdin/stdout. */
export class StdioMcpDriver implements McpDriver {
  private nextId = 1;
  private readonly pending = new Map<number, (answer: Buffer) => void>();
  /** The start of a line whose newline is in a later chunk. */
  private partial: Buffer[] = [];
  readonly exited: Promise<number | null>;

  constructor(readonly child: ChildProcess) {
    child.stdout?.on("data", (chunk: Buffer) => this.receive(chunk));
    this.exited = new Promise((resolve) => child.once("exit", (code) => resolve(code)));
  }

  static spawn(args: string[], env: NodeJS.ProcessEnv): StdioMcpDriver {
    return new StdioMcpDriver(spawn(process.execPath, args, { env, stdio: ["pipe", "pipe", "ignore"] }));
  }

  /** Only the new chunk is searched for newlines; a line is copied only when it spans chunks. */
  private receive(chunk: Buffer): void {
    let start = 0;
    let newline = chunk.indexOf(NEWLINE);
    while (newline >= 0) {
      const piece = chunk.subarray(start, newline);
      const line = this.partial.length === 0 ? piece : Buffer.concat([...this.partial, piece]);
      this.partial = [];
      const id = line.length > 0 ? idOf(line) : undefined;
      if (id !== undefined) {
        this.pending.get(id)?.(line);
        this.pending.delete(id);
      }
      start = newline + 1;
      newline = chunk.indexOf(NEWLINE, start);
    }
    if (start < chunk.length) this.partial.push(chunk.subarray(start));
  }

  /**
   * Requests made in one turn (the next calls of every answer that arrived together) leave in one
   * pipe write, as a client multiplexing calls on one pipe would send them, not a system call each.
   */
  private send(message: Record<string, unknown>): void {
    const stdin = this.child.stdin;
    if (!stdin) return;
    if (stdin.writableCorked === 0) {
      stdin.cork();
      process.nextTick(() => stdin.uncork());
    }
    stdin.write(`${JSON.stringify(message)}\n`);
  }

  /**
   * initialize, initialized and `first` written at once, as a client launching us does; resolves
   * with the answer to `first`.
   */
  async initialize(first = "tools/list"): Promise<Buffer> {
    const initialized = this.request("initialize", INITIALIZE_PARAMS);
    this.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    const answer = await this.request(first);
    if (!succeeded(await initialized)) throw new Error("initialize failed");
    return answer;
  }

  request(method: string, params?: Record<string, unknown>): Promise<Buffer> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.send({ jsonrpc: "2.0", id, method, params });
    });
  }

  async close(): Promise<void> {
    this.child.stdin?.end();
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 3_000);
    await this.exited;
    clearTimeout(timer);
  }
}
