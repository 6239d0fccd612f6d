// stdio: one session for the one client that spawned us; stdout is the protocol, logs go to stderr.
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { checkMessage } from "../jsonrpc.js";
import { serializeLine } from "../prepared.js";
import type { McpSession } from "../session.js";

export interface RunningTransport {
  /** Resolves when the transport has ended (client gone, or close() called). */
  closed: Promise<void>;
  close(): Promise<void>;
}

const NEWLINE = 0x0a;
/** A line longer than this is dropped, so that a client that never sends a newline cannot fill memory. */
const MAX_LINE_BYTES = 16 * 1024 * 1024;
/** A large answer (the tool list) gains nothing from company and would only be copied into it. */
const SEPARATE_WRITE_CHARS = 32 * 1024;

/**
 * Newline-delimited JSON-RPC on stdin/stdout, as the SDK's StdioServerTransport, with two differences
 * that matter per call: messages are checked by jsonrpc.ts rather than by a zod parse, and the answers
 * finished in one turn of the event loop leave in one write (each write to the pipe is a system call
 * that wakes the client; with many calls in flight they cost more than the answers).
 */
export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  /** The start of a line whose newline has not arrived yet, joined only when it has. */
  private partial: Buffer[] = [];
  private partialBytes = 0;
  private pending: string[] = [];
  private written: Promise<void> | undefined;
  private markWritten: () => void = () => {};
  private closed = false;
  private readonly scheduled = () => this.flush();
  private readonly ondata = (chunk: Buffer) => this.receive(chunk);
  private readonly onStdinError = (error: Error) => this.onerror?.(error);

  constructor(
    private readonly stdin: NodeJS.ReadableStream = process.stdin,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
  ) {}

  async start(): Promise<void> {
    this.stdin.on("data", this.ondata);
    this.stdin.on("error", this.onStdinError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    const line = serializeLine(message);
    if (line.length >= SEPARATE_WRITE_CHARS) {
      this.flush();
      return this.write(line);
    }
    this.pending.push(line);
    this.written ??= new Promise((resolve) => {
      this.markWritten = resolve;
      setImmediate(this.scheduled);
    });
    return this.written;
  }

  /** Answers still waiting for their turn go out first. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.flush();
    this.stdin.off("data", this.ondata);
    this.stdin.off("error", this.onStdinError);
    if (this.stdin.listenerCount("data") === 0) this.stdin.pause();
    this.partial = [];
    this.partialBytes = 0;
    this.onclose?.();
  }

  private receive(chunk: Buffer): void {
    let start = 0;
    let newline = chunk.indexOf(NEWLINE);
    if (newline >= 0 && this.partial.length > 0) {
      this.partial.push(chunk.subarray(0, newline));
      const line = Buffer.concat(this.partial);
      this.partial = [];
      this.partialBytes = 0;
      this.deliver(line.toString("utf8"));
      start = newline + 1;
      newline = chunk.indexOf(NEWLINE, start);
    }
    while (newline >= 0) {
      this.deliver(chunk.toString("utf8", start, newline));
      start = newline + 1;
      newline = chunk.indexOf(NEWLINE, start);
    }
    if (start < chunk.length) this.keepPartial(chunk.subarray(start));
  }

  private keepPartial(rest: Buffer): void {
    this.partialBytes += rest.length;
    if (this.partialBytes > MAX_LINE_BYTES) {
      this.partial = [];
      this.partialBytes = 0;
      this.onerror?.(new Error(`stdin: a line of over ${MAX_LINE_BYTES} bytes was dropped`));
      return;
    }
    this.partial.push(rest);
  }

  private deliver(text: string): void {
    const line = text.endsWith("\r") ? text.slice(0, -1) : text;
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.onerror?.(new Error("stdin: a line that is not JSON was ignored"));
      return;
    }
    const checked = checkMessage(value);
    if (!checked) {
      this.onerror?.(new Error("stdin: a line that is not a JSON-RPC 2.0 message was ignored"));
      return;
    }
    this.onmessage?.(checked.message);
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    const text = this.pending.length === 1 ? this.pending[0]! : this.pending.join("");
    void this.write(text).then(this.markWritten);
    this.pending = [];
    this.written = undefined;
  }

  private write(text: string): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(text)) resolve();
      else this.stdout.once("drain", resolve);
    });
  }
}

export async function serveStdio(session: McpSession): Promise<RunningTransport> {
  let markClosed!: () => void;
  const closed = new Promise<void>((resolve) => {
    markClosed = resolve;
  });
  session.onclose = markClosed;
  await session.connect(new StdioTransport());
  // The client closing our stdin is the end of the session: exit rather than linger as an orphan.
  const onEnd = () => void session.close();
  process.stdin.once("end", onEnd);
  process.stdin.once("close", onEnd);
  return { closed, close: () => session.close() };
}
