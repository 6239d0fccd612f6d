// stdio: one server for the one client that spawned us; stdout is the protocol, logs go to stderr.

import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { serializeLine } from "../prepared.js";

export interface RunningTransport {
  /** Resolves when the transport has ended (client gone, or close() called). */
  closed: Promise<void>;
  close(): Promise<void>;
}

/**
 * The SDK's stdio transport, writing prepared results (the tool list) from their stored text, and
 * writing the answers finished in one turn of the event loop as one write: each write to the pipe is
 * a system call that wakes the client, and with many calls in flight they cost more than the answers.
 */
class PreparedStdioTransport extends StdioServerTransport {
  private pending: string[] = [];
  private written: Promise<void> | undefined;
  private markWritten: () => void = () => {};
  private readonly scheduled = () => this.flush();

  override send(message: JSONRPCMessage): Promise<void> {
    const line = serializeLine(message);
    // A large answer (the tool list) gains nothing from company and would only be copied into it.
    if (line.length >= SEPARATE_WRITE_CHARS) {
      this.flush();
      return writeOut(line);
    }
    this.pending.push(line);
    this.written ??= new Promise((resolve) => {
      this.markWritten = resolve;
      setImmediate(this.scheduled);
    });
    return this.written;
  }

  /** Answers still waiting for their turn go out before the transport closes. */
  override close(): Promise<void> {
    this.flush();
    return super.close();
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    const text = this.pending.length === 1 ? this.pending[0]! : this.pending.join("");
    void writeOut(text).then(this.markWritten);
    this.pending = [];
    this.written = undefined;
  }
}

const SEPARATE_WRITE_CHARS = 32 * 1024;

function writeOut(text: string): Promise<void> {
  return new Promise((resolve) => {
    if (process.stdout.write(text)) resolve();
    else process.stdout.once("drain", resolve);
  });
}

export async function serveStdio(server: Server): Promise<RunningTransport> {
  const transport = new PreparedStdioTransport();
  let markClosed!: () => void;
  const closed = new Promise<void>((resolve) => {
    markClosed = resolve;
  });
  server.onclose = markClosed;
  await server.connect(transport);
  // The client closing our stdin is the end of the session: exit rather than linger as an orphan.
  const onEnd = () => void server.close();
  process.stdin.once("end", onEnd);
  process.stdin.once("close", onEnd);
  return { closed, close: () => server.close() };
}
