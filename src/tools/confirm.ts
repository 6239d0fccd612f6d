// Writes the person confirms (--confirm-writes): before a call to an endpoint that creates data is
// forwarded, the person is shown what would be sent and asked yes or no, through the client's
// elicitation. One path serves 2026-07-28 and the 2025 revisions: the handler returns an input-required result; on 2026-07-28
// the client asks and calls again with the answer, on a 2025 connection the SDK sends the
// elicitation/create request itself and calls the handler again with the answer.
import {
  type CallToolResult,
  type ClientCapabilities,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  type ServerContext,
} from "@modelcontextprotocol/server";
import type { Report } from "../log.js";
import { RateLimited } from "../state/rate-limit.js";
import * as telemetry from "../telemetry/index.js";
import { OWN } from "../telemetry/names.js";
import {
  CONFIRMATIONS_PER_ADDRESS,
  CONFIRMATIONS_PER_MINUTE,
  type ConfirmationSeal,
  type StateProblem,
  TooManyConfirmations,
} from "./confirm-state.js";
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
  /** Seals the states questions are sent with, and spends the ones answers bring back. */
  seal: ConfirmationSeal;
}

/** The key of the one question in the input-required result. */
const QUESTION = "confirm_write";
/** A confirmation longer than this is not asked: the person must be able to read all of it. */
export const MAX_CONFIRMATION_CHARS = 8000;
const SETTING = "MCP_CONFIRM_WRITES / --confirm-writes";

/** `declared`: the capabilities the client declared for this request (server.ts). */
export function confirmChannel(
  declared: ClientCapabilities | undefined,
  ctx: ServerContext,
  seal: ConfirmationSeal,
): ConfirmChannel {
  const state = ctx.mcpReq.requestState();
  return {
    declared,
    responses: ctx.mcpReq.inputResponses,
    state: typeof state === "string" ? state : undefined,
    seal,
  };
}

/** Whether the client can show a form: elicitation declared, with form mode (a bare declaration means form). */
function canAskForm(declared: ClientCapabilities | undefined): boolean {
  const elicitation = declared?.elicitation as { form?: object; url?: object } | undefined;
  return elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined);
}

/** Characters shown blank or not at all that the sanitizer's hidden set leaves to the text: written out too. */
const BLANK = /[\p{Zs}\p{Zl}\p{Zp}\p{Co}\p{Cn}\p{Cs}\u2800\uFFFC\u{1D159}]/gu;
const codePoint = (char: string) => `<U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}>`;

/**
 * The text with every invisible character written out as <U+XXXX>, and how many there were: the
 * characters the sanitizer removes from answers (sanitize.ts), and every other blank, private-use or
 * unassigned one but the plain space; a joiner inside an emoji or a word of a joining script, tab and
 * line breaks stay as they are.
 */
export function revealInvisible(text: string): { shown: string; hidden: number } {
  const { text: revealed, count } = replaceHidden(text, codePoint);
  let blanks = 0;
  const shown = revealed.replace(BLANK, (char) => {
    if (char === " ") return char;
    blanks += 1;
    return codePoint(char);
  });
  return { shown, hidden: count + blanks };
}

/** Runs of spaces, and of empty lines, long enough to push text out of sight: written out as their length. */
const LONG_SPACE = / {9,}/g;
const EMPTY_LINES = /\n(?:[ \t]*\n){3,}/g;

function revealLayout(text: string): string {
  return text
    .replace(LONG_SPACE, (run) => `<${run.length} spaces>`)
    .replace(EMPTY_LINES, (run) => `\n<${run.split("\n").length - 2} empty lines>\n`);
}

