// One MCP session on one transport: the stdio process, an HTTP session, or one stateless HTTP request.
// It answers every request this server's capabilities (tools, logging) call for: initialize, ping,
// tools/list, tools/call, logging/setLevel, and cancellations; anything else is "Method not found".
// The SDK's Server did this before. Answering here is what made calls cheap: the SDK parsed each
// request twice and each tool result once more with zod, copying them, through several promise hops,
// and loading it (with Ajv and its zod schemas of every MCP message) was a third of start-up
// (README, Performance, has the figures). Its wire behaviour is kept: same results, same key order,
// no answer to a cancelled request, and errors a client can act on where it quoted zod issues.
import type { Transport, TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
import type {
  Implementation,
  InitializeResult,
  JSONRPCMessage,
  JSONRPCRequest,
  ListToolsResult,
  RequestId,
  Result,
  ServerCapabilities,
  ServerNotification,
} from "@modelcontextprotocol/sdk/types.js";
import { Cancellation } from "./cancel.js";
import type { Upstreams } from "./clients/index.js";
import { isObject, isRequestId } from "./jsonrpc.js";
import { isLoggingLevel, LOGGING_LEVELS, log, SessionLog } from "./log.js";
import { redact } from "./tools/errors.js";
import { answerToolCall, type ToolCallParams, toolListFor } from "./tools/register.js";

/**
 * The SDK's LATEST_PROTOCOL_VERSION and SUPPORTED_PROTOCOL_VERSIONS, copied so that answering initialize
 * does not load the SDK's message schemas; test/session.test.ts fails when the SDK's change.
 */
export const LATEST_PROTOCOL_VERSION = "2025-11-25";
export const SUPPORTED_PROTOCOL_VERSIONS = [
  LATEST_PROTOCOL_VERSION,
  "2025-06-18",
  "2025-03-26",
  "2024-11-05",
  "2024-10-07",
];

const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;

const INVALID_INITIALIZE =
  "Invalid params: initialize needs params.protocolVersion (a string), params.capabilities (an object) and params.clientInfo with a name and a version (strings)";
const INVALID_LEVEL = `Invalid params: logging/setLevel params.level must be one of ${LOGGING_LEVELS.join(", ")}`;

type Params = JSONRPCRequest["params"];

/** What initialize answers with. */
export interface ServerIdentity {
  serverInfo: Implementation;
  capabilities: ServerCapabilities;
  instructions: string;
}

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

/** The call tools/call params ask for, or what is wrong with them in words an assistant can act on. */
function readToolCall(params: Params): ToolCallParams | string {
  if (typeof params?.name !== "string") {
    return `Invalid params: tools/call needs params.name, the name of a tool from tools/list (got ${kindOf(params?.name)})`;
  }
  const args = decodedArguments(params.arguments);
  if (args !== undefined && !isObject(args)) {
    return `Invalid params: tools/call params.arguments must be an object of the tool's arguments (got ${kindOf(args)})`;
  }
  return { name: params.name, arguments: args, _meta: params._meta };
}

/** The protocol version well-formed initialize params ask for; undefined for malformed ones. */
function requestedVersion(params: Params): string | undefined {
  const info = params?.clientInfo;
  const wellFormed =
    typeof params?.protocolVersion === "string" &&
    isObject(params.capabilities) &&
    isObject(info) &&
    typeof info.name === "string" &&
    typeof info.version === "string";
  return wellFormed ? (params.protocolVersion as string) : undefined;
}

export class McpSession {
  /** Called once, when the transport has closed. */
  onclose?: () => void;

  private transport?: Transport;
  private readonly calls = new Map<RequestId, Cancellation>();
  private readonly sessionLog = new SessionLog();
  private toolList?: ListToolsResult;

  constructor(
    private readonly upstreams: Upstreams,
    private readonly tools: ReadonlySet<string>,
    private readonly identity: ServerIdentity,
  ) {}

  async connect(transport: Transport): Promise<void> {
    this.transport = transport;
    transport.onmessage = (message) => this.receive(message);
    transport.onclose = () => this.transportClosed();
    transport.onerror = (error) => log("warning", "transport error", { error: error.message });
    await transport.start();
  }

  close(): Promise<void> {
    return this.transport?.close() ?? Promise.resolve();
  }

  /**
   * `message` has passed the transport's JSON-RPC check (jsonrpc.ts). Of notifications only
   * cancellations matter here; responses would answer requests this server never sends.
   */
  private receive(message: JSONRPCMessage): void {
    if (!("method" in message)) return;
    if ("id" in message) this.answer(message);
    else if (message.method === "notifications/cancelled") this.cancel(message.params);
  }

  private answer({ id, method, params }: JSONRPCRequest): void {
    // Task augmentation needs the tasks capability, which this server does not declare.
    if (params?.task !== undefined) {
      this.fail(
        id,
        INVALID_PARAMS,
        `Invalid params: this server does not run ${method} as a task; send it without params.task`,
      );
      return;
    }
    switch (method) {
      case "tools/call": {
        const call = readToolCall(params);
        if (typeof call === "string") this.fail(id, INVALID_PARAMS, call);
        else this.call(id, call);
        break;
      }
      case "tools/list":
        this.listTools(id, params);
        break;
      case "ping":
        this.reply(id, {});
        break;
      case "initialize": {
        const version = requestedVersion(params);
        if (version === undefined) this.fail(id, INVALID_PARAMS, INVALID_INITIALIZE);
        else this.reply(id, this.initializeResult(version));
        break;
      }
      case "logging/setLevel":
        if (!isLoggingLevel(params?.level)) {
          this.fail(id, INVALID_PARAMS, INVALID_LEVEL);
        } else {
          this.sessionLog.setClientLevel(params.level);
          this.reply(id, {});
        }
        break;
      default:
        this.fail(id, METHOD_NOT_FOUND, "Method not found");
    }
  }

  /** As the SDK's Server answers it: the version asked for when supported, else the latest. */
  private initializeResult(requested: string): InitializeResult {
    const { serverInfo, capabilities, instructions } = this.identity;
    const protocolVersion = SUPPORTED_PROTOCOL_VERSIONS.includes(requested)
      ? requested
      : LATEST_PROTOCOL_VERSION;
    return { protocolVersion, capabilities, serverInfo, ...(instructions && { instructions }) };
  }

  /** Every tool on one page: a cursor, if any, must still be a string. */
  private listTools(id: RequestId, params: Params): void {
    if (params?.cursor !== undefined && typeof params.cursor !== "string") {
      const got = kindOf(params.cursor);
      this.fail(id, INVALID_PARAMS, `Invalid params: tools/list params.cursor must be a string (got ${got})`);
      return;
    }
    this.toolList ??= toolListFor(this.tools);
    this.reply(id, this.toolList);
  }

  private call(id: RequestId, params: ToolCallParams): void {
    const cancellation = new Cancellation();
    this.calls.set(id, cancellation);
    const done = () => {
      if (this.calls.get(id) === cancellation) this.calls.delete(id);
    };
    // Progress and log entries of a call travel with it (over HTTP, on its own response stream).
    const notify = (notification: ServerNotification) =>
      cancellation.aborted
        ? Promise.resolve()
        : this.send({ ...notification, jsonrpc: "2.0" }, { relatedRequestId: id });
    const scope = { enabled: this.tools, sessionLog: this.sessionLog, signal: cancellation, notify };
    answerToolCall(this.upstreams, params, scope).then(
      (result) => {
        done();
        // A cancelled request gets no answer.
        if (!cancellation.aborted) this.reply(id, result);
      },
      (error: unknown) => {
        done();
        if (cancellation.aborted) return;
        const text = redact(error instanceof Error ? error.message : String(error), this.upstreams.settings);
        log("error", "tool call crashed", { tool: params.name.slice(0, 100), error: text });
        const message = "Internal error while answering tools/call: try again; if it persists, report it";
        this.fail(id, INTERNAL_ERROR, message);
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
    // A client gone before its answer: there is nobody left to tell.
    return sent.catch(() => {});
  }

  /** The transport closed: calls still running stop (their upstream requests too). */
  private transportClosed(): void {
    for (const cancellation of this.calls.values()) cancellation.abort();
    this.calls.clear();
    this.onclose?.();
  }
}
