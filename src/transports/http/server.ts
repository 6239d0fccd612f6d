// Streamable HTTP on /mcp for the 2026-07-28 revision and the 2025 ones: a 2026-07-28 request goes to the SDK's per-request
// handler; a 2025-revision one to sessions (one server and transport per session, the default) or, with
// --stateless, to a server of its own. GET /healthz and /readyz for orchestrators.

import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { type AddressInfo, Server as NetServer, type Socket } from "node:net";
import { type AuthInfo, classifyInboundRequest } from "@modelcontextprotocol/server";
import type { HttpSettings } from "../../config/types.js";
import { excerpt } from "../../excerpt.js";
import { log, logs } from "../../log.js";
import { OAuthChallenge } from "../../oauth/challenge.js";
import { clientAddress, trustedProxies } from "../../oauth/client-address.js";
import { SCOPES } from "../../oauth/grant.js";
import type { OAuthServer } from "../../oauth/index.js";
import { StoreUnavailableError } from "../../state/store.js";
import { SERVER_NAME, SERVER_VERSION } from "../../version.js";
import type { RunningTransport } from "../running.js";
import { refuseBeyondGrant } from "./beyond-grant.js";
import { describeBody, type RequestLogLine, readMcpBody } from "./body.js";
import { clientOf, createFrontDoor, type Who } from "./credentials.js";
import { createGuards } from "./guards.js";
import { HttpProblem, RpcCode, sendJson, sendProblem } from "./replies.js";
import { Revision20260728Endpoint } from "./revision-2026-07-28.js";
import { StatefulEndpoint } from "./sessions.js";
import { StatelessEndpoint } from "./stateless.js";
import { GRANT_HEADER, type RequestServer, type ServerForRequest } from "./user-servers.js";

export interface RunningHttp extends RunningTransport {
  url: string;
  port: number;
  /** Open sessions, idle timers armed and sockets open: for tests that check nothing is left behind. */
  sessionCount(): number;
  timerCount(): number;
  connectionCount(): Promise<number>;
}

/** What the HTTP transport is given beyond its settings. */
export interface HttpServeOptions {
  /** Sign-in (--oauth): builds the authorization server once the public URL is known. */
  oauth?: OAuthFactory;
  /** Whether the store can answer now; /readyz reports not ready while it cannot. Default: always. */
  storeReachable?: () => boolean;
  /** Set while the store may evict keys (a Redis not on noeviction); /readyz reports not ready with it. */
  storeEvicting?: () => string | undefined;
}

const MCP_METHODS = ["GET", "POST", "DELETE"];

