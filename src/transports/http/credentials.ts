// Who a request is: the one place that reads a request's credentials (Authorization, X-API-KEY), once,
// normalized, and decides which credential authenticates it and so which API key goes upstream, or
// refuses it. The table it implements is in docs/hosting.md ("Which key a request uses").
import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { OAuthChallenge } from "../../oauth/challenge.js";
import type { AuthorizedGrant } from "../../oauth/grant.js";
import { HttpProblem, RpcCode } from "./replies.js";

export const REALM = "agent-workspace-mcp";

/**
 * Who a request is, and so which key its calls send: `grant` the grant's; `api-key` its own X-API-KEY;
 * `shared-token` its X-API-KEY when it sent one, else the environment's; `environment` the environment's
 * (only on a server that requires nothing).
 */
export type Who =
  | { via: "grant"; grant: AuthorizedGrant }
  | { via: "api-key"; apiKey: string }
  | { via: "shared-token"; apiKey?: string }
  | { via: "environment" };

/** One credential header as read: absent (or blank once normalized), malformed, or a value. */
type Presented = { state: "absent" } | { state: "malformed" } | { state: "given"; value: string };

/** Trimmed from both ends: every Unicode space, control, format and default-ignorable character. */
const EDGE = /^[\p{White_Space}\p{Z}\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}]$/u;
/** What a credential may hold once trimmed: visible ASCII only (keys and tokens are; nothing else is a credential). */
const VISIBLE = /^[\x21-\x7e]+$/;
/** Header bytes at or above 0x80: Node reads them as latin-1, so they are read again as the UTF-8 a client sent. */
const HIGH = /[\x80-\xff]/;

/** How many times the request carries a header (Node keeps only the first Authorization, and joins X-API-KEY). */
function countOf(req: IncomingMessage, name: string): number {
  let count = 0;
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2)
    if (raw[i]!.length === name.length && raw[i]!.toLowerCase() === name) count++;
  return count;
}

const UTF8 = new TextDecoder("utf-8", { fatal: true });

const visibleAt = (text: string, index: number) => {
  const code = text.charCodeAt(index);
  return code >= 0x21 && code <= 0x7e;
};

function normalized(raw: string): string {
  // Visible ASCII at both ends: nothing to trim, however the rest decodes (most requests).
  if (raw !== "" && visibleAt(raw, 0) && visibleAt(raw, raw.length - 1)) return raw;
  let text = raw;
  if (HIGH.test(raw)) {
    try {
      text = UTF8.decode(Buffer.from(raw, "latin1"));
    } catch {
      // Not UTF-8: the latin-1 reading stands.
    }
  }
  return trimEdges(text);
}

/**
 * `text` without blank or invisible characters at either end, stepping in one code point at a time: a
 * regular expression anchored at the end would be tried again at every position of a long blank run.
 */
function trimEdges(text: string): string {
  const points = Array.from(text);
  let start = 0;
  let end = points.length;
  while (start < end && EDGE.test(points[start] as string)) start++;
  while (end > start && EDGE.test(points[end - 1] as string)) end--;
  return points.slice(start, end).join("");
}

function presented(req: IncomingMessage, name: "authorization" | "x-api-key"): Presented {
  const raw = req.headers[name];
  if (raw === undefined) return { state: "absent" };
  if (countOf(req, name) > 1 || typeof raw !== "string") return { state: "malformed" };
  const value = normalized(raw);
  if (value === "") return { state: "absent" };
  return { state: "given", value };
}

/** A bearer token's value, or why there is none: the scheme's case does not matter, the token must be visible ASCII. */
function bearerOf(authorization: Presented): Presented {
  if (authorization.state !== "given") return authorization;
  const match = /^(\S+)[ \t]+(.*)$/s.exec(authorization.value);
  if (!match || match[1]!.toLowerCase() !== "bearer") return { state: "malformed" };
  const token = normalized(match[2]!);
  return VISIBLE.test(token) ? { state: "given", value: token } : { state: "malformed" };
}

