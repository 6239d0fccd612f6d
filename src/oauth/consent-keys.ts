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
      return projectList((value as Record<string, unknown> | undefined)?.[rows]);
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

function projectList(value: unknown): Project[] {
  if (!Array.isArray(value)) return [];
  return value
    .filter((p): p is { id: string; name?: unknown } => typeof p?.id === "string")
    .slice(0, MAX_PROJECTS_SHOWN)
    .map((p) => ({ id: p.id, name: typeof p.name === "string" ? p.name : p.id }));
}