const headerOf = (req: IncomingMessage, name: string) => {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/**
 * Whether a POST belongs to the 2025 revisions: the SDK's own classification (no per-request `_meta`
 * envelope claim). Everything else, malformed 2026-07-28 requests included, is the SDK handler's to answer.
 */
function isRevision2025(req: IncomingMessage, body: unknown): boolean {
  const outcome = classifyInboundRequest({
    httpMethod: "POST",
    protocolVersionHeader: headerOf(req, "mcp-protocol-version"),
    mcpMethodHeader: headerOf(req, "mcp-method"),
    mcpNameHeader: headerOf(req, "mcp-name"),
    body,
  });
  return outcome.kind === "legacy";
}

/** Requests being answered (all but event streams), so that shutdown can wait for them. */
class InFlight {
  private readonly open = new Set<ServerResponse>();
  private waiters: (() => void)[] = [];
  /** Connections that carried an answer during the drain: their client may be sending its next request. */
  private readonly answeredDuringDrain = new Set<Socket>();
  private draining = false;

  track(res: ServerResponse): void {
    this.open.add(res);
    const socket = res.socket;
    res.once("close", () => {
      this.open.delete(res);
      if (this.draining && socket && !socket.destroyed) {
        this.answeredDuringDrain.add(socket);
        socket.once("close", () => this.answeredDuringDrain.delete(socket));
      }
      if (this.open.size === 0) for (const wake of this.waiters.splice(0)) wake();
    });
  }

  /** From now on: answers not yet begun close their connection, and answered connections are remembered. */
  drain(): void {
    this.draining = true;
    for (const res of this.open) if (!res.headersSent) res.shouldKeepAlive = false;
  }

  /** Resolves when none is left, or after `timeoutMs`, whichever comes first, with how many are left. */
  settled(timeoutMs: number): Promise<number> {
    if (this.open.size === 0) return Promise.resolve(0);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(this.open.size), timeoutMs);
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve(0);
      });
    });
  }

  /**
   * Resolves when every connection answered during the drain has closed (its next request got a 503
   * and Connection: close, or it sat idle past the keep-alive timeout), or after `timeoutMs`.
   */
  connectionsClosed(timeoutMs: number): Promise<void> {
    const sockets = [...this.answeredDuringDrain];
    if (sockets.length === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      const closing = sockets.map((socket) => new Promise((done) => socket.once("close", done)));
      void Promise.all(closing).then(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}

/** The longest a drain waits for the clients it answered to send their next request and be refused. */
const LINGER_MS = 1_000;

/** What a draining server answers any request it has not accepted yet: come back elsewhere, or later. */
const DRAINING = new HttpProblem(
  503,
  RpcCode.serverError,
  "Service Unavailable: the server is shutting down; send the request again (another replica, or this one once restarted, will answer it)",
  { "retry-after": "1", connection: "close" },
);

/** What a request that needs the shared store (a token's grant) gets while it cannot answer: later. */
export const STORE_DOWN = new HttpProblem(
  503,
  RpcCode.serverError,
  "Service Unavailable: the server cannot check sign-ins right now; try again shortly",
  { "retry-after": "5" },
);

/** The socket timeouts of the settings, and a check of them often enough to keep to them. */
function serverOptions(settings: HttpSettings) {
  return {
    headersTimeout: settings.headersTimeoutMs,
    requestTimeout: settings.requestTimeoutMs,
    keepAliveTimeout: settings.keepAliveTimeoutMs,
    // node checks the first two only this often (30 s by default, which let slow headers run 84 s).
    connectionsCheckingInterval: Math.min(1_000, settings.headersTimeoutMs),
  };
}

/** Builds the authorization server once the public URL is known (the port may be picked at listen). */
export type OAuthFactory = (publicUrl: string) => OAuthServer;

/** The public URL's host is one clients use: it is allowed in Host as if listed in --allowed-hosts. */
function allowedHostsOf(settings: HttpSettings): string[] {
  if (!settings.publicUrl) return settings.allowedHosts;
  return [...settings.allowedHosts, new URL(settings.publicUrl).hostname];
}

/**
 * What the MCP handlers learn of who a request is (ctx.http.authInfo): the client for the audit line,
 * the grant, and its scopes; the address it came from (by the sign-in endpoints' trusted-proxy rule),
 * which write confirmations count against. Never the token itself. Requests not signed in by OAuth
 * may do all a key can.
 */
function authInfoOf(who: Who, address: string): AuthInfo {
  if (who.via !== "grant") {
    return { token: "", clientId: clientOf(who), scopes: [...SCOPES], extra: { address } };
  }
  const { grant } = who;
  return {
    token: "",
    clientId: grant.clientId,
    scopes: [...grant.credentials.scopes],
    extra: { grant: grant.grantId, address },
  };
}

export async function serveHttp(
  serverForRequest: ServerForRequest,
  settings: HttpSettings,
  missingSettings: () => string[] = () => [],
  options: HttpServeOptions = {},
): Promise<RunningHttp> {
  const storeReachable = options.storeReachable ?? (() => true);
  const storeEvicting = options.storeEvicting ?? (() => undefined);
  const guards = createGuards({ ...settings, allowedHosts: allowedHostsOf(settings) });
  const proxies = trustedProxies(settings.trustedProxies);
  let oauth: OAuthServer | undefined;
  const frontDoor = createFrontDoor({
    authToken: settings.authToken,
    verify: options.oauth && ((token) => (oauth as OAuthServer).verify(token)),
  });
  const stateful = settings.stateless ? undefined : new StatefulEndpoint(settings);
  const revision2025 = stateful ?? new StatelessEndpoint();
  const revision20260728 = new Revision20260728Endpoint();
  const inFlight = new InFlight();
  let shuttingDown = false;

  async function handleMcp(req: IncomingMessage, res: ServerResponse, logLine: RequestLogLine) {
    guards.checkHostAndOrigin(req);
    const cors = guards.corsHeaders(req);
    for (const [name, value] of Object.entries(cors)) res.setHeader(name, value as string);
    if (req.method === "OPTIONS" && cors["access-control-allow-origin"]) {
      res.writeHead(204).end();
      return;
    }
    const who = await frontDoor.identify(req);
    if (!MCP_METHODS.includes(req.method ?? "")) {
      throw new HttpProblem(405, RpcCode.serverError, "Method Not Allowed: use POST, GET or DELETE", {
        allow: MCP_METHODS.join(", "),
      });
    }
    // Built from the headers on first need: a request within a session usually never needs it.
    let server: RequestServer | undefined;
    // The grant header is the transport's own: whatever a client sent under that name is dropped.
    delete req.headers[GRANT_HEADER];
    if (who.via === "grant") req.headers[GRANT_HEADER] = who.grant.grantId;
    const serverOf = () => {
      server ??= serverForRequest(req.headers, who);
      return server;
    };
    const auth = authInfoOf(who, clientAddress(req, proxies));
    if (req.method !== "GET") inFlight.track(res); // an event stream is ended by closing its session
    if (req.method !== "POST") return revision2025.handle(req, res, undefined, logLine, serverOf, auth);
    const body = await readMcpBody(req, settings.maxBodyBytes);
    Object.assign(logLine, describeBody(body));
    // A call beyond the grant's scopes is refused here, before any server sees it: nothing is sent.
    if (who.via === "grant") refuseBeyondGrant(body, who.grant, () => serverOf().tools);
    if (isRevision2025(req, body)) return revision2025.handle(req, res, body, logLine, serverOf, auth);
    logLine.revision = "2026-07-28";
    return revision20260728.handle(req, res, body, serverOf, auth);
  }

  function route(req: IncomingMessage, res: ServerResponse, logLine: RequestLogLine): Promise<void> {
    if (oauth?.serves(logLine.path)) {
      guards.checkHost(req);
      return oauth.handle(req, res, logLine.path);
    }
    if (logLine.path === "/healthz" && req.method === "GET") {
      sendJson(res, 200, { status: "ok", name: SERVER_NAME, version: SERVER_VERSION });
    } else if (logLine.path === "/readyz" && req.method === "GET") {
      const missing = missingSettings();
      const storeDown = !storeReachable();
      const evicting = storeEvicting();
      if (missing.length > 0 || storeDown || evicting) {
        const store = storeDown
          ? { store: "unreachable" }
          : evicting && {
              store: evicting.includes("(NOPERM)") ? "may not run INFO" : "evicts keys",
              problem: evicting,
            };
        sendJson(res, 503, { status: "not ready", missing, ...store });
      } else sendJson(res, 200, { status: "ready" });
    } else if (logLine.path === "/mcp") {
      return handleMcp(req, res, logLine);
    } else {
      sendJson(res, 404, { error: "Not found: the MCP endpoint is /mcp" });
    }
    return Promise.resolve();
  }

  const httpServer = createServer(serverOptions(settings), (req, res) => {
    const started = performance.now();
    const logLine: RequestLogLine = {
      method: req.method,
      path: excerpt((req.url ?? "/").split("?")[0] ?? "/"),
    };
    res.once("close", () => {
      if (!logs("info")) return;
      const duration_ms = Math.round(performance.now() - started);
      log("info", "request", { ...logLine, status: res.statusCode, duration_ms });
    });
    // Draining: nothing new is accepted, so the requests in flight can end and the process exit.
    if (shuttingDown) {
      // A probe is told plainly; an MCP client gets a JSON-RPC error it can show.
      if (logLine.path === "/healthz" || logLine.path === "/readyz") {
        return sendJson(res, 503, { status: "draining" }, DRAINING.headers);
      }
      return sendProblem(res, DRAINING);
    }
    route(req, res, logLine).catch((error: unknown) => {
      if (error instanceof HttpProblem) return sendProblem(res, error);
      if (error instanceof StoreUnavailableError) return sendProblem(res, STORE_DOWN);
      if (error instanceof OAuthChallenge && oauth) {
        const body = { error: error.error ?? "invalid_token", error_description: error.message };
        return sendJson(res, error.status, body, oauth.challengeHeaders(error));
      }
      const message = excerpt(error instanceof Error ? error.message : String(error), 200);
      // A client gone mid-request (or cut off by a socket timeout) is nobody's fault on this side.
      if (req.destroyed) return log("debug", "request abandoned by the client", { error: message });
      log("error", "MCP request failed", { error: message });
      sendProblem(res, new HttpProblem(500, RpcCode.internalError, "Internal error"));
    });
  });

  await new Promise<void>((resolve, reject) => {
    httpServer.once("error", reject);
    httpServer.listen(settings.port, settings.host, () => resolve());
  });
  const { port } = httpServer.address() as AddressInfo;
  const host = settings.host.includes(":") ? `[${settings.host}]` : settings.host;
  oauth = options.oauth?.(settings.publicUrl ?? `http://${host}:${port}`);

  let markClosed!: () => void;
  const closed = new Promise<void>((resolve) => {
    markClosed = resolve;
  });

  /**
   * Drains: stops listening; a request on a connection still open gets 503 with Connection: close.
   * Requests in flight are answered (for up to `graceMs`), then every session and socket is closed.
   */
  async function close(graceMs = settings.shutdownGraceMs): Promise<void> {
    if (shuttingDown) return closed;
    shuttingDown = true;
    const stopped = once(httpServer, "close");
    // Stops listening but keeps idle kept-alive connections, which http.Server.close would cut: a
    // request already on its way over one gets a 503 to send it elsewhere, not a reset that leaves
    // its client unsure whether the call was taken.
    NetServer.prototype.close.call(httpServer);
    inFlight.drain();
    const abandoned = await inFlight.settled(graceMs);
    if (abandoned > 0) log("warn", "shutdown grace is over: ending requests still in flight", { abandoned });
    await Promise.all([revision2025.close(), revision20260728.close(), oauth?.close()]);
    // A client answered during the drain may be sending its next request: let it get its 503 first.
    await inFlight.connectionsClosed(Math.min(settings.keepAliveTimeoutMs, LINGER_MS));
    httpServer.closeAllConnections();
    httpServer.close(); // also ends node's checks of the socket timeouts
    await stopped;
    markClosed();
  }

  return {
    url: `http://${host}:${port}/mcp`,
    port,
    closed,
    close,
    sessionCount: () => stateful?.sessions.size ?? 0,
    timerCount: () => stateful?.sessions.timerCount ?? 0,
    connectionCount: () =>
      new Promise((resolve, reject) =>
        httpServer.getConnections((error, count) => (error ? reject(error) : resolve(count))),
      ),
  };
}
