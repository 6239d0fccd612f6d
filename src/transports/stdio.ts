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

/** The SDK's stdio transport, writing prepared results (the tool list) from their stored text. */
class PreparedStdioTransport extends StdioServerTransport {
  override send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (process.stdout.write(serializeLine(message))) resolve();
      else process.stdout.once("drain", resolve);
    });
  }
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