function keyOf(header: Presented): Presented {
  if (header.state !== "given") return header;
  return VISIBLE.test(header.value) ? header : { state: "malformed" };
}

export interface FrontDoorSettings {
  /** The shared token (MCP_AUTH_TOKEN), when one is configured. */
  authToken?: string;
  /** Sign-in (--oauth): verifies an access token; OAuthChallenge when it is refused. */
  verify?: (token: string) => Promise<AuthorizedGrant>;
}

const MALFORMED_KEY =
  "the X-API-KEY header is malformed: send it once, with the key alone (visible ASCII characters, no spaces)";

const SIGN_IN = "sign in: this server takes an OAuth access token (see its resource metadata)";

export function createFrontDoor({ authToken, verify }: FrontDoorSettings) {
  // Both sides are hashed so that the comparison is over equal lengths and leaks nothing of the token.
  const tokenDigest = authToken ? createHash("sha256").update(authToken).digest() : undefined;
  const isSharedToken = (token: string) =>
    tokenDigest !== undefined && timingSafeEqual(createHash("sha256").update(token).digest(), tokenDigest);

  /** The refusal of a request that did not authenticate: the sign-in challenge with --oauth, else the token's. */
  const unauthenticated = (why?: string) =>
    verify
      ? new OAuthChallenge(undefined, `${SIGN_IN}${why ? `; ${why}` : ""}`)
      : new HttpProblem(
          401,
          RpcCode.serverError,
          "Unauthorized: send Authorization: Bearer <token> with the token this server was given",
          { "www-authenticate": `Bearer realm="${REALM}"` },
        );

  /**
   * Who the request is, or a refusal: HttpProblem (400 or 401) or OAuthChallenge (401 with the sign-in
   * challenge). The environment's key serves only `shared-token` without X-API-KEY and `environment`.
   */
  async function identify(req: IncomingMessage): Promise<Who> {
    const key = keyOf(presented(req, "x-api-key"));
    // A server that requires nothing reads no Authorization (a proxy in front may use it).
    if (!tokenDigest && !verify) {
      if (key.state === "malformed")
        throw new HttpProblem(400, RpcCode.invalidRequest, `Bad Request: ${MALFORMED_KEY}`);
      return key.state === "given" ? { via: "api-key", apiKey: key.value } : { via: "environment" };
    }
    const bearer = bearerOf(presented(req, "authorization"));
    if (bearer.state === "given" && isSharedToken(bearer.value)) {
      if (key.state === "malformed")
        throw new HttpProblem(400, RpcCode.invalidRequest, `Bad Request: ${MALFORMED_KEY}`);
      return key.state === "given" ? { via: "shared-token", apiKey: key.value } : { via: "shared-token" };
    }
    if (bearer.state === "given" && verify) {
      if (key.state !== "absent") {
        throw new HttpProblem(
          400,
          RpcCode.invalidRequest,
          "Bad Request: the request carries both an access token and X-API-KEY; send one (the sign-in behind the token already names the key)",
        );
      }
      return { via: "grant", grant: await verify(bearer.value) };
    }
    if (bearer.state === "given") throw unauthenticated("the token is not this server's");
    if (bearer.state === "malformed")
      throw unauthenticated("the Authorization header is malformed or given twice");
    // No usable Authorization: X-API-KEY alone authenticates only a sign-in server without a shared token.
    if (verify && !tokenDigest && key.state === "given") return { via: "api-key", apiKey: key.value };
    if (key.state === "malformed") throw unauthenticated(MALFORMED_KEY);
    throw unauthenticated();
  }

  return { identify };
}

export type FrontDoor = ReturnType<typeof createFrontDoor>;

/** The audit's name for who a request is: the OAuth client, or how it authenticated. */
export function clientOf(who: Who): string {
  return who.via === "grant" ? who.grant.clientId : who.via;
}
