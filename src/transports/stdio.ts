// stdio: the SDK's serveStdio answers the one client that spawned us, in whichever era it opens with
// (2026-07-28 requests, or a 2025 initialize). stdout is the protocol; logs go to stderr.
import type { Server } from "@modelcontextprotocol/server";
import { serveStdio as sdkServeStdio } from "@modelcontextprotocol/server/stdio";
import { log } from "../log.js";

export interface RunningTransport {
  /** Resolves when the transport has ended (client gone, or close() called). */
  closed: Promise<void>;
  close(): Promise<void>;
}

/** Serves stdin/stdout with a fresh server from `build` for the connection. */
export function serveStdio(build: () => Server): RunningTransport {
  let markClosed!: () => void;
  const closed = new Promise<void>((resolve) => {
    markClosed = resolve;
  });
  const handle = sdkServeStdio(build, {
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
