// The authorization server's HTTP plumbing: bounded bodies, OAuth error JSON, uncached answers.
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import { OAuthFailure } from "./clients.js";

/** Form and registration bodies are small: anything larger is refused unread. */
export const MAX_OAUTH_BODY_BYTES = 64 * 1024;

export async function readBody(req: IncomingMessage, limit = MAX_OAUTH_BODY_BYTES): Promise<string> {
  const declared = Number(req.headers["content-length"] ?? 0);
  if (declared > limit)
    throw new OAuthFailure("invalid_request", `the body is larger than ${limit} bytes`, 413);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit)
      throw new OAuthFailure("invalid_request", `the body is larger than ${limit} bytes`, 413);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** A form body (application/x-www-form-urlencoded), the only kind the token and revocation endpoints take. */
export async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const type = (req.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") {
    throw new OAuthFailure("invalid_request", "send the parameters as application/x-www-form-urlencoded");
  }
  return new URLSearchParams(await readBody(req));
}

/** Answers the token, registration, revocation and discovery endpoints give: no caching, any origin. */
export const API_HEADERS: OutgoingHttpHeaders = {
  "cache-control": "no-store",
  pragma: "no-cache",
  // No cookie or ambient credential works here, so any origin may call (browser-based clients do).
  "access-control-allow-origin": "*",
  "access-control-expose-headers": "WWW-Authenticate",
};

export function sendOAuthJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: OutgoingHttpHeaders = {},
): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...API_HEADERS,
    ...headers,
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}

export function sendOAuthError(
  res: ServerResponse,
  failure: OAuthFailure,
  headers: OutgoingHttpHeaders = {},
): void {
  sendOAuthJson(res, failure.status, { error: failure.error, error_description: failure.message }, headers);
}

export function sendHtml(
  res: ServerResponse,
  status: number,
  html: string,
  headers: OutgoingHttpHeaders,
): void {
  if (res.headersSent) return;
  res.writeHead(status, { ...headers, "content-length": Buffer.byteLength(html) });
  res.end(html);
}

/** A CORS preflight of an OAuth endpoint. */
export function sendPreflight(res: ServerResponse): void {
  res.writeHead(204, {
    ...API_HEADERS,
    "access-control-allow-methods": "GET, POST, OPTIONS",
    "access-control-allow-headers": "Authorization, Content-Type, MCP-Protocol-Version",
    "access-control-max-age": "600",
  });
  res.end();
}
