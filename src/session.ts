// One MCP session on one transport: the stdio process, an HTTP session, or one stateless HTTP request.
// What assistants send over and over (tools/call, tools/list, ping) is answered here. Everything else
// (initialize, logging/setLevel, task-augmented requests, unknown methods) goes to the SDK's Server,
// built on first need, which answers as it always does. The SDK's path parses each request twice and
// each tool result once more with zod, copying them, through several promise hops (README,
// Performance, has what that cost), for checks made here by hand or not needed: the results are our
// own. A stateless tools/call never builds an SDK Server at all.
import type { Transport, TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
import type {
  JSONRPCMessage,
  JSONRPCRequest,
  ListToolsResult,
  MessageExtraInfo,
  RequestId,
  Result,
  ServerNotification,
} from "@modelcontextprotocol/sdk/types.js";
import type { Upstreams } from "./clients/index.js";
import { isRequestId } from "./jsonrpc.js";
import { log, SessionLog } from "./log.js";
import { redact } from "./tools/errors.js";
import { answerToolCall, type ToolCallParams, toolListFor } from "./tools/register.js";

const RELATED_TASK = "io.modelcontextprotocol/related-task";
const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;

type Params = JSONRPCRequest["params"];

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/** Task-augmented requests and task-related ones are the SDK's to refuse or serve. */
const involvesTasks = (params: Params) =>
  params?.task !== undefined || params?._meta?.[RELATED_TASK] !== undefined;

const kindOf = (value: unknown) =>
  value === null ? "null" : Array.isArray(value) ? "an array" : typeof value;

/** `arguments` as given, or decoded from the JSON text some clients send in its place. */
function decodedArguments(value: unknown): unknown {
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/**
 * The call tools/call params ask for, or what is wrong with them in words an assistant can act on
 * (the SDK's own answer is an internal error quoting a zod issue list).
 */
function readToolCall(params: Params): ToolCallParams | string {
  if (typeof params?.name !== "string") {
    return `Invalid params: tools/call needs params.name, the name of a tool from tools/list (got ${kindOf(params?.name)})`;
  }
  const args = decodedArguments(params.arguments);
  if (args !== undefined && !isRecord(args)) {
    return `Invalid params: tools/call params.arguments must be an object of the tool's arguments (got ${kindOf(args)})`;
  }
  return { name: params.name, arguments: args, _meta: params._meta };
}

/** Builds the SDK Server that serves what McpSession does not; it shares the session's log. */
export type SdkServerFactory = (sessionLog: SessionLog) => {
  connect(transport: Transport): Promise<void>;
};

export class McpSession {
  /** Called once, when the transport has closed. */
  onclose?: () => void;

  private transport?: Transport;
  /** What the SDK Server is connected to, once it is built: our transport, seen through a facade. */
  private sdk?: Transport;
  private readonly calls = new Map<RequestId, AbortController>();
  private readonly sessionLog = new SessionLog();
  private toolList?: ListToolsResult;

  constructor(
    private readonly upstreams: Upstreams,
    private readonly tools: ReadonlySet<string>,
    private readonly buildSdkServer: SdkServerFactory,
  ) {}

  async connect(transport: Transport): Promise<void> {
    this.transport = transport;
    transport.onmessage = (message, extra) => this.receive(message, extra);
    transport.onclose = () => this.ended();
    transport.onerror = (error) => {
      log("warning", "transport error", { error: error.message });
      this.sdk?.onerror?.(error);
    };
    await transport.start();
  }

  close(): Promise<void> {
    return this.transport?.close() ?? Promise.resolve();
  }

  /** Calls being answered here: for tests that check none is left behind. */
  get callsInFlight(): number {
    return this.calls.size;
  }

  /** `message` has passed the transport's JSON-RPC check (jsonrpc.ts). */
  private receive(message: JSONRPCMessage, extra?: MessageExtraInfo): void {
    const isRequest = "method" in message && "id" in message;
    if (isRequest && this.answer(message as JSONRPCRequest)) return;
    if (!isRequest && "method" in message && message.method === "notifications/cancelled") {
      this.cancel(message.params);
    }
    // With no SDK Server yet, a notification or response has nobody to hear it there: it would ignore it.
    if (isRequest || this.sdk) this.sdkTransport().onmessage?.(message, extra);
  }

  /** Answers a request here when it is one of ours; false hands it to the SDK. */
  private answer({ id, method, params }: JSONRPCRequest): boolean {
    if (involvesTasks(params)) return false;
    switch (method) {
      case "tools/call": {
        const call = readToolCall(params);
        if (typeof call === "string") this.fail(id, INVALID_PARAMS, call);
        else this.call(id, call);
        return true;
      }
      case "tools/list":
        if (params?.cursor !== undefined && typeof params.cursor !== "string") {
          const got = kindOf(params.cursor);
          this.fail(
            id,
            INVALID_PARAMS,
            `Invalid params: tools/list params.cursor must be a string (got ${got})`,
          );
        } else {
          this.toolList ??= toolListFor(this.tools);
          this.reply(id, this.toolList);
        }
        return true;
      case "ping":
        this.reply(id, {});
        return true;
      default:
        return false;
    }
  }

  private call(id: RequestId, params: ToolCallParams): void {
    const controller = new AbortController();
    const { signal } = controller;
    this.calls.set(id, controller);
    const done = () => {
      if (this.calls.get(id) === controller) this.calls.delete(id);
    };
    const notify = (notification: ServerNotification) =>
      signal.aborted
        ? Promise.resolve()
        : this.send({ ...notification, jsonrpc: "2.0" }, { relatedRequestId: id });
    const scope = { enabled: this.tools, sessionLog: this.sessionLog, signal, notify };
    answerToolCall(this.upstreams, params, scope).then(
      (result) => {
        done();
        // A cancelled request gets no answer (as the SDK does it).
        if (!signal.aborted) this.reply(id, result);
      },
      (error: unknown) => {
        done();
        if (signal.aborted) return;
        const text = redact(error instanceof Error ? error.message : String(error), this.upstreams.settings);
        log("error", "tool call crashed", { tool: params.name.slice(0, 100), error: text });
        this.fail(
          id,
          INTERNAL_ERROR,
          "Internal error while answering tools/call: try again; if it persists, report it",
        );
      },
    );
  }

  private cancel(params: Params): void {
    const requestId = params?.requestId;
    if (!isRequestId(requestId)) return;
    this.calls.get(requestId)?.abort(params?.reason);
  }

  private reply(id: RequestId, result: Result): void {
    void this.send({ result, jsonrpc: "2.0", id });
  }

  private fail(id: RequestId, code: number, message: string): void {
    void this.send({ jsonrpc: "2.0", id, error: { code, message } });
  }

  private send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const sent = this.transport?.send(message, options) ?? Promise.resolve();
    // A client gone before its answer: nothing to tell anyone (the SDK reports it to an unset onerror).
    return sent.catch(() => {});
  }

  /** The transport closed: calls still running stop (their upstream requests too). */
  private ended(): void {
    for (const controller of this.calls.values()) controller.abort();
    this.calls.clear();
    this.sdk?.onclose?.();
    this.onclose?.();
  }

  private sdkTransport(): Transport {
    if (this.sdk) return this.sdk;
    const transport = this.transport!;
    const facade: Transport = {
      start: async () => {},
      send: (message, options) => transport.send(message, options),
      close: () => transport.close(),
      get sessionId() {
        return transport.sessionId;
      },
    };
    this.sdk = facade;
    // connect() installs its handlers before its first await: messages can be handed on at once.
    this.buildSdkServer(this.sessionLog)
      .connect(facade)
      .catch((error: unknown) => log("error", "MCP server failed to start", { error: String(error) }));
    return facade;
  }
}
