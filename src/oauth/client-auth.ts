// How a /token or /revoke request authenticates its client: by exactly one method. Checked before the
// client directory reads the credentials, which would otherwise take Basic's and ignore the form's.
import { OAuthFailure } from "./clients.js";

/**
 * A client authenticates by one method per request (RFC 6749 §2.3.1, OAuth 2.1 §2.4.1): HTTP Basic or
 * client_secret in the form, never both, whatever their values (one right and one wrong would otherwise
 * pass), and names itself once: no parameter twice, no form client_id other than Basic's.
 */
export function oneClientAuthentication(form: URLSearchParams, authorization: string | undefined): void {
  const basic = /^\s*basic(?:\s|$)/i.test(authorization ?? "");
  if (form.getAll("client_id").length > 1 || form.getAll("client_secret").length > 1) {
    throw new OAuthFailure("invalid_request", "client_id and client_secret may each be sent once");
  }
  if (basic && form.has("client_secret")) {
    throw new OAuthFailure(
      "invalid_request",
      "use one client authentication method: HTTP Basic or client_secret in the form, not both",
    );
  }
  const formId = form.get("client_id");
  const basicId = basic ? basicClientId(authorization ?? "") : undefined;
  if (basicId !== undefined && formId !== null && formId !== basicId) {
    throw new OAuthFailure("invalid_request", "client_id in the form differs from the HTTP Basic client");
  }
}

/** The client id of HTTP Basic credentials (RFC 6749 §2.3.1: form-encoded), or undefined if unreadable. */
function basicClientId(authorization: string): string | undefined {
  const encoded = /^\s*basic\s+(\S+)\s*$/i.exec(authorization)?.[1];
  if (encoded === undefined) return undefined;
  const decoded = Buffer.from(encoded, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  try {
    return colon > 0 ? decodeURIComponent(decoded.slice(0, colon)) : undefined;
  } catch {
    return undefined;
  }
}
