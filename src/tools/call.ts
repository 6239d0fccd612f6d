// The call path of every tool: check the arguments, forward them to the API, shape the answer.
// Whatever fails on the way becomes an `isError` result that says what to do next; only a call the
// protocol itself refuses (a tool this server does not have) is a JSON-RPC error.
import {
  type CallToolResult,
  type InputRequiredResult,
  ProtocolError,
  ProtocolErrorCode,
} from "@modelcontextprotocol/server";
import { audit } from "../audit.js";
import type { Upstreams } from "../clients/index.js";
import { GUID } from "../config/kinds.js";
import type { UpstreamSettings } from "../config/types.js";
import { scopeOf } from "../oauth/grant.js";
import * as telemetry from "../telemetry/index.js";
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
import { AnswerTooDeepError, sanitizeAnswer, sanitizeBody } from "./sanitize.js";
import { estimateTokens, fitsTokens } from "./tokens.js";
import { checkArguments } from "./validation.js";

/** A tool name is quoted back at most this long. */
const MAX_QUOTED_NAME = 100;

/** Shaping and sanitizing again with a smaller budget: this many tries for an answer that grew past it. */
const RESHAPES = 3;

function structuredResult(body: Record<string, unknown>, text: string): CallToolResult {
  if (telemetry.active?.recordsContent) telemetry.active.recordToolContent("result", text);
  return { content: [{ type: "text", text }], structuredContent: body };
}

/**
 * An answer as it leaves: the keys in use scrubbed first, so that `[redacted]` is text the sanitizer
 * judges like any other, then every string sanitized (sanitize.ts). Removing a hidden character can
 * join the pieces of a key: such an answer is scrubbed and sanitized once more.
 */
function cleanAnswer(
  answer: { body: Record<string, unknown>; text: string },
  settings: UpstreamSettings,
): { body: Record<string, unknown>; text: string } {
  const scrubbed = scrubKeys(answer.body, answer.text, settings);
  if (settings.sanitize === "off") return scrubbed;
  const clean = sanitizeAnswer(scrubbed.body, scrubbed.text);
  const again = scrubKeys(clean.body, clean.text, settings);
  if (again.text === clean.text) return clean;
  const body = sanitizeBody(again.body);
  return { body, text: JSON.stringify(body) };
}

/**
 * The answer in its form and budget, cut to length first and sanitized after, so that no cut reopens
 * what sanitizing closed. Escapes and the note lengthen it: one that no longer fits is shaped again
 * with a budget smaller by what it went over.
 */
