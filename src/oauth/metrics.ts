// Sign-in counts for telemetry (docs/observability.md): a sign-in when consent issues a code, a refusal
// for each sign-in step turned down, labelled with one reason of the fixed list below (never a client
// id, a key or a token, so the label stays bounded).
import { count } from "../telemetry/index.js";
import { OAuthFailure } from "./clients.js";

/** The label a refusal's reason goes in. */
export const REASON_LABEL = "agent_workspace.oauth.reason";

export const REFUSAL_REASONS = [
  // GET /authorize: the request before the consent page.
  "unknown_client",
  "redirect_uri",
  "response_type",
  "pkce_challenge",
  "resource",
  "invalid_scope",
  // POST /authorize: the consent form.
  "csrf",
  "key_missing",
  "key_refused",
  "key_unchecked",
  "key_attempts",
  "denied",
  "consent_reused",
  // POST /token.
  "client_auth",
  "grant_type",
  "missing_parameter",
  "code_unknown",
  "code_reused",
  "code_client",
  "redirect_mismatch",
  "pkce_mismatch",
  "refresh_unknown",
  "refresh_reused",
  "refresh_client",
  "grant_revoked",
] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

/** A person's consent ended in a code sent back to the client. */
export function countSignin(): void {
  count("oauth.signin");
}

export function countRefusal(reason: RefusalReason): void {
  count("oauth.refusal", { [REASON_LABEL]: reason });
}

/** Counts a refused step and gives the failure to throw. */
export function refusal(
  reason: RefusalReason,
  error: string,
  description: string,
  status?: number,
): OAuthFailure {
  countRefusal(reason);
  return new OAuthFailure(error, description, status);
}
