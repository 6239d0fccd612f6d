// The one place that reads a request's headers to shape its server. Per-user upstream credentials:
// X-API-KEY, X-Project-Id and X-Workspace-Id override the environment's key and default project and
// workspace. Tool selection: X-MCP-Toolsets, X-MCP-Tools and X-MCP-Read-Only narrow the server's tools.
import { createHash } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import type { Server } from "@modelcontextprotocol/server";
import type { Dispatcher } from "undici";
import { createUpstreams } from "../../clients/index.js";
import { ImpliedProjectCache } from "../../clients/project-cache.js";
import { GUID } from "../../config/kinds.js";
import { ConfigError, type UpstreamSettings } from "../../config/types.js";
import { grantSettings } from "../../oauth/grant.js";
import { buildServer, type ServerOptions } from "../../server.js";
import { sessionTools } from "../../tools/selection.js";
import type { Who } from "./credentials.js";
import { HttpProblem, RpcCode } from "./replies.js";

export interface RequestServer {
  /**
   * A digest of every header that shapes the server: a session is bound to the one it was opened with,
   * and refuses a request whose headers would make a different server (another user's key, say).
   * Computed on first read: the stateless mode never needs it.
   */
  readonly identity: string;
  /** The raw values of those headers: equal values always make an equal identity, without a digest. */
  readonly shapingHeaders: string;
  /** A digest of the API key the server calls with (a user's X-API-KEY, else the environment's). */
  readonly keyDigest: string;
  /** The tools this request's server offers (the server's, narrowed by X-MCP-* headers). */
  readonly tools: ReadonlySet<string>;
  build(): Server;
}

/**
 * Throws a 400 HttpProblem for a malformed header. `who` (credentials.ts) names the key: a grant's keys
 * and projects replace X-Project-Id and X-Workspace-Id too.
 */
export type ServerForRequest = (headers: IncomingHttpHeaders, who: Who) => RequestServer;

/**
 * Set by the HTTP transport itself (never taken from a client) on a request signed in by OAuth: the
 * grant's id, so that a session opened under one grant refuses requests of any other.
 */
export const GRANT_HEADER = "x-mcp-oauth-grant";

/** Every header that shapes a request's server (userOverrides and sessionTools read only these). */
export const SHAPING_HEADERS = [
  GRANT_HEADER,
  "x-api-key",
  "x-project-id",
  "x-workspace-id",
  "x-mcp-toolsets",
  "x-mcp-tools",
  "x-mcp-read-only",
];

/** The raw values of the shaping headers, as one string to compare. */
export function shapingHeadersOf(headers: IncomingHttpHeaders): string {
  return SHAPING_HEADERS.map((name) => JSON.stringify(headers[name] ?? null)).join(",");
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const raw = headers[name];
  const value = (Array.isArray(raw) ? raw[0] : raw)?.trim();
  return value ? value : undefined;
}

function uuidHeader(headers: IncomingHttpHeaders, name: string, label: string): string | undefined {
  const value = headerValue(headers, name);
  if (value !== undefined && !GUID.test(value)) {
    // The value is not echoed: a key pasted into the wrong header must not come back in a response.
    throw new HttpProblem(
      400,
      RpcCode.invalidRequest,
      `Bad Request: the ${label} header must be a uuid (8-4-4-4-12 hex digits)`,
    );
  }
  return value;
}

/**
 * The settings a request overrides: the key `who` names (credentials.ts decided it, from headers read
 * once and normalized), and the projects of X-Project-Id and X-Workspace-Id. The environment's key is
 * left in place only for the shared token without X-API-KEY and for a server that requires nothing.
 */
export function userOverrides(headers: IncomingHttpHeaders, who: Who): Partial<UpstreamSettings> {
  if (who.via === "grant") return grantSettings(who.grant.credentials);
  const projectId = uuidHeader(headers, "x-project-id", "X-Project-Id");
  const workspaceId = uuidHeader(headers, "x-workspace-id", "X-Workspace-Id");
  const overrides: Partial<UpstreamSettings> = {};
  const apiKey = who.via === "environment" ? undefined : who.apiKey;
  if (apiKey)
    Object.assign(overrides, { workspaceApiKey: apiKey, analyticsApiKey: apiKey, apiKeySource: "header" });
  if (projectId) overrides.workspaceProjectId = projectId;
  if (workspaceId) overrides.workspaceId = workspaceId;
  return overrides;
}

/** The tools these headers leave of the server's; a malformed or unknown name is a 400 naming the header. */
function toolsFor(headers: IncomingHttpHeaders, serverTools: ReadonlySet<string>): ReadonlySet<string> {
  try {
    return sessionTools(headers, serverTools);
  } catch (error) {
    if (error instanceof ConfigError) {
      throw new HttpProblem(400, RpcCode.invalidRequest, `Bad Request: ${error.message}`);
    }
    throw error;
  }
}

/**
 * Servers built per session (stateful) or per request (stateless) from the environment's settings and
 * the request's headers. All of them share one connection pool and one cache of implied projects.
 */
export function perUserServers(
  env: UpstreamSettings,
  dispatcher: Dispatcher,
  serverTools: ReadonlySet<string>,
  options: Omit<ServerOptions, "tools"> = {},
): ServerForRequest {
  const impliedProjects = new ImpliedProjectCache();
  return (headers, who) => {
    const overrides = userOverrides(headers, who);
    // Every served tool is listed whatever a grant allows: a call beyond it gets 403 insufficient_scope
    // (server.ts), on which a client can ask for more.
    const tools = toolsFor(headers, serverTools);
    let identity: string | undefined;
    let keyDigest: string | undefined;
    return {
      get identity() {
        identity ??= createHash("sha256")
          .update(JSON.stringify([who.via, overrides, [...tools]]))
          .digest("hex");
        return identity;
      },
      get keyDigest() {
        const settings = { ...env, ...overrides };
        keyDigest ??= createHash("sha256")
          .update(JSON.stringify([settings.workspaceApiKey ?? null, settings.analyticsApiKey ?? null]))
          .digest("hex");
        return keyDigest;
      },
      shapingHeaders: shapingHeadersOf(headers),
      tools,
      build: () =>
        buildServer(createUpstreams({ ...env, ...overrides }, dispatcher, impliedProjects), {
          ...options,
          tools,
        }),
    };
  };
}

/**
 * Settings no user can supply: without them no call can succeed. The key is not among them, since
 * a hosted server may leave it to each user's X-API-KEY. Names only, never values.
 */
export function missingSettings(env: UpstreamSettings): string[] {
  const missing: string[] = [];
  if (!env.workspaceBaseUrl) missing.push("WORKSPACE_BASE_URL");
  if (!env.analyticsBaseUrl) missing.push("ANALYTICS_BASE_URL");
  return missing;
}