function finalAnswer(
  definition: EndpointDefinition,
  body: Record<string, unknown>,
  text: string | undefined,
  args: Record<string, unknown>,
  settings: AnswerSettings,
  upstream: UpstreamSettings,
): Answer {
  let budget = settings.budget;
  let fallback: Answer | undefined;
  for (let attempt = 0; attempt <= RESHAPES; attempt++) {
    const shaped = shapeAnswer(definition, body, attempt === 0 ? text : undefined, args, {
      ...settings,
      budget,
    });
    if ("error" in shaped) return fallback ?? shaped;
    const clean = cleanAnswer(shaped, upstream);
    if (fitsTokens(clean.text, settings.budget)) return clean;
    fallback = clean;
    budget -= Math.max(estimateTokens(clean.text) - settings.budget, 0) + 8;
  }
  return fallback as Answer;
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

/** Why a write ended as it did, for its audit line: an outcome, and for a refusal a short reason. */
type WriteOutcome = { outcome: "ok" | "refused" | "failed" | "declined"; reason?: string };

/**
 * The audit line of a call that creates data: who (grant, client), the tool, the target (a task id,
 * only when it is one), and the outcome. Never the text, a key or a token.
 */
function auditWrite(
  definition: EndpointDefinition,
  args: Record<string, unknown> | undefined,
  context: CallContext,
  { outcome, reason }: WriteOutcome,
): void {
  if (definition.readOnly) return;
  const caller = context.caller ?? { client: "stdio" };
  const target = args?.task_id;
  audit("write", {
    ...(caller.grant !== undefined && { grant: caller.grant }),
    client: caller.client,
    tool: definition.name,
    ...(typeof target === "string" && GUID.test(target) && { target }),
    outcome,
    ...(reason !== undefined && { reason }),
  });
}

/** What a held write's answer means for its audit line (undefined: the question itself, not an outcome). */
function heldOutcome(held: CallToolResult | InputRequiredResult): WriteOutcome | undefined {
  if (!("content" in held)) return undefined;
  const decision = (held.structuredContent as { decision?: unknown } | undefined)?.decision;
  if (typeof decision === "string") return { outcome: "declined", reason: decision };
  return { outcome: "refused", reason: "not confirmed" };
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
    if (tool)
      auditWrite(tool.definition, rawArguments, context, { outcome: "refused", reason: "not enabled" });
    throw unknownTool(name, enabled);
  }
  const { definition, input } = tool;
  // The front door refuses such a call with 403 before it gets here (transports/http/beyond-grant.ts):
  // this holds wherever a call comes from, and sends nothing.
  const scope = scopeOf(definition);
  if (context.caller?.scopes && !context.caller.scopes.has(scope)) {
    report("warning", "tool call refused", { tool: name, reason: "insufficient_scope" });
    auditWrite(definition, rawArguments, context, { outcome: "refused", reason: "insufficient_scope" });
    return errorResult(
      `${name}: not sent. It needs the scope ${scope}, which this sign-in does not grant; sign in again and grant it.`,
    );
  }
  const parsed = checkArguments(input, tool.keyPaths, rawArguments ?? {});
  if (!parsed.success) {
    report("warning", "tool call failed", { tool: name, reason: "invalid arguments" });
    auditWrite(definition, rawArguments, context, { outcome: "refused", reason: "invalid arguments" });
    return errorResult(
      redact(
        `${name}: invalid arguments, nothing was sent. Fix and call again:\n${parsed.problems}`,
        upstreams.settings,
      ),
    );
  }
  const { response_format, ...forwarded } = parsed.data as { response_format?: ResponseFormat };
  // Opt-in (--trace-content): the arguments on the call's span, any key in them redacted.
  if (telemetry.active?.recordsContent) {
    telemetry.active.recordToolContent("arguments", redact(JSON.stringify(forwarded), upstreams.settings));
  }
  if (upstreams.settings.confirmWrites && !definition.readOnly) {
    const { workspaceProjectId, analyticsProjectId } = upstreams.settings;
    const defaultProject = definition.api === "workspace" ? workspaceProjectId : analyticsProjectId;
    const held = await holdForConfirmation(definition, forwarded, context.confirm, report, defaultProject);
    if (held) {
      const outcome = heldOutcome(held);
      if (outcome) auditWrite(definition, forwarded, context, outcome);
      return held;
    }
  }
  const started = performance.now();
  let sent = false;
  try {
    const { value, text } = await upstreams.call(definition, forwarded, context);
    sent = true;
    auditWrite(definition, forwarded, context, { outcome: "ok" });
    report("debug", "tool call", { tool: name, ms: Math.round(performance.now() - started) });
    // MCP wants an object: any other JSON is wrapped once (and its own text no longer fits it).
    const body = isObject(value) ? value : Array.isArray(value) ? { items: value } : { value };
    const settings = answerSettings(upstreams.settings, response_format);
    const answer = finalAnswer(
      definition,
      body,
      body === value ? text : undefined,
      parsed.data,
      settings,
      upstreams.settings,
    );
    if ("error" in answer) return errorResult(answer.error);
    if (answer.body.sanitized !== undefined) telemetry.count("sanitized", { "gen_ai.tool.name": name });
    return structuredResult(answer.body, answer.text);
  } catch (error) {
    if (!sent) {
      const { fields } = failureLog(error);
      const reason = context.signal?.aborted
        ? "cancelled"
        : String(fields.status ?? fields.reason ?? fields.network ?? fields.missing ?? "error");
      auditWrite(definition, forwarded, context, { outcome: "failed", reason });
    }
    if (error instanceof AnswerTooDeepError) {
      report("warning", "tool call failed", { tool: name, reason: "answer too deep" });
      return errorResult(
        `${name}: ${error.message}, so nothing of it is shown. Narrow the arguments, or ask the server's operator about the API's answer.`,
      );
    }
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
