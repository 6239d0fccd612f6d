// stdio: the SDK's serveStdio answers the one client that spawned us, in whichever revision it opens with
// (2026-07-28 requests, or a 2025 initialize). stdout is the protocol; logs go to stderr. On SIGTERM the
// requests already read are answered (for up to the grace) before the process exits; new ones are refused.
import {
  type JSONRPCMessage,
  PROTOCOL_VERSION_META_KEY,
  type RequestId,
  type Server,
  type Transport,
  UnsupportedProtocolVersionError,
} from "@modelcontextprotocol/server";
import { StdioServerTransport, serveStdio as sdkServeStdio } from "@modelcontextprotocol/server/stdio";
import { log } from "../log.js";
import * as telemetry from "../telemetry/index.js";
import type { RunningTransport } from "./running.js";

/** JSON-RPC's "server error" range: a refusal that is the server's state, not the request's fault. */
const SHUTTING_DOWN = -32000;

// The wire has already checked every message it hands in (the SDK's deserializeMessage), and every
// message sent out is the SDK's own: telling their kinds apart needs only a look at their keys.
const isRequest = (message: JSONRPCMessage): message is JSONRPCMessage & { id: RequestId; method: string } =>
  "method" in message && "id" in message;
const isResponse = (message: JSONRPCMessage) => !("method" in message) && "id" in message;

/** The revision a request's `_meta` claims, when it claims one as a string (2026-07-28 requests do). */
function claimedRevision(message: JSONRPCMessage): string | undefined {
  const params = "params" in message ? message.params : undefined;
  const meta = (params as { _meta?: Record<string, unknown> } | undefined)?._meta;
  const claim = meta?.[PROTOCOL_VERSION_META_KEY];
  return typeof claim === "string" ? claim : undefined;
}

/**
 * Which revision the connection serves: none yet; the one its opening request claims (no claim: a 2025
 * initialize) while that request is unanswered; then 2026-07-28's, or the 2025 era's.
 */
type RevisionState =
  | { state: "unopened" }
  | { state: "opening"; id: RequestId; revision?: string }
  | { state: "modern"; revision: string }
  | { state: "legacy" };

/** The SDK's stdio wire, counting the requests it has handed in and not yet answered. */
class DrainableStdio implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  private readonly wire = new StdioServerTransport();
  private readonly open = new Set<RequestId>();
  private draining = false;
  private wake?: () => void;
  private revisionState: RevisionState = { state: "unopened" };

  constructor() {
    this.wire.onmessage = (message) => this.receive(message);
    this.wire.onerror = (error) => this.onerror?.(error);
    this.wire.onclose = () => this.onclose?.();
  }

  start(): Promise<void> {
    return this.wire.start();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const opening = this.revisionState;
    if (
      opening.state === "opening" &&
      isResponse(message) &&
      opening.id === (message as { id?: RequestId }).id
    ) {
      // A refused opening leaves the connection unopened, as the SDK does.
      if ("error" in message) this.revisionState = { state: "unopened" };
      else if (opening.revision === undefined) this.revisionState = { state: "legacy" };
      else this.revisionState = { state: "modern", revision: opening.revision };
    }
    await this.wire.send(message);
    if (isResponse(message)) this.settle((message as { id?: RequestId }).id);
  }

  close(): Promise<void> {
    return this.wire.close();
  }

  /** Refuses new requests from now on; resolves when every open one is answered or after `timeoutMs`, with how many are left. */
  drain(timeoutMs: number): Promise<number> {
    this.draining = true;
    if (this.open.size === 0) return Promise.resolve(0);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(this.open.size), timeoutMs);
      this.wake = () => {
        clearTimeout(timer);
        resolve(0);
      };
    });
  }

  private receive(message: JSONRPCMessage): void {
    if (isRequest(message)) {
      if (this.draining) {
        this.refuse(message.id, {
          code: SHUTTING_DOWN,
          message: "the server is shutting down and takes no new requests",
        });
        return;
      }
      const revision = claimedRevision(message);
      if (
        this.revisionState.state === "unopened" &&
        (revision !== undefined || message.method === "initialize")
      )
        this.revisionState = { state: "opening", id: message.id, revision };
      // The SDK checks the revision of the request that opens a 2026-07-28 connection; a later request
      // naming another revision gets the same refusal here (-32022, naming the one this connection serves).
      const served = this.revisionState.state === "modern" ? this.revisionState.revision : undefined;
      if (served !== undefined && revision !== undefined && revision !== served) {
        const refusal = new UnsupportedProtocolVersionError({ supported: [served], requested: revision });
        log("warning", "stdio: message refused", { error: refusal.message.slice(0, 200) });
        this.refuse(message.id, { code: refusal.code, message: refusal.message, data: refusal.data });
        return;
      }
      // A subscription stays open until cancelled: it is not a call the drain should wait for.
      if (message.method !== "subscriptions/listen") this.open.add(message.id);
    } else if ("method" in message && message.method === "notifications/cancelled") {
      const id = (message.params as { requestId?: RequestId } | undefined)?.requestId;
      if (id !== undefined) this.settle(id); // the SDK sends no answer to a cancelled request
    }
    this.onmessage?.(message);
  }

  /** Answers a request with an error, without handing it to the SDK. */
  private refuse(id: RequestId, error: { code: number; message: string; data?: unknown }): void {
    void this.wire.send({ jsonrpc: "2.0", id, error }).catch(() => {});
  }

  private settle(id: RequestId | undefined): void {
    if (id === undefined || !this.open.delete(id)) return;
    if (this.open.size === 0) this.wake?.();
  }
}

/** Serves stdin/stdout with a fresh server from `build` for the connection. */
export function serveStdio(build: () => Server): RunningTransport {
  let markClosed!: () => void;
  const closed = new Promise<void>((resolve) => {
    markClosed = resolve;
  });
  const wire = new DrainableStdio();
  const handle = sdkServeStdio(build, {
    transport: wire,
    onerror: (error) => log("warning", "stdio: message refused", { error: error.message.slice(0, 200) }),
  });
  const endTelemetry = telemetry.active?.sessionOpened("stdio");
  let closing: Promise<void> | undefined;
  const close = (graceMs = 0) => {
    closing ??= (async () => {
      endTelemetry?.();
      const abandoned = graceMs > 0 ? await wire.drain(graceMs) : 0;
      if (abandoned > 0)
        log("warn", "shutdown grace is over: ending requests still in flight", { abandoned });
      await handle.close();
      markClosed();
    })();
    return closing;
  };
  // The client closing our stdin is the end of the connection: exit rather than linger as an orphan.
  const onEnd = () => void close();
  process.stdin.once("end", onEnd);
  process.stdin.once("close", onEnd);
  return { closed, close };
}
