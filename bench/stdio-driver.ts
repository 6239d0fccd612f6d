// The stdio driver: newline-delimited JSON-RPC to a spawned server. Its stdout is one end of a unix
// socket pair (as the pipes node creates for a child are), and the driver reads the other end with
// `onread` into one buffer it reuses: no buffer is allocated per read and no answer is copied whole.
// With a fresh buffer per read and each 48 KB tools/list line joined, the driver's own garbage
// collection made it, not the server, the bound on tools/list (about 70 µs of driver CPU per answer).
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { rmSync } from "node:fs";
import { connect, createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import {
  type Answer,
  type Era,
  HEAD_BYTES,
  holdsToolError,
  INITIALIZE_PARAMS,
  type McpDriver,
  NEWLINE,
  type RequestOptions,
  succeeded,
  TOOL_ERROR_EDGE,
  withModernMeta,
} from "./jsonrpc.js";

/** Reads land here; large enough for the answers of one turn at 16 in flight (16 × 11.8 KB). */
const READ_BUFFER_BYTES = 256 * 1024;
/** Enough of a line's end to hold `,"id":N}` and to find a tool-error marker split across reads. */
const TAIL_BYTES = 64;
const ID_KEY = '"id":';

let channels = 0;

/** The two ends of a socket pair: the child's stdout and the driver's reading end. */
export interface OutputChannel {
  childEnd: Socket;
  readEnd: Socket;
  /** Where the bytes read go; each chunk is valid only during the call. */
  onChunk: (chunk: Buffer) => void;
}

/** Opened before the spawn, so that cold start times the child alone. */
export async function openOutputChannel(): Promise<OutputChannel> {
  const path = `${tmpdir()}/mcp-bench-${process.pid}-${channels++}.sock`;
  rmSync(path, { force: true });
  const server = createServer();
  server.listen(path);
  await once(server, "listening");
  const buffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);
  const channel: OutputChannel = {} as OutputChannel;
  channel.onChunk = () => {};
  channel.readEnd = connect({
    path,
    onread: {
      buffer,
      callback: (bytes) => {
        channel.onChunk(buffer.subarray(0, bytes));
        return true;
      },
    },
  });
  [channel.childEnd] = (await once(server, "connection")) as [Socket];
  server.close();
  rmSync(path, { force: true });
  return channel;
}

/**
 * One line at a time, as its bytes arrive: its first HEAD_BYTES bytes, its last TAIL_BYTES, whether
 * it holds a tool-error marker, and, while a caller wants whole lines, all of it.
 */
export class LineScanner {
  private head: Buffer[] = [];
  private headBytes = 0;
  private tail = Buffer.alloc(0);
  private toolError = false;
  private whole: Buffer[] | undefined;
  private open = false;

  constructor(
    private readonly onLine: (head: Buffer, tail: Buffer, toolError: boolean, whole?: Buffer) => void,
    private readonly keepWhole: () => boolean,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline < 0 ? chunk.length : newline;
      if (end > start) this.take(chunk.subarray(start, end));
      if (newline < 0) return;
      this.finish();
      start = newline + 1;
    }
  }

  private take(piece: Buffer): void {
    if (!this.open) {
      this.open = true;
      this.whole = this.keepWhole() ? [] : undefined;
    }
    if (this.headBytes < HEAD_BYTES) {
      const part = Buffer.from(piece.subarray(0, HEAD_BYTES - this.headBytes));
      this.head.push(part);
      this.headBytes += part.length;
    }
    if (!this.toolError) {
      // The marker inside this piece, or across its border with the bytes before it.
      this.toolError =
        holdsToolError(piece) ||
        (this.tail.length > 0 &&
          holdsToolError(
            Buffer.concat([this.tail.subarray(-TOOL_ERROR_EDGE), piece.subarray(0, TOOL_ERROR_EDGE)]),
          ));
    }
    this.tail =
      piece.length >= TAIL_BYTES
        ? Buffer.from(piece.subarray(piece.length - TAIL_BYTES))
        : Buffer.concat([this.tail, piece]).subarray(-TAIL_BYTES);
    this.whole?.push(Buffer.from(piece));
  }

  private finish(): void {
    if (!this.open) return;
    const head = this.head.length === 1 ? this.head[0]! : Buffer.concat(this.head);
    const whole = this.whole && Buffer.concat(this.whole);
    this.onLine(head, this.tail, this.toolError, whole);
    this.head = [];
    this.headBytes = 0;
    this.tail = Buffer.alloc(0);
    this.toolError = false;
    this.whole = undefined;
    this.open = false;
  }
}

