// stdio: the SDK's serveStdio answers the one client that spawned us, in whichever era it opens with
// (2026-07-28 requests, or a 2025 initialize). stdout is the protocol; logs go to stderr. The wire
// under it is our LineTransport: the SDK's framing rules and message checks, fewer writes and copies.
import {
  deserializeMessage,
  type JSONRPCMessage,
  type Server,
  STDIO_DEFAULT_MAX_BUFFER_SIZE,
  type Transport,
} from "@modelcontextprotocol/server";
import { serveStdio as sdkServeStdio } from "@modelcontextprotocol/server/stdio";
import { messageJson } from "../json-text.js";
import { log } from "../log.js";

export interface RunningTransport {
  /** Resolves when the transport has ended (client gone, or close() called). */
  closed: Promise<void>;
  close(): Promise<void>;
}

const NEWLINE = 0x0a;
/** An answer this long (the tool list) goes out on its own rather than be copied into a batch. */
const SEPARATE_WRITE_CHARS = 32 * 1024;

/**
 * Newline-delimited JSON-RPC on a readable and a writable stream, as the SDK's StdioServerTransport
 * frames it, each line checked by the SDK's `deserializeMessage`. Two things differ, both for speed:
 * the answers finished in one turn of the event loop leave in one write (each write to the pipe is a
 * system call that wakes the client), and a result is serialized by `messageJson`.
 */
export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  /** The start of a line whose newline has not arrived yet. */
  private partial: Buffer[] = [];
  private partialBytes = 0;
  /** Lines waiting for the end of this turn, and the promise their senders wait on. */
  private pending: string[] = [];
  private batchWritten?: Promise<void>;
  private markBatchWritten: () => void = () => {};
  private closed = false;
  /** Writers waiting for the pipe to drain; released on close too, so that none waits forever. */
  private drainWaiters: (() => void)[] = [];
  private readonly onDrain = () => this.releaseWriters();
  private readonly flushBatch = () => this.flush();
  private readonly onData = (chunk: Buffer) => this.receive(chunk);
  private readonly onInputError = (error: Error) => this.onerror?.(error);
  private readonly onInputEnd = () => void this.close();
  private readonly onOutputError = (error: Error) => {
    if (this.closed) return;
    this.onerror?.(error);
    void this.close();
  };

  constructor(
    private readonly input: NodeJS.ReadableStream = process.stdin,
    private readonly output: NodeJS.WritableStream = process.stdout,
    private readonly maxLineBytes = STDIO_DEFAULT_MAX_BUFFER_SIZE,
  ) {}

  async start(): Promise<void> {
    this.input.on("data", this.onData);
    this.input.on("error", this.onInputError);
    this.input.on("end", this.onInputEnd);
    this.input.on("close", this.onInputEnd);
    this.output.on("error", this.onOutputError);
    this.output.on("drain", this.onDrain);
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.reject(new Error("the stdio transport is closed"));
    const line = `${messageJson(message)}\n`;
    if (line.length >= SEPARATE_WRITE_CHARS) {
      this.flush();
      return this.write(line);
    }
    this.pending.push(line);
    this.batchWritten ??= new Promise((resolve) => {
      this.markBatchWritten = resolve;
      setImmediate(this.flushBatch);
    });
    return this.batchWritten;
  }

  /** Lines already answered still go out; then the input is let go. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    this.input.off("data", this.onData);
    this.input.off("error", this.onInputError);
    this.input.off("end", this.onInputEnd);
    this.input.off("close", this.onInputEnd);
    // Late write failures (EPIPE after the client left) must not be unhandled.
    this.output.off("error", this.onOutputError);
    this.output.off("drain", this.onDrain);
    this.output.on("error", () => {});
    this.releaseWriters();
    if (this.input.listenerCount("data") === 0) this.input.pause();
    this.partial = [];
    this.partialBytes = 0;
    this.onclose?.();
  }

  private receive(chunk: Buffer): void {
    let start = 0;
    let newline = chunk.indexOf(NEWLINE);
    if (newline >= 0 && this.partial.length > 0) {
      this.partial.push(chunk.subarray(0, newline));
      const line = Buffer.concat(this.partial).toString("utf8");
      this.partial = [];
      this.partialBytes = 0;
      this.deliver(line);
      start = newline + 1;
      newline = chunk.indexOf(NEWLINE, start);
    }
    while (newline >= 0 && !this.closed) {
      this.deliver(chunk.toString("utf8", start, newline));
      start = newline + 1;
      newline = chunk.indexOf(NEWLINE, start);
    }
    if (start < chunk.length && !this.closed) this.keepPartial(chunk.subarray(start));
  }

  /** A line over the bound is dropped, not the connection: a client cannot fill our memory. */
  private keepPartial(rest: Buffer): void {
    this.partialBytes += rest.length;
    if (this.partialBytes > this.maxLineBytes) {
      this.partial = [];
      this.partialBytes = 0;
      this.onerror?.(new Error(`a line of over ${this.maxLineBytes} bytes was dropped`));
      return;
    }
    this.partial.push(rest);
  }

  /** As the SDK's ReadBuffer: a line that is not JSON is skipped, one that is not JSON-RPC reported. */
  private deliver(text: string): void {
    const line = text.endsWith("\r") ? text.slice(0, -1) : text;
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(line);
    } catch (error) {
      if (!(error instanceof SyntaxError)) this.onerror?.(error as Error);
      return;
    }
    this.onmessage?.(message);
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    const text = this.pending.length === 1 ? this.pending[0]! : this.pending.join("");
    const written = this.markBatchWritten;
    this.pending = [];
    this.batchWritten = undefined;
    void this.write(text).then(written);
  }

  private write(text: string): Promise<void> {
    if (this.output.write(text)) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  private releaseWriters(): void {
    for (const release of this.drainWaiters.splice(0)) release();
  }
}

/** Serves stdin/stdout with a fresh server from `build` for the connection. */
export function serveStdio(build: () => Server): RunningTransport {
  let markClosed!: () => void;
  const closed = new Promise<void>((resolve) => {
    markClosed = resolve;
  });
  const handle = sdkServeStdio(build, {
    transport: new LineTransport(),
    onerror: (error) => log("warning", "stdio: message refused", { error: error.message.slice(0, 200) }),
  });
  const close = async () => {
    await handle.close();
    markClosed();
  };
  // The client closing our stdin is the end of the connection: exit rather than linger as an orphan.
  const onEnd = () => void close();
  process.stdin.once("end", onEnd);
  process.stdin.once("close", onEnd);
  return { closed, close };
}