/** Characters that open or close Markdown or HTML inline: a value holding one is shown as a numbered block. */
const MARKDOWN_ACTIVE = /[\\`*_~[\]<>&|]/;

/**
 * A text as numbered lines inside a code fence: no line of it can close the fence (each starts with
 * its number), so a Markdown view shows it as typed, and a plain view cannot take a line of it for the
 * end of the question.
 */
function numberedBlock(text: string): string {
  const lines = text.split("\n");
  const width = String(lines.length).length;
  const numbered = lines.map((line, index) => `${String(index + 1).padStart(width)} │ ${line}`);
  return ["```", ...numbered, "```"].join("\n");
}

const count = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;

/** One argument as the person reads it: a short plain value inline, anything else as a numbered block. */
function describeArgument(key: string, value: unknown): { lines: string; hidden: number } {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  const { shown: revealed, hidden } = revealInvisible(text);
  const shown = revealLayout(revealed);
  const plain =
    shown.length <= 80 &&
    !shown.includes("\n") &&
    shown.trim() === shown &&
    shown !== "" &&
    !MARKDOWN_ACTIVE.test(shown);
  if (plain) return { lines: `${key}: ${shown}`, hidden };
  const size = `${count(text.length, "character")}, ${count(text.split("\n").length, "line")}`;
  const what = typeof value === "string" ? size : `JSON, ${size}`;
  return { lines: `${key} (${what}), line by line:\n${numberedBlock(shown)}`, hidden };
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
          `${hidden} invisible or blank character(s) are written out as <U+XXXX> above; they would be sent as they are.`,
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

/** Why an answer was not counted, for the log (the question is then asked again). */
const NOT_COUNTED: Record<Exclude<StateProblem, "used">, string> = {
  forged: "its state was not sealed by this server, or was altered",
  expired: "its question had expired",
  "other call": "it was given for other arguments",
  stale: "its question was asked before the state store lost its marks (restarted empty)",
};

/** The refusal when the client cannot carry a question to its person. */
function cannotAsk(name: string, channel: ConfirmChannel | undefined): CallToolResult {
  const why =
    channel?.declared === undefined
      ? "this connection cannot carry a question to the person (a 2025 client over HTTP without a session, as with --stateless)"
      : "this client did not declare the elicitation capability (form mode)";
  return notSent(
    name,
    `not sent. This server asks the person to confirm every call that creates data (${SETTING}), and ${why}. Tell the person; they can post it themselves, use a client that supports elicitation, or have the operator turn the setting off.`,
  );
}

/**
 * The person's answer, when the call brings one with a state this server sealed for exactly this
 * call, in time and never used: undefined to send, or the result to answer with. "ask" when there is
 * no answer that counts.
 */
async function answered(
  definition: EndpointDefinition,
  args: Record<string, unknown>,
  channel: ConfirmChannel,
  report: Report,
  defaultProject: string | undefined,
): Promise<CallToolResult | "ask" | undefined> {
  const { name } = definition;
  const answer = inputResponse(channel.responses, QUESTION);
  if (answer.kind !== "elicit") return "ask";
  let problem: StateProblem | undefined;
  try {
    problem = await channel.seal.spend(channel.state, name, args, defaultProject);
  } catch (error) {
    if (error instanceof RateLimited) return tooMany(name, error, report);
    report("error", "tool call refused", {
      tool: name,
      reason: "confirmation store failed",
      error: (error as Error).name,
    });
    return notSent(
      name,
      "not sent: the server could not record the person's answer. Call again in a moment; the person will be asked again.",
    );
  }
  if (problem === "used") {
    report("warning", "tool call refused", { tool: name, reason: "confirmation answer used before" });
    return notSent(
      name,
      "not sent again: this answer was given once already, and an answer counts for one call. If the person wants another, call again without it; they will be asked.",
    );
  }
  if (problem !== undefined) {
    report("warning", "write answer not counted", { tool: name, reason: NOT_COUNTED[problem] });
    return "ask";
  }
  report("info", "write answered", { tool: name, action: answer.action });
  telemetry.count("confirmation", { "gen_ai.tool.name": name, [OWN.answer]: answer.action });
  if (answer.action === "accept") return undefined;
  return declined(name, answer.action === "decline" ? "declined" : "cancelled");
}

/**
 * Holds a write until its person confirms it. Undefined: confirmed, send it as given. Otherwise the
 * result to answer with: the question (input required), the person's no, or a refusal when the client
 * cannot ask, the answer was used before, or the question would be too long to read.
 */
export async function holdForConfirmation(
  definition: EndpointDefinition,
  args: Record<string, unknown>,
  channel: ConfirmChannel | undefined,
  report: Report,
  defaultProject?: string,
): Promise<CallToolResult | InputRequiredResult | undefined> {
  const { name } = definition;
  // Whether the client can ask comes first: an answer from a client that cannot is never read.
  if (!channel || !canAskForm(channel.declared)) {
    report("warning", "tool call refused", { tool: name, reason: "client cannot confirm" });
    telemetry.count("confirmation", { "gen_ai.tool.name": name, [OWN.answer]: "cannot_ask" });
    return cannotAsk(name, channel);
  }
  const outcome = await answered(definition, args, channel, report, defaultProject);
  if (outcome !== "ask") return outcome;
  const message = confirmationText(definition, args, defaultProject);
  if (message.length > MAX_CONFIRMATION_CHARS) {
    report("warning", "tool call refused", { tool: name, reason: "confirmation too long" });
    return notSent(
      name,
      `not sent. The person confirms every call that creates data (${SETTING}) and must see all of it; shown, this one takes ${message.length} characters, more than the ${MAX_CONFIRMATION_CHARS} a confirmation holds. Shorten the text, or split it over several calls.`,
    );
  }
  let state: string;
  try {
    state = await channel.seal.seal(name, args, defaultProject);
  } catch (error) {
    if (error instanceof RateLimited) return tooMany(name, error, report);
    throw error;
  }
  report("info", "write awaits confirmation", { tool: name });
  return inputRequired({
    inputRequests: {
      [QUESTION]: inputRequired.elicit({ message, requestedSchema: { type: "object", properties: {} } }),
    },
    requestState: state,
  });
}

/** The answer past a key's (or an address's) confirmations per minute: when to try again, nothing sent. */
function tooMany(name: string, limited: RateLimited, report: Report): CallToolResult {
  const byAddress = limited instanceof TooManyConfirmations && limited.per === "address";
  report("warning", "tool call refused", {
    tool: name,
    reason: byAddress ? "too many confirmations from this address" : "too many confirmations",
  });
  const whose = byAddress
    ? `${CONFIRMATIONS_PER_ADDRESS} confirmations were asked or answered from this client's network address`
    : `${CONFIRMATIONS_PER_MINUTE} confirmations were asked or answered with this key`;
  return notSent(
    name,
    `not sent: more than ${whose} in the last minute. Try again in ${limited.retryAfterSeconds} seconds.`,
  );
}
