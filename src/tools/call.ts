// The call path of every tool: check the arguments, forward them to the API, shape the answer.
// Whatever fails on the way becomes an `isError` result that says what to do next; only a call the
// protocol itself refuses (a tool this server does not have) is a JSON-RPC error.
import {
  type CallToolResult,
  type InputRequiredResult,
  ProtocolError,
  ProtocolErrorCode,
} from "@modelcontextprotocol/server";
import type { Upstreams } from "../clients/index.js";
import type { UpstreamSettings } from "../config/types.js";
import {
  type Answer,
  type AnswerSettings,
  answerSettings,
  isObject,
  type ResponseFormat,
  shapeAnswer,
} from "./answers.js";
import { holdForConfirmation } from "./confirm.js";
import type { CallContext } from "./context.js";
import type { EndpointDefinition } from "./definition.js";
import { errorResult, failureLog, toolErrorResult } from "./errors.js";
import { redact, scrubKeys } from "./key-scrub.js";
import { PREPARED_TOOLS } from "./register.js";
import { sanitizeAnswer, sanitizeBody } from "./sanitize.js";
import { estimateTokens, fitsTokens } from "./tokens.js";
import { checkArguments } from "./validation.js";

/** A tool name is quoted back at most this long. */
const MAX_QUOTED_NAME = 100;

/** The body as a text block and as structuredContent, scrubbed of the keys in use. */
function structuredResult(
  body: Record<string, unknown>,
  text: string,
  settings: UpstreamSettings,
): CallToolResult {
  const scrubbed = scrubKeys(body, text, settings);
  return { content: [{ type: "text", text: scrubbed.text }], structuredContent: scrubbed.body };
}

/**
 * The shaped answer with every string sanitized (sanitize.ts). Escapes and the note lengthen it: one
 * that no longer fits its budget is shaped again from the sanitized upstream body, with room for the note.
 */
function sanitizedAnswer(
  answer: { body: Record<string, unknown>; text: string },
  definition: EndpointDefinition,
  upstreamBody: Record<string, unknown>,
  args: Record<string, unknown>,
  settings: AnswerSettings,
): { body: Record<string, unknown>; text: string } {
  const clean = sanitizeAnswer(answer.body, answer.text);
  if (clean.note === undefined || fitsTokens(clean.text, settings.budget)) return clean;
  const room = estimateTokens(JSON.stringify({ sanitized: clean.note }));
  const budget = { ...settings, budget: settings.budget - room };
  const again: Answer = shapeAnswer(definition, sanitizeBody(upstreamBody), undefined, args, budget);
  if ("error" in again) return clean;
  const body = { ...again.body, sanitized: clean.note };
  return { body, text: JSON.stringify(body) };
}

/**
 * -32602 for a tool this server does not offer, as the specification asks of every revision, naming
 * the tools it does offer so that the assistant can pick one.
 */
function unknownTool(name: string, enabled: ReadonlySet<string>): ProtocolError {
  const quoted = name.length > MAX_QUOTED_NAME ? `${name.slice(0, MAX_QUOTED_NAME)}…` : name;
  const known = PREPARED_TOOLS.has(name)
    ? " is not enabled on this server (see its --toolsets, --tools and --read-only settings)"
    : " does not exist";
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `Unknown tool: "${quoted}"${known}. Available: ${[...enabled].join(", ")}.`,
  );
}

export async function callTool(
  upstreams: Upstreams,
  name: string,
  rawArguments: Record<string, unknown> | undefined,
  context: CallContext,
): Promise<CallToolResult | InputRequiredResult> {
  const { enabled, report } = context;
  const tool = PREPARED_TOOLS.get(name);
  if (!tool || !enabled.has(name)) {
    report("warning", "tool call refused", {
      tool: name.slice(0, MAX_QUOTED_NAME),
      reason: tool ? "not enabled" : "unknown",
    });
    throw unknownTool(name, enabled);
  }
  const { definition, input } = tool;
  const parsed = checkArguments(input, tool.keyPaths, rawArguments ?? {});
  if (!parsed.success) {
    report("warning", "tool call failed", { tool: name, reason: "invalid arguments" });
    return errorResult(
      redact(
        `${name}: invalid arguments, nothing was sent. Fix and call again:\n${parsed.problems}`,
        upstreams.settings,
      ),
    );
  }
  const { response_format, ...forwarded } = parsed.data as { response_format?: ResponseFormat };
  if (upstreams.settings.confirmWrites && !definition.readOnly) {
    const { workspaceProjectId, analyticsProjectId } = upstreams.settings;
    const defaultProject = definition.api === "workspace" ? workspaceProjectId : analyticsProjectId;
    const held = holdForConfirmation(definition, forwarded, context.confirm, report, defaultProject);
    if (held) return held;
  }
  const started = performance.now();
  try {
    const { value, text } = await upstreams.call(definition, forwarded, context);
    report("debug", "tool call", { tool: name, ms: Math.round(performance.now() - started) });
    // MCP wants an object: any other JSON is wrapped once (and its own text no longer fits it).
    const body = isObject(value) ? value : Array.isArray(value) ? { items: value } : { value };
    const settings = answerSettings(upstreams.settings, response_format);
    const answer = shapeAnswer(definition, body, body === value ? text : undefined, parsed.data, settings);
    if ("error" in answer) return errorResult(answer.error);
    const shown =
      upstreams.settings.sanitize === "off"
        ? answer
        : sanitizedAnswer(answer, definition, body, parsed.data, settings);
    return structuredResult(shown.body, shown.text, upstreams.settings);
  } catch (error) {
    if (context.signal?.aborted) {
      // The SDK sends no answer to a cancelled request; the log shows the upstream request was dropped.
      report("info", "tool call cancelled", { tool: name });
      throw error;
    }
    const { level, fields } = failureLog(error);
    report(level, "tool call failed", { tool: name, ...fields });
    return toolErrorResult(definition, error, upstreams.settings);
  }
}
