// What a person grants a client, and the upstream settings a call made with that grant uses.
import type { ApiName } from "../clients/http.js";
import type { UpstreamSettings } from "../config/types.js";

/**
 * OAuth scopes: one per API for reading, and one for the workspace writes (tasks_comments), the only
 * tool that creates data. A person can grant reading without writing, or one API without the other.
 */
export const SCOPES = ["workspace:read", "workspace:write", "analytics:read"] as const;
export type Scope = (typeof SCOPES)[number];

/** The scope a tool's call needs. */
export function scopeOf(endpoint: { api: ApiName; readOnly: boolean }): Scope {
  if (endpoint.api === "analytics") return "analytics:read";
  return endpoint.readOnly ? "workspace:read" : "workspace:write";
}

/** The credentials and choices behind a grant: sealed in every token and store record that holds them. */
export interface GrantCredentials {
  workspaceApiKey: string;
  /** Set only where it differs from the workspace key. */
  analyticsApiKey?: string;
  workspaceProjectId?: string;
  analyticsProjectId?: string;
  /** What the grant's calls may do; a call beyond them is refused before anything is sent. */
  scopes: Scope[];
}

/** A request authorized by an access token: which grant, and what its calls send upstream. */
export interface AuthorizedGrant {
  grantId: string;
  clientId: string;
  credentials: GrantCredentials;
}

/** The upstream settings a grant's calls use: exactly that person's keys and projects, nothing of another's. */
export function grantSettings(credentials: GrantCredentials): Partial<UpstreamSettings> {
  return {
    workspaceApiKey: credentials.workspaceApiKey,
    analyticsApiKey: credentials.analyticsApiKey ?? credentials.workspaceApiKey,
    apiKeySource: "header",
    workspaceProjectId: credentials.workspaceProjectId,
    analyticsProjectId: credentials.analyticsProjectId,
    // The operator's default workspace is not the person's: their key's own default applies.
    workspaceId: undefined,
  };
}
