// What a person grants a client, and the upstream settings a call made with that grant uses.
import type { UpstreamSettings } from "../config/types.js";

/** The credentials and choices behind a grant: sealed in every token and store record that holds them. */
export interface GrantCredentials {
  workspaceApiKey: string;
  /** Set only where it differs from the workspace key. */
  analyticsApiKey?: string;
  workspaceProjectId?: string;
  analyticsProjectId?: string;
  /** Whether the assistant may create data (tasks_comments); without it the write tools are not listed. */
  write: boolean;
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
