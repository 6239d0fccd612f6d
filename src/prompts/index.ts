// The prompts of a server: listed, rendered and completed only where every tool they use is enabled.
// prompts/get checks its arguments against what the key can see, so a wrong project is an error that
// lists the right ones; completion/complete fails soft (no values) whatever the upstream does.
import {
  type CompleteRequest,
  type CompleteResult,
  type GetPromptResult,
  type ListPromptsResult,
  ProtocolError,
  ProtocolErrorCode,
  type Server,
  type ServerContext,
} from "@modelcontextprotocol/server";
import type { Upstreams } from "../clients/index.js";
import { excerpt } from "../excerpt.js";
import { log } from "../log.js";
import { scopeOf } from "../oauth/grant.js";
import { callerOf } from "../tools/context.js";
import { failureLog, toolErrorResult } from "../tools/errors.js";
import { redact } from "../tools/key-scrub.js";
import { PREPARED_TOOLS } from "../tools/register.js";
import { sanitizeMessage, sanitizeText } from "../tools/sanitize.js";
import { PROMPTS, type PromptEnv, type PromptPlan, type PromptSpec } from "./definitions.js";
import { type Listing, LookupBeyondGrant, LookupFailure } from "./lookups.js";
import { PromptArgumentError } from "./resolve.js";
import { codeSpan, finalText, QUOTED_NAMES_ARE_DATA, visibleJson } from "./shown.js";

/** MCP's bound on the values of one completion answer. */
const MAX_VALUES = 100;
/** The longest argument value accepted: names and periods are short. */
const MAX_ARGUMENT_CHARS = 200;

/** The prompts whose tools are all among `tools`. */
export function enabledPrompts(tools: ReadonlySet<string>): PromptSpec[] {
  return PROMPTS.filter((prompt) => prompt.tools.every((tool) => tools.has(tool)));
}

function listOf(prompts: PromptSpec[]): ListPromptsResult {
  return {
    prompts: prompts.map(({ name, title, description, arguments: args }) => ({
      name,
      title,
      description,
      arguments: args.map(({ name, description, required }) => ({ name, description, required })),
    })),
  };
}

/**
 * The plan as the text the assistant reads: the steps numbered, each call with its exact arguments
 * (JSON in a code span, invisible characters escaped).
 */
export function renderPlan({ intro, steps, closing }: PromptPlan): string {
  const lines = steps.map(({ purpose, call }, index) => {
    // A period after the code span: a backtick that ends a line is written inert (inert.ts).
    const action = call ? ` call \`${call.tool}\` with ${codeSpan(visibleJson(call.args))}.` : "";
    return `${index + 1}. ${purpose}${action}`;
  });
  return [intro, QUOTED_NAMES_ARE_DATA, "", ...lines, "", closing].join("\n");
}

const invalid = (message: string) => new ProtocolError(ProtocolErrorCode.InvalidParams, message);

function findPrompt(prompts: PromptSpec[], name: string): PromptSpec {
  const prompt = prompts.find((candidate) => candidate.name === name);
  if (prompt) return prompt;
  const available = prompts.map((candidate) => candidate.name).join(", ");
  const offline = PROMPTS.find((candidate) => candidate.name === name);
  const why = offline
    ? ` is not offered: it needs the tools ${offline.tools.join(", ")} (see --toolsets, --tools)`
    : " does not exist";
  throw invalid(`Unknown prompt: "${excerpt(name, 60)}"${why}. Available: ${available}.`);
}

/** The arguments trimmed, empty ones dropped; an unknown, missing or overlong one is -32602. */
function checkArguments(prompt: PromptSpec, given: Record<string, string> = {}): Record<string, string> {
  const known = prompt.arguments.map((argument) => argument.name);
  const args: Record<string, string> = {};
  for (const [name, value] of Object.entries(given)) {
    if (!known.includes(name)) {
      throw invalid(`${prompt.name}: no argument "${excerpt(name, 40)}"; its arguments: ${known.join(", ")}`);
    }
    const trimmed = value.trim();
    if (trimmed.length > MAX_ARGUMENT_CHARS) {
      throw invalid(`${prompt.name}: ${name} is longer than ${MAX_ARGUMENT_CHARS} characters`);
    }
    if (trimmed) args[name] = trimmed;
  }
  const missing = prompt.arguments.filter((argument) => argument.required && !(argument.name in args));
  if (missing.length > 0) {
    const names = missing.map((argument) => argument.name).join(" and ");
    const what = missing.map((argument) => `${argument.name}: ${argument.description}`).join(" ");
    throw invalid(`${prompt.name} needs ${names}. ${what}`);
  }
  return args;
}

