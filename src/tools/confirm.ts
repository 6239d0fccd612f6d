// Writes the person confirms (--confirm-writes): before a call to an endpoint that creates data is
// forwarded, the person is shown what would be sent and asked yes or no, through the client's
// elicitation. One path serves 2026-07-28 and the 2025 revisions: the handler returns an input-required result; on 2026-07-28
// the client asks and calls again with the answer, on a 2025 connection the SDK sends the
// elicitation/create request itself and calls the handler again with the answer.
import { createHash } from "node:crypto";
import {
  type CallToolResult,
  type ClientCapabilities,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  type ServerContext,
} from "@modelcontextprotocol/server";
import type { Report } from "../log.js";
import type { EndpointDefinition } from "./definition.js";
import { replaceHidden } from "./sanitize.js";

/** What a call knows about asking its person: whether the client can, and what came back. */
export interface ConfirmChannel {
  /** The client's declared capabilities: the request's own (2026-07-28) or its session's (2025); none on a 2025 request without a session. */
  declared?: ClientCapabilities;
  /** The answers a call carries when it comes back after a question. */
  responses?: Record<string, unknown>;
  /** The state the question was sent with, echoed back by the client. */
  state?: string;
}

/** The key of the one question in the input-required result. */
const QUESTION = "confirm_write";
/** A confirmation longer than this is not asked: the person must be able to read all of it. */
export const MAX_CONFIRMATION_CHARS = 8000;
const SETTING = "MCP_CONFIRM_WRITES / --confirm-writes";

/** `declared`: the capabilities the client declared for this request (server.ts). */
export function confirmChannel(declared: ClientCapabilities | undefined, ctx: ServerContext): ConfirmChannel {
  const state = ctx.mcpReq.requestState();
  return {
    declared,
    responses: ctx.mcpReq.inputResponses,
    state: typeof state === "string" ? state : undefined,
  };
}

/** Whether the client can show a form: elicitation declared, with form mode (a bare declaration means form). */
function canAskForm(declared: ClientCapabilities | undefined): boolean {
  const elicitation = declared?.elicitation as { form?: object; url?: object } | undefined;
  return elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined);
}

/**
 * Ties an answer to the exact arguments it was given for: a call that comes back with other arguments
 * is asked again. Not a secret: a client able to forge it could as well answer "accept" itself.
 */
function argumentsDigest(name: string, args: Record<string, unknown>): string {
  return `confirm:${createHash("sha256")
    .update(JSON.stringify([name, args]))
    .digest("base64url")}`;
}

/**
 * The text with every invisible character written out as <U+XXXX>, and how many there were: the
 * characters the sanitizer removes from answers (sanitize.ts), so a joiner inside an emoji or a word of
 * a joining script, tab and line breaks stay as they are.
 */
export function revealInvisible(text: string): { shown: string; hidden: number } {
  const { text: shown, count } = replaceHidden(
    text,
    (char) => `<U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}>`,
  );
  return { shown, hidden: count };
}

/** One argument as the person reads it: short single-line text inline, other text as a block. */
function describeArgument(key: string, value: unknown): { lines: string; hidden: number } {
  if (typeof value !== "string") return { lines: `${key}: ${JSON.stringify(value)}`, hidden: 0 };
  const { shown, hidden } = revealInvisible(value);
  if (shown.length <= 80 && !shown.includes("\n") && shown.trim() === shown && shown !== "") {
    return { lines: `${key}: ${shown}`, hidden };
  }
  return { lines: `${key} (${value.length} characters, between the lines):\n────\n${shown}\n────`, hidden };
}

/** The question the person is shown: what the call does, and every argument it would send. */
export function confirmationText(
  definition: EndpointDefinition,
  args: Record<string, unknown>,
  defaultProject?: string,
): string {
  const described = Object.entries(args)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => describeArgument(key, value));
  const hidden = described.reduce((sum, { hidden }) => sum + hidden, 0);
  const title = definition.title.charAt(0).toLowerCase() + definition.title.slice(1);
  const defaults =
    definition.projectScoped && args.project_id === undefined
      ? [`project_id not given: ${defaultProject ?? "the only project the key can see"}, the default.`]
      : [];
  return [
    `The assistant asks to ${title} (${definition.name}). Nothing is sent unless you accept; it is sent exactly as shown.`,
    "",
    ...described.map(({ lines }) => lines),
    ...defaults,
    ...(hidden > 0
      ? [
          `${hidden} invisible character(s) are written out as <U+XXXX> above; they would be sent as they are.`,
        ]
      : []),
  ].join("\n");
}

const notSent = (name: string, text: string): CallToolResult => ({
  content: [{ type: "text", text: `${name}: ${text}` }],
  isError: true,
});

/** The answer when the person says no: not an error to work around, a decision to respect. */
function declined(name: string, decision: "declined" | "cancelled"): CallToolResult {
  const what =
    decision === "declined"
      ? "the person declined this call"
      : "the person closed the confirmation without answering";
  const text = `${name}: ${what}; nothing was sent. Do not call again unless they ask you to.`;
  return { content: [{ type: "text", text }], structuredContent: { sent: false, decision } };
}

/**
 * Holds a write until its person confirms it. Undefined: confirmed, send it as given. Otherwise the
 * result to answer with: the question (input required), the person's no, or a refusal when the
 * client cannot ask or the question would be too long to read.
 */
export function holdForConfirmation(
  definition: EndpointDefinition,
  args: Record<string, unknown>,
  channel: ConfirmChannel | undefined,
  report: Report,
  defaultProject?: string,
): CallToolResult | InputRequiredResult | undefined {
  const { name } = definition;
  const digest = argumentsDigest(name, args);
  const answer = inputResponse(channel?.responses, QUESTION);
  if (answer.kind === "elicit" && channel?.state === digest) {
    report("info", "write answered", { tool: name, action: answer.action });
    if (answer.action === "accept") return undefined;
    return declined(name, answer.action === "decline" ? "declined" : "cancelled");
  }
  if (!canAskForm(channel?.declared)) {
    report("warning", "tool call refused", { tool: name, reason: "client cannot confirm" });
    const why =
      channel?.declared === undefined
        ? "this connection cannot carry a question to the person (a 2025 client over HTTP without a session, as with --stateless)"
        : "this client did not declare the elicitation capability (form mode)";
    return notSent(
      name,
      `not sent. This server asks the person to confirm every call that creates data (${SETTING}), and ${why}. Tell the person; they can post it themselves, use a client that supports elicitation, or have the operator turn the setting off.`,
    );
  }
  const message = confirmationText(definition, args, defaultProject);
  if (message.length > MAX_CONFIRMATION_CHARS) {
    report("warning", "tool call refused", { tool: name, reason: "confirmation too long" });
    return notSent(
      name,
      `not sent. The person confirms every call that creates data (${SETTING}) and must see all of it; shown, this one takes ${message.length} characters, more than the ${MAX_CONFIRMATION_CHARS} a confirmation holds. Shorten the text, or split it over several calls.`,
    );
  }
  report("info", "write awaits confirmation", { tool: name });
  return inputRequired({
    inputRequests: {
      [QUESTION]: inputRequired.elicit({ message, requestedSchema: { type: "object", properties: {} } }),
    },
    requestState: digest,
  });
}
