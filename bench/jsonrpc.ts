// Lean JSON-RPC drivers: just enough MCP to call a server over streamable HTTP (an undici pool) or over
// a child's stdio pipes, so the figures measure the server rather than a client library.
import { type ChildProcess, spawn } from "node:child_process";
import { Pool } from "undici";

export const PROTOCOL_VERSION = "2025-06-18";

export interface JsonRpcAnswer {
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

/**
 * Requests answer with the raw JSON text of the response: the load loops only look at its start, so
 * the driver does not parse 48 KB of tools/list per call while it shares the CPUs with the server.
 */
export interface McpDriver {
  request(method: string, params?: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

export const decode = (raw: string) => JSON.parse(raw) as JsonRpcAnswer;

/** A result that is not a tool error; the SDK writes `result` first in every response it sends. */
export const succeeded = (raw: string) => raw.startsWith('{"result":') && !raw.includes('"isError":true');

const INITIALIZE_PARAMS = {
  protocolVersion: PROTOCOL_VERSION,
  capabilities: {},
  clientInfo: { name: "bench", version: "1.0.0" },
};

/** The message carried by an SSE stream (its one `data:` line) or a plain JSON body. */
export function messageText(contentType: string, text: string): string {
  if (!contentType.startsWith("text/event-stream")) return text;
  const start = text.indexOf("data: ");
  if (start < 0) throw new Error(`no data line in SSE answer: ${text.slice(0, 200)}`);
  const end = text.indexOf("\n", start);
  return text.slice(start + 6, end < 0 ? undefined : end);
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

  private async post(message: Record<string, unknown>): Promise<string | undefined> {
    const { statusCode, headers, body } = await this.pool.request({
      path: this.path,
      method: "POST",
      headers: this.headers,
      body: JSON.stringify(message),
    });
    const text = await body.text();
    if (statusCode === 202) return undefined;
    if (statusCode !== 200) throw new Error(`${String(message.method)} answered ${statusCode}: ${text}`);
    return messageText(String(headers["content-type"] ?? ""), text);
  }

  async request(method: string, params?: Record<string, unknown>): Promise<string> {
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

/**
 * The id of a response line: read from its end, where the SDK and this server write it for results
 * (no scan of a 48 KB line), else found by parsing the line.
 */
function idOf(line: string): number | undefined {
  if (line.endsWith("}")) {
    const key = line.lastIndexOf('"id":');
    const id = key < 0 ? Number.NaN : Number(line.slice(key + 5, -1));
    if (Number.isInteger(id)) return id;
  }
  const { id } = JSON.parse(line) as { id?: unknown };
  return typeof id === "number" ? id : undefined;
}

/** Newline-delimited JSON-RPC over a spawned server's stdin/stdout. */
export class StdioMcpDriver implements McpDriver {
  private nextId = 1;
  private readonly pending = new Map<number, (answer: string) => void>();
  private buffered = "";
  readonly exited: Promise<number | null>;

  constructor(readonly child: ChildProcess) {
    child.stdout?.setEncoding("utf8");
    child.stdout?.on("data", (chunk: string) => this.receive(chunk));
    this.exited = new Promise((resolve) => child.once("exit", (code) => resolve(code)));
  }

  static spawn(args: string[], env: NodeJS.ProcessEnv): StdioMcpDriver {
    return new StdioMcpDriver(spawn(process.execPath, args, { env, stdio: ["pipe", "pipe", "ignore"] }));
  }

  /** Only the new chunk is searched for newlines; a line's start waits in `buffered`. */
  private receive(chunk: string): void {
    let start = 0;
    let newline = chunk.indexOf("\n");
    while (newline >= 0) {
      const line = this.buffered + chunk.slice(start, newline);
      this.buffered = "";
      const id = line ? idOf(line) : undefined;
      if (id !== undefined) {
        this.pending.get(id)?.(line);
        this.pending.delete(id);
      }
      start = newline + 1;
      newline = chunk.indexOf("\n", start);
    }
    this.buffered += chunk.slice(start);
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
  async initialize(first = "tools/list"): Promise<string> {
    const initialized = this.request("initialize", INITIALIZE_PARAMS);
    this.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    const answer = await this.request(first);
    if (!succeeded(await initialized)) throw new Error("initialize failed");
    return answer;
  }

  request(method: string, params?: Record<string, unknown>): Promise<string> {
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
