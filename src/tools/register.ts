// Definition -> published tool, and the one generic handler that checks arguments, forwards them
// and shapes the answer. Schemas are converted once, when this module loads, not per tools/list; each
// distinct tool selection gets one prepared ListToolsResult, shared by every session that has it.
import type {
  CallToolResult,
  ListToolsResult,
  ProgressToken,
  ServerNotification,
  Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { CancelSignal } from "../cancel.js";
import type { CallContext, Upstreams } from "../clients/index.js";
import { describeRetry, type RetryNotice } from "../clients/retry.js";
import { isObject } from "../jsonrpc.js";
import type { Report, SessionLog } from "../log.js";
import { prepareResult, structuredResult } from "../prepared.js";
import { analyticsEndpoints } from "./analytics.js";
import type { EndpointDefinition } from "./definition.js";
import { errorResult, failureLog, redact, toolErrorResult } from "./errors.js";
import { describeIssues, indexKeyPaths, prepareArguments } from "./validation.js";
import { workspaceEndpoints } from "./workspace.js";

export const ENDPOINTS: readonly EndpointDefinition[] = [...workspaceEndpoints, ...analyticsEndpoints];

interface PreparedTool {
  definition: EndpointDefinition;
  published: Tool;
  keyPaths: Map<string, string[]>;
}

type JsonSchema = Record<string, unknown>;

const SAFE_INTEGER_BOUNDS = new Set([Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER]);

/**
 * zod -> JSON Schema, minus what only costs tokens: `$schema`, uuid patterns beside `format`, and
 * the safe-integer bounds zod adds to every integer.
 */
function publishedSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const json = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as JsonSchema;
  delete json.$schema;
  return JSON.parse(JSON.stringify(json), (_key, value) => {
    if (!value || typeof value !== "object" || Array.isArray(value)) return value;
    const { pattern, minimum, maximum, ...rest } = value;
    if (pattern !== undefined && value.format !== "uuid") rest.pattern = pattern;
    if (minimum !== undefined && !SAFE_INTEGER_BOUNDS.has(minimum)) rest.minimum = minimum;
    if (maximum !== undefined && !SAFE_INTEGER_BOUNDS.has(maximum)) rest.maximum = maximum;
    return rest;
  });
}

function prepare(definition: EndpointDefinition): PreparedTool {
  return {
    definition,
    keyPaths: indexKeyPaths(definition.input),
    published: {
      name: definition.name,
      title: definition.title,
      description: definition.description,
      inputSchema: publishedSchema(definition.input, "input") as Tool["inputSchema"],
      outputSchema: publishedSchema(definition.output, "output") as Tool["outputSchema"],
      annotations: {
        title: definition.title,
        readOnlyHint: definition.readOnly,
        destructiveHint: false,
        idempotentHint: definition.readOnly,
        openWorldHint: true,
      },
    },
  };
}

export const PREPARED_TOOLS: ReadonlyMap<string, PreparedTool> = new Map(
  ENDPOINTS.map((definition) => [definition.name, prepare(definition)]),
);

export const ALL_TOOL_NAMES: ReadonlySet<string> = new Set(PREPARED_TOOLS.keys());

/** Prepared: stdio writes it from its stored JSON text. */
export const TOOL_LIST: ListToolsResult = prepareResult({
  tools: [...PREPARED_TOOLS.values()].map((tool) => tool.published),
});

// Bounded: HTTP clients choose selections by header, and there are 2^14 of them.
const MAX_CACHED_LISTS = 64;
const toolLists = new Map<string, ListToolsResult>();

/** Selections already looked up, by the Set itself: sessions of one configuration share their Set. */
const listsBySelection = new WeakMap<ReadonlySet<string>, ListToolsResult>();

/** The prepared tools/list answer of a selection, in table order. */
export function toolListFor(enabled: ReadonlySet<string>): ListToolsResult {
  const known = listsBySelection.get(enabled);
  if (known) return known;
  const tools = TOOL_LIST.tools.filter((tool) => enabled.has(tool.name));
  const key = tools.map((tool) => tool.name).join(",");
  let list = tools.length === TOOL_LIST.tools.length ? TOOL_LIST : toolLists.get(key);
  if (!list) {
    if (toolLists.size >= MAX_CACHED_LISTS) toolLists.delete(toolLists.keys().next().value as string);
    list = prepareResult({ tools });
    toolLists.set(key, list);
  }
  listsBySelection.set(enabled, list);
  return list;
}

