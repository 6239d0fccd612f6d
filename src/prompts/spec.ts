// What a prompt is (its arguments, the tools it needs, the plan it renders) and the argument choices
// the prompts share: projects, periods, and names within the project typed so far.
import type { Upstreams } from "../clients/index.js";
import { type Listing, LOOKUPS, LookupBeyondGrant, type LookupSpec, lookupCache } from "./lookups.js";
import { findNamed } from "./resolve.js";
import { quoted } from "./shown.js";

/** A call the assistant is asked to make. */
export interface ToolStep {
  tool: string;
  args: Record<string, unknown>;
}

/** One numbered step: what it is for, and the call that does it (none for a step already done). */
export interface Step {
  purpose: string;
  call?: ToolStep;
}

export interface PromptPlan {
  intro: string;
  steps: Step[];
  closing: string;
}

/** What a prompt's lookups and dates depend on. */
export interface PromptEnv {
  upstreams: Upstreams;
  /** The server's tools: a lookup through a tool that is not among them completes nothing. */
  enabled: ReadonlySet<string>;
  /** Whether the caller's grant allows a call of this tool: a lookup beyond it sends nothing. */
  permits: (tool: string) => boolean;
  now: Date;
}

/** A listing through `spec`'s tool, or LookupBeyondGrant, with nothing sent, when the grant does not allow it. */
export const lookUp = (env: PromptEnv, spec: LookupSpec): Promise<Listing> =>
  env.permits(spec.tool)
    ? lookupCache.get(env.upstreams, spec)
    : Promise.reject(new LookupBeyondGrant(spec.tool));

/** Text from the API or the person, as the message shows it (shown.ts): sanitized unless --sanitize off. */
export const show = (env: PromptEnv, text: string) => quoted(text, env.upstreams.settings.sanitize !== "off");

export interface PromptArgumentSpec {
  name: string;
  description: string;
  required: boolean;
  /** The values this argument can take, given the others typed so far (names, not ids). */
  choices?: (env: PromptEnv, others: Record<string, string>, typed?: string) => Promise<Listing>;
}

export interface PromptSpec {
  name: string;
  title: string;
  description: string;
  arguments: PromptArgumentSpec[];
  /** Every tool the prompt calls or looks up with: it is offered only where all of them are. */
  tools: readonly string[];
  plan(args: Record<string, string>, env: PromptEnv): Promise<PromptPlan>;
}

export const listingOf = (values: string[]): Listing => ({
  items: values.map((value) => ({ id: value, name: value })),
  complete: true,
});

/** The analytics project an argument names, or the configured default when it names none. */
export async function analyticsProjectId(
  env: PromptEnv,
  given: string | undefined,
): Promise<string | undefined> {
  if (!given) return env.upstreams.settings.analyticsProjectId;
  const found = findNamed(await lookUp(env, LOOKUPS.analyticsProjects()), given);
  return found.length === 1 ? found[0]?.id : undefined;
}

/** Names within the analytics project the `project` argument names so far (or the default one). */
export const withinProject =
  (lookup: (projectId: string) => LookupSpec) =>
  async (env: PromptEnv, others: Record<string, string>): Promise<Listing> => {
    const projectId = await analyticsProjectId(env, others.project);
    if (!projectId) return { items: [], complete: true };
    const spec = lookup(projectId);
    return env.enabled.has(spec.tool) ? lookUp(env, spec) : { items: [], complete: true };
  };
