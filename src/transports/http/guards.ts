// Checks every /mcp request passes before the MCP transport sees it: Host and Origin (DNS-rebinding
// protection) and CORS; and the refusal to expose the server beyond loopback unguarded. Who a request
// is (the token, X-API-KEY, an access token) is credentials.ts's to decide.
import type { IncomingMessage, OutgoingHttpHeaders } from "node:http";
import { ConfigError, type HttpSettings } from "../../config/types.js";
import { excerpt } from "../../excerpt.js";
import { HttpProblem, RpcCode } from "./replies.js";

const LOOPBACK_NAMES = ["127.0.0.1", "localhost", "[::1]"];
const MAX_REMEMBERED_HOSTS = 256;

function hostnameOf(url: string): string | undefined {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

function isLoopbackAddress(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** Refuses, before listening, a bind beyond loopback that lacks --allowed-hosts or a token. */
export function assertSafeBinding(http: HttpSettings): void {
  if (isLoopbackAddress(http.host)) return;
  if (http.allowedHosts.length === 0) {
    throw new ConfigError(
      `--host ${http.host} is beyond loopback: give --allowed-hosts with the host names clients will use (Host header check against DNS rebinding)`,
      ["http.allowedHosts"],
    );
  }
  if (http.oauth && !http.publicUrl) {
    throw new ConfigError(
      `--host ${http.host} is beyond loopback: with --oauth, give --public-url, the origin clients reach this server at`,
      ["http.publicUrl"],
    );
  }
  if (!http.authToken && !http.allowUnauthenticated && !http.oauth) {
    throw new ConfigError(
      `--host ${http.host} is beyond loopback: set MCP_AUTH_TOKEN or --auth-token-file, or pass --allow-unauthenticated if something in front of this server authenticates`,
      ["http.authToken", "http.allowUnauthenticated"],
    );
  }
}

export interface RequestGuards {
  /** Throws a 403 HttpProblem for a Host or Origin that is not allowed. */
  checkHostAndOrigin(req: IncomingMessage): void;
  /** Throws a 403 HttpProblem for a Host that is not allowed (the sign-in endpoints, which any origin may call). */
  checkHost(req: IncomingMessage): void;
  /** CORS headers for this request's Origin, or none when CORS is off or the Origin is not listed. */
  corsHeaders(req: IncomingMessage): OutgoingHttpHeaders;
}

function hostLines(req: IncomingMessage): number {
  let count = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i]?.toLowerCase() === "host") count++;
  return count;
}

export function createGuards(http: Pick<HttpSettings, "allowedHosts" | "corsOrigins">) {
  const allowedHosts = new Set([...LOOPBACK_NAMES, ...http.allowedHosts.map((name) => name.toLowerCase())]);
  const corsOrigins = new Set(http.corsOrigins);

  const refuse = (message: string) => new HttpProblem(403, RpcCode.serverError, message);
  // Clients send the same Host on every request: parsing it as a URL once per value, not per request.
  const hostVerdicts = new Map<string, boolean>();
  const hostAllowed = (host: string) => {
    let allowed = hostVerdicts.get(host);
    if (allowed === undefined) {
      allowed = allowedHosts.has(hostnameOf(`http://${host}`) ?? "");
      if (hostVerdicts.size >= MAX_REMEMBERED_HOSTS) hostVerdicts.clear();
      hostVerdicts.set(host, allowed);
    }
    return allowed;
  };

  const checkHost = (req: IncomingMessage) => {
    // Node keeps the first of two Host lines: a request that sends two is refused (RFC 9112 §3.2).
    if (hostLines(req) > 1) {
      throw new HttpProblem(
        400,
        RpcCode.invalidRequest,
        "Bad Request: the request carries Host more than once",
      );
    }
    const host = req.headers.host;
    if (!host || !hostAllowed(host)) {
      throw refuse(`Forbidden: Host "${excerpt(host ?? "")}" is not allowed (see --allowed-hosts)`);
    }
  };
  return {
    checkHost,

    checkHostAndOrigin(req: IncomingMessage): void {
      checkHost(req);
      const origin = req.headers.origin;
      if (origin === undefined || corsOrigins.has(origin)) return;
      if (!allowedHosts.has(hostnameOf(origin) ?? "")) {
        throw refuse(`Forbidden: Origin "${excerpt(origin)}" is not allowed (see --cors-origin)`);
      }
    },

    corsHeaders(req: IncomingMessage): OutgoingHttpHeaders {
      const origin = req.headers.origin;
      if (!origin || !corsOrigins.has(origin)) return {};
      const headers: OutgoingHttpHeaders = {
        "access-control-allow-origin": origin,
        "access-control-expose-headers": "Mcp-Session-Id, WWW-Authenticate",
        vary: "Origin",
      };
      if (req.method === "OPTIONS") {
        headers["access-control-allow-methods"] = "GET, POST, DELETE, OPTIONS";
        // The origin is trusted: whatever headers it asks for (per-user ones included) may be sent.
        headers["access-control-allow-headers"] =
          req.headers["access-control-request-headers"] ?? "Content-Type, Authorization, Mcp-Session-Id";
        headers["access-control-max-age"] = "600";
      }
      return headers;
    },
  } satisfies RequestGuards;
}