async function getPrompt(
  prompt: PromptSpec,
  given: Record<string, string> | undefined,
  env: PromptEnv,
): Promise<GetPromptResult> {
  const args = checkArguments(prompt, given);
  const sanitizing = env.upstreams.settings.sanitize !== "off";
  let plan: PromptPlan;
  try {
    plan = await prompt.plan(args, env);
  } catch (error) {
    if (error instanceof PromptArgumentError) {
      // Its message lists names from the API: sanitized like any text that quotes it.
      const message = sanitizing ? sanitizeMessage(error.message) : error.message;
      throw invalid(`${prompt.name}: ${message}`);
    }
    if (error instanceof LookupBeyondGrant) {
      throw invalid(
        `${prompt.name}: needs the scope ${scopeNeeded(error.tool)}, which this sign-in does not grant; sign in again and grant it`,
      );
    }
    if (error instanceof LookupFailure) {
      const { level, fields } = failureLog(error.cause);
      log(level, "prompt lookup failed", { prompt: prompt.name, tool: error.definition.name, ...fields });
      const explained = toolErrorResult(error.definition, error.cause, env.upstreams.settings);
      const text = explained.content[0]?.type === "text" ? explained.content[0].text : "";
      throw new ProtocolError(
        ProtocolErrorCode.InternalError,
        `${prompt.name}: could not check its arguments. ${text}`,
      );
    }
    throw error;
  }
  // Redacted first, then sanitized as a whole: a "[redacted]" must not become part of a link.
  const text = finalText(redact(renderPlan(plan), env.upstreams.settings), sanitizing);
  return { description: prompt.description, messages: [{ role: "user", content: { type: "text", text } }] };
}

/** The scope a tool's call needs. */
const scopeNeeded = (tool: string) => {
  const definition = PREPARED_TOOLS.get(tool)?.definition;
  return definition ? scopeOf(definition) : "unknown";
};

const NO_VALUES: CompleteResult = { completion: { values: [], total: 0, hasMore: false } };

/**
 * How long a completion waits for its listing: a person is typing. Past it the answer has no values,
 * and the lookup goes on to fill the cache for the next keystroke. Tests shorten it.
 */
export const completionWait = { ms: 2_000 };

/** The listing, or undefined when it is not there within completionWait (it then goes on alone). */
async function listingSoon(pending: Promise<Listing>): Promise<Listing | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(resolve, completionWait.ms, undefined);
  });
  try {
    const listing = await Promise.race([pending, late]);
    if (listing === undefined) pending.catch(() => {}); // its failure is the cache's to forget
    return listing;
  } finally {
    clearTimeout(timer);
  }
}

async function complete(
  prompts: PromptSpec[],
  params: CompleteRequest["params"],
  env: PromptEnv,
): Promise<CompleteResult> {
  // Resources have nothing to complete here.
  if (params.ref.type !== "ref/prompt") return NO_VALUES;
  const prompt = findPrompt(prompts, params.ref.name);
  const argument = prompt.arguments.find((candidate) => candidate.name === params.argument.name);
  if (!argument?.choices) return NO_VALUES;
  let listing: Listing | undefined;
  try {
    listing = await listingSoon(
      argument.choices(env, params.context?.arguments ?? {}, params.argument.value),
    );
  } catch (error) {
    if (error instanceof LookupBeyondGrant) return NO_VALUES; // nothing was sent
    const cause = error instanceof LookupFailure ? error.cause : error;
    const { fields } = failureLog(cause);
    log("warning", "completion lookup failed", { prompt: prompt.name, argument: argument.name, ...fields });
    return NO_VALUES;
  }
  if (listing === undefined) {
    log("debug", "completion lookup still running", { prompt: prompt.name, argument: argument.name });
    return NO_VALUES;
  }
  const typed = params.argument.value.trim().toLowerCase();
  const { settings } = env.upstreams;
  // A value is offered only as it is: one that redaction or sanitizing would change is left out, so
  // what the person picks is shown in full and names exactly one thing when it comes back.
  const sanitizing = settings.sanitize !== "off";
  const names = new Set(
    listing.items
      .map((item) => item.name)
      .filter(
        (name) =>
          name.toLowerCase().startsWith(typed) &&
          redact(name, settings) === name &&
          (!sanitizing || sanitizeText(name).text === name),
      ),
  );
  const values = [...names];
  const hasMore = values.length > MAX_VALUES || !listing.complete;
  return {
    completion: {
      values: values.slice(0, MAX_VALUES),
      ...(listing.complete ? { total: values.length } : {}),
      hasMore,
    },
  };
}

/**
 * Adds the prompts the server's tools allow, with completion of their arguments. A server left with
 * none declares neither capability, so prompts/list is then an unknown method.
 */
export function addPrompts(
  server: Server,
  upstreams: Upstreams,
  tools: ReadonlySet<string>,
  today?: string,
): void {
  const prompts = enabledPrompts(tools);
  if (prompts.length === 0) return;
  server.registerCapabilities({ prompts: { listChanged: false }, completions: {} });
  const list = listOf(prompts);
  // Periods end today: the clock's, or the sandbox's (its data stops there).
  const now = () => (today ? new Date(`${today}T12:00:00Z`) : new Date());
  const env = (ctx: ServerContext): PromptEnv => {
    const granted = callerOf(ctx).scopes;
    const permits = (tool: string) => granted === undefined || granted.has(scopeNeeded(tool));
    return { upstreams, enabled: tools, permits, now: now() };
  };
  server.setRequestHandler("prompts/list", () => list);
  server.setRequestHandler("prompts/get", (request, ctx) =>
    getPrompt(findPrompt(prompts, request.params.name), request.params.arguments, env(ctx)),
  );
  server.setRequestHandler("completion/complete", (request, ctx) =>
    complete(prompts, request.params, env(ctx)),
  );
}
