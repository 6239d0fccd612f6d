// Which OAuth scopes a server's tools and prompts need: what the metadata offers, what a sign-in asks
// for first, and what a call beyond a grant lacks.
import { PROMPTS } from "../prompts/definitions.js";
import { ENDPOINTS } from "../tools/register.js";
import { SCOPES, type Scope, scopeOf } from "./grant.js";

const TOOL_SCOPES: ReadonlyMap<string, Scope> = new Map(
  ENDPOINTS.map((endpoint) => [endpoint.name, scopeOf(endpoint)]),
);

/** The scope a tool's call needs (undefined for a name that is no tool). */
export const toolScope = (name: string): Scope | undefined => TOOL_SCOPES.get(name);

/** In SCOPES' order, each once. */
const ordered = (scopes: Iterable<Scope>): Scope[] => {
  const set = new Set(scopes);
  return SCOPES.filter((scope) => set.has(scope));
};

/**
 * The scopes a prompt's lookups and steps need: those of every tool it uses. Undefined for a prompt
 * that does not exist or that `served` does not offer (one of its tools is not served).
 */
export function promptScopes(name: string, served: () => ReadonlySet<string>): Scope[] | undefined {
  const prompt = PROMPTS.find((candidate) => candidate.name === name);
  if (!prompt?.tools.every((tool) => served().has(tool))) return undefined;
  return ordered(prompt.tools.flatMap((tool) => TOOL_SCOPES.get(tool) ?? []));
}

/** The scopes that mean something on a server serving these tools (scopes_supported). */
export const servedScopes = (tools: ReadonlySet<string>): Scope[] =>
  ordered([...tools].flatMap((tool) => TOOL_SCOPES.get(tool) ?? []));

/**
 * What a first sign-in asks for (the 401 challenge's scope): reading what the server serves. Writing
 * is asked for when a call needs it (403 insufficient_scope), so a sign-in starts with least privilege.
 */
export const signInScopes = (tools: ReadonlySet<string>): Scope[] =>
  servedScopes(tools).filter((scope) => scope !== "workspace:write");

/** The scopes of `needed` a grant lacks. */
export const missingScopes = (needed: readonly Scope[], granted: readonly Scope[]): Scope[] =>
  needed.filter((scope) => !granted.includes(scope));

export { ordered as orderedScopes };
