// The consent's key step: the person's key checked with a real call to every API the server is
// configured for (its base URL set), whichever tools it serves, and the projects each shows the key.
// The scopes a sign-in can hold are those of the checked APIs that serve at least one tool.
import type { Dispatcher } from "undici";
import { UpstreamHttpError } from "../clients/errors.js";
import type { ApiName } from "../clients/http.js";
import { createUpstreams } from "../clients/index.js";
import type { UpstreamSettings } from "../config/types.js";
import { ENDPOINTS } from "../tools/register.js";
import type { Project } from "./consent-page.js";
import { type GrantCredentials, grantSettings, SCOPES, type Scope, scopeOf } from "./grant.js";

const MAX_PROJECTS_SHOWN = 200;
const CHECK_TIMEOUT_MS = 15_000;

/** The call that checks a key, per API, and where its answer lists projects. */
const CHECKS = [
  { api: "workspace", endpoint: ENDPOINTS.find((e) => e.name === "whoami"), rows: "projects" },
  { api: "analytics", endpoint: ENDPOINTS.find((e) => e.name === "geo_projects"), rows: "data" },
] as const;

/** Why a key was not taken, and what to tell the person. */
export interface KeyProblem {
  reason: "key_refused" | "key_unchecked";
  message: string;
}

export type SeenProjects = Record<ApiName, Project[]>;

/** The APIs this server can check a key with: those whose base URL is set. */
export function configuredApis(upstream: UpstreamSettings): ApiName[] {
  return CHECKS.filter(({ api }) =>
    api === "workspace" ? upstream.workspaceBaseUrl : upstream.analyticsBaseUrl,
  ).map(({ api }) => api);
}

const apiOf = (scope: Scope) => scope.slice(0, scope.indexOf(":")) as ApiName;

/** The scopes a sign-in can be given: of a configured API, with at least one tool served. */
export function offeredScopes(upstream: UpstreamSettings, serverTools: ReadonlySet<string>): Scope[] {
  const apis = configuredApis(upstream);
  return SCOPES.filter(
    (scope) =>
      apis.includes(apiOf(scope)) && ENDPOINTS.some((e) => serverTools.has(e.name) && scopeOf(e) === scope),
  );
}

/** Every configured API must accept the key; the projects each shows it, or what to tell the person. */
export async function checkKey(
  credentials: GrantCredentials,
  upstream: UpstreamSettings,
  dispatcher: Dispatcher,
): Promise<SeenProjects | KeyProblem> {
  const apis = configuredApis(upstream);
  if (apis.length === 0) {
    return { reason: "key_unchecked", message: "This server has no API set up to check the key with." };
  }
  const upstreams = createUpstreams({ ...upstream, ...grantSettings(credentials) }, dispatcher);
  const ask = async ({ api, endpoint, rows }: (typeof CHECKS)[number]): Promise<Project[] | KeyProblem> => {
    const named =
      api === "analytics" && !credentials.analyticsApiKey ? "analytics (with the workspace key)" : api;
    try {
      if (!endpoint) throw new Error(`no ${api} check`);
      const { value } = await upstreams.call(endpoint, {}, { signal: AbortSignal.timeout(CHECK_TIMEOUT_MS) });
      // A key counts as accepted only by an answer of the documented shape: an object with its list of
      // projects (whoami's `projects`, the projects list's `data`), not any 2xx JSON.
      const list = isObject(value) ? value[rows] : undefined;
      if (!Array.isArray(list)) {
        const message = `The ${named} API did not answer the key check as it should (no list of projects). Try again in a moment.`;
        return { reason: "key_unchecked", message };
      }
      return projectList(list);
    } catch (error) {
      if (error instanceof UpstreamHttpError && (error.status === 401 || error.status === 403)) {
        const message = `The ${named} API refused this key (${error.status}). Check it and try again.`;
        return { reason: "key_refused", message };
      }
      const message = `The ${named} API could not check the key just now. Try again in a moment.`;
      return { reason: "key_unchecked", message };
    }
  };
  const answers = await Promise.all(CHECKS.filter((c) => apis.includes(c.api)).map(ask));
  const problem = answers.find((answer): answer is KeyProblem => !Array.isArray(answer));
  if (problem) return problem;
  const seen: SeenProjects = { workspace: [], analytics: [] };
  apis.forEach((api, i) => {
    seen[api] = answers[i] as Project[];
  });
  return seen;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The key(s) a sign-in keeps, of those typed: only keys an API checks. With one API set up, the key for
 * the other is dropped (a key only the analytics API checks serves as the one key).
 */
export function keyFor(
  apis: readonly ApiName[],
  workspace: string,
  analytics: string,
): { workspace: string; analytics?: string } {
  const second = analytics && analytics !== workspace ? analytics : undefined;
  if (second && apis.includes("analytics") && !apis.includes("workspace")) return { workspace: second };
  return { workspace, ...(second && apis.includes("analytics") ? { analytics: second } : {}) };
}

function projectList(value: readonly unknown[]): Project[] {
  return value
    .filter((p): p is { id: string; name?: unknown } => isObject(p) && typeof p.id === "string")
    .slice(0, MAX_PROJECTS_SHOWN)
    .map((p) => ({ id: p.id, name: typeof p.name === "string" ? p.name : p.id }));
}