/** What one session brings to a call: which tools it may use, and where its log goes. */
export interface CallSession {
  enabled?: ReadonlySet<string>;
  report?: Report;
}

/** The upstream body as it came; MCP wants an object, so any other JSON is wrapped once. */
function structured(body: unknown): Record<string, unknown> {
  if (isObject(body)) return body;
  return Array.isArray(body) ? { items: body } : { value: body };
}

export async function callTool(
  upstreams: Upstreams,
  name: string,
  rawArguments: Record<string, unknown> | undefined,
  context: CallContext = {},
  { enabled = ALL_TOOL_NAMES, report = () => {} }: CallSession = {},
): Promise<CallToolResult> {
  const tool = PREPARED_TOOLS.get(name);
  if (!tool || !enabled.has(name)) {
    report("warning", "tool call refused", { tool: name, reason: tool ? "not enabled" : "unknown" });
    const available = `Available: ${[...enabled].join(", ")}.`;
    return errorResult(
      tool
        ? `Tool "${name}" is not enabled on this server (see its --toolsets, --tools and --read-only settings). ${available}`
        : `Unknown tool "${name}". ${available}`,
    );
  }
  const { definition } = tool;
  const args = prepareArguments(definition.input, rawArguments ?? {});
  const parsed = definition.input.safeParse(args);
  if (!parsed.success) {
    report("warning", "tool call failed", { tool: name, reason: "invalid arguments" });
    const issues = describeIssues(definition.input, tool.keyPaths, parsed.error.issues);
    return errorResult(
      redact(
        `${name}: invalid arguments, nothing was sent. Fix and call again:\n${issues}`,
        upstreams.settings,
      ),
    );
  }
  const started = performance.now();
  try {
    const body = structured(await upstreams.call(definition, parsed.data, context));
    report("debug", "tool call", { tool: name, ms: Math.round(performance.now() - started) });
    return structuredResult(body);
  } catch (error) {
    if (context.signal?.aborted) {
      // A cancelled request gets no answer; the log shows the upstream request was dropped.
      report("info", "tool call cancelled", { tool: name });
      throw error;
    }
    const { level, fields } = failureLog(error);
    report(level, "tool call failed", { tool: name, ...fields });
    return toolErrorResult(definition, error, upstreams.settings);
  }
}

/** Sends a notification on the call's own stream (over HTTP, the response stream the client reads). */
export type CallNotify = (notification: ServerNotification) => Promise<void>;

/** Progress notifications about retry waits, when the client gave a progressToken. */
function retryProgress(token: ProgressToken | undefined, notify: CallNotify) {
  if (token === undefined) return undefined;
  return (notice: RetryNotice) => {
    const params = { progressToken: token, progress: notice.attempt, total: notice.maxAttempts };
    notify({ method: "notifications/progress", params: { ...params, message: describeRetry(notice) } }).catch(
      () => {}, // a client gone mid-wait is handled by the abort signal
    );
  };
}

/** The parts of tools/call params a call uses, however the request reached us. */
export interface ToolCallParams {
  name: string;
  arguments?: Record<string, unknown>;
  _meta?: { progressToken?: ProgressToken };
}

/** What a call runs within: its session's tools and log, its abort signal and its notifications. */
export interface CallScope {
  enabled: ReadonlySet<string>;
  sessionLog: SessionLog;
  signal: CancelSignal;
  notify: CallNotify;
}

/** One tools/call: its progress and log entries go out through `notify`. */
export function answerToolCall(
  upstreams: Upstreams,
  params: ToolCallParams,
  { enabled, sessionLog, signal, notify }: CallScope,
): Promise<CallToolResult> {
  const onRetry = retryProgress(params._meta?.progressToken, notify);
  const report = sessionLog.reporter(notify);
  return callTool(upstreams, params.name, params.arguments, { signal, onRetry }, { enabled, report });
}
