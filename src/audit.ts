// One structured log line per event an operator audits: a write, a person's consent, a sign-in (the
// grant made) or its refusal, a reused refresh token, a revocation. Ids and outcomes only: never a key, a token, or text a person wrote.
import { log } from "./log.js";

/**
 * `consent`: a person allowed a client (a code issued); `signin`: that code exchanged, a grant made;
 * `revocation`: a grant ended (or a revocation asked of one not the caller's, or unknown).
 */
export type AuditEvent = "write" | "consent" | "signin" | "signin_refused" | "refresh_reuse" | "revocation";

export interface AuditFields {
  /** The grant the event belongs to (OAuth), when there is one. */
  grant?: string;
  /** The OAuth client, or "api-key"/"shared-token"/"environment" for requests that signed in otherwise. */
  client?: string;
  tool?: string;
  /** The id the event acted on (a task, a comment), never its text. */
  target?: string;
  /** OAuth scopes, space-separated as OAuth writes them (a sign-in's grant). */
  scopes?: string;
  /** "ok", "refused", "failed", … and for a refusal a short machine reason. */
  outcome: string;
  reason?: string;
}

/** Written at notice, so LOG_LEVEL=info and notice keep it; the line carries the trace id while telemetry is on. */
export function audit(event: AuditEvent, fields: AuditFields): void {
  log("notice", "audit", { event, ...fields });
}