/**
 * The id of a response: read from its end, where the SDK and this server write it for results, else
 * parsed from the line when it is short enough to be all in `head`.
 */
function idOf(head: Buffer, tail: Buffer): number | undefined {
  const end = tail.toString("latin1");
  if (end.endsWith("}")) {
    const key = end.lastIndexOf(ID_KEY);
    const id = key < 0 ? Number.NaN : Number(end.slice(key + ID_KEY.length, -1));
    if (Number.isInteger(id)) return id;
  }
  if (head.length >= HEAD_BYTES) {
    throw new Error(`a line of over ${HEAD_BYTES} bytes without its id at the end: ${head.toString()}`);
  }
  const { id } = JSON.parse(head.toString("utf8")) as { id?: unknown };
  return typeof id === "number" ? id : undefined;
}

interface Pending {
  resolve: (answer: Answer) => void;
  whole: boolean;
}

export class StdioMcpDriver implements McpDriver {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  /** Requests in flight that asked for their whole answer: while any is, every line is kept whole. */
  private wholeWanted = 0;
  private readonly scanner = new LineScanner(
    (head, tail, toolError, whole) => this.settle(head, tail, toolError, whole),
    () => this.wholeWanted > 0,
  );
  readonly exited: Promise<number | null>;

  private constructor(
    readonly child: ChildProcess,
    private readonly output: OutputChannel,
    readonly era: Era,
  ) {
    output.onChunk = (chunk) => this.scanner.push(chunk);
    this.exited = new Promise((resolve) => child.once("exit", (code) => resolve(code)));
  }

  /** `era`: `modern` adds the 2026-07-28 envelope to every request and never initializes. */
  static async spawn(args: string[], env: NodeJS.ProcessEnv, era: Era = "legacy"): Promise<StdioMcpDriver> {
    return StdioMcpDriver.spawnOn(await openOutputChannel(), args, env, era);
  }

  /** The child writes its stdout into `output.childEnd`; the driver's copy of that end is closed. */
  static spawnOn(
    output: OutputChannel,
    args: string[],
    env: NodeJS.ProcessEnv,
    era: Era = "legacy",
  ): StdioMcpDriver {
    const child = spawn(process.execPath, args, { env, stdio: ["pipe", output.childEnd, "ignore"] });
    output.childEnd.destroy();
    return new StdioMcpDriver(child, output, era);
  }

  private settle(head: Buffer, tail: Buffer, toolError: boolean, whole?: Buffer): void {
    const id = idOf(head, tail);
    const waiting = id === undefined ? undefined : this.pending.get(id);
    if (id === undefined || !waiting) return;
    this.pending.delete(id);
    if (waiting.whole) this.wholeWanted--;
    waiting.resolve({
      head: head.toString("utf8"),
      toolError,
      text: waiting.whole ? whole?.toString("utf8") : undefined,
    });
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
  async initialize(first = "tools/list"): Promise<Answer> {
    const initialized = this.request("initialize", INITIALIZE_PARAMS);
    this.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    const answer = await this.request(first);
    if (!succeeded(await initialized)) throw new Error("initialize failed");
    return answer;
  }

  /** The first request of a connection: after initialize (legacy), or on its own (modern). */
  open(first = "tools/list"): Promise<Answer> {
    return this.era === "legacy" ? this.initialize(first) : this.request(first);
  }

  request(method: string, params?: Record<string, unknown>, options?: RequestOptions): Promise<Answer> {
    const id = this.nextId++;
    const whole = options?.whole === true;
    if (whole) this.wholeWanted++;
    const sent = this.era === "legacy" ? params : withModernMeta(params);
    return new Promise((resolve) => {
      this.pending.set(id, { resolve, whole });
      this.send({ jsonrpc: "2.0", id, method, params: sent });
    });
  }

  async close(): Promise<void> {
    this.child.stdin?.end();
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 3_000);
    await this.exited;
    clearTimeout(timer);
    this.output.readEnd.destroy();
  }
}
