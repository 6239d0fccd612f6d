// Streamable HTTP on /mcp for both protocol eras: a 2026-07-28 request goes to the SDK's per-request
// handler; a 2025-era one to sessions (one server and transport per session, the default) or, with
// --stateless, to a server of its own. GET /healthz and /readyz for orchestrators.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { classifyInboundRequest } from "@modelcontextprotocol/server";
import type { HttpSettings } from "../config.js";
import { log, logs } from "../log.js";
import { SERVER_NAME, SERVER_VERSION } from "../version.js";
import { describeBody, type RequestFacts, readMcpBody } from "./http/body.js";
import { createGuards } from "./http/guards.js";
import { ModernEndpoint } from "./http/modern.js";
import { HttpProblem, RpcCode, sendJson, sendProblem } from "./http/replies.js";
import { StatefulEndpoint } from "./http/sessions.js";
import { StatelessEndpoint } from "./http/stateless.js";
import type { RequestServer, ServerForRequest } from "./http/user-servers.js";
import type { RunningTransport } from "./stdio.js";

export interface RunningHttp extends RunningTransport {
  url: string;
  port: number;
  /** Open sessions, idle timers armed and sockets open: for tests that check nothing is left behind. */
  sessionCount(): number;
  timerCount(): number;
  connectionCount(): Promise<number>;
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
function isLegacy(req: IncomingMessage, body: unknown): boolean {
  const outcome = classifyInboundRequest({
    httpMethod: "POST",
    protocolVersionHeader: headerOf(req, "mcp-protocol-version"),
    mcpMethodHeader: headerOf(req, "mcp-method"),
    mcpNameHeader: headerOf(req, "mcp-name"),
    body,
  });
  return outcome.kind === "legacy";
}

/** POST requests being answered, so that shutdown can wait for them. */
class InFlight {
  private count = 0;
  private waiters: (() => void)[] = [];

  track(res: ServerResponse): void {
    this.count++;
    res.once("close", () => {
      this.count--;
      if (this.count === 0) for (const wake of this.waiters.splice(0)) wake();
    });
  }

  /** Resolves when none is left, or after `timeoutMs`, whichever comes first, with how many are left. */
  settled(timeoutMs: number): Promise<number> {
    if (this.count === 0) return Promise.resolve(0);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(this.count), timeoutMs);
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve(0);
      });
    });
  }
}

export async function serveHttp(
  serverForRequest: ServerForRequest,
  settings: HttpSettings,
  missingSettings: () => string[] = () => [],
): Promise<RunningHttp> {
  const guards = createGuards(settings);
  const stateful = settings.stateless ? undefined : new StatefulEndpoint(settings);
  const legacy = stateful ?? new StatelessEndpoint();
  const modern = new ModernEndpoint();
  const inFlight = new InFlight();
  let shuttingDown = false;

  async function handleMcp(req: IncomingMessage, res: ServerResponse, facts: RequestFacts) {
    guards.checkHostAndOrigin(req);
    const cors = guards.corsHeaders(req);
    for (const [name, value] of Object.entries(cors)) res.setHeader(name, value as string);
    if (req.method === "OPTIONS" && cors["access-control-allow-origin"]) {
      res.writeHead(204).end();
      return;
    }
    guards.checkToken(req);
    if (!MCP_METHODS.includes(req.method ?? "")) {
      throw new HttpProblem(405, RpcCode.serverError, "Method Not Allowed: use POST, GET or DELETE", {
        allow: MCP_METHODS.join(", "),
      });
    }
    // Built from the headers on first need: a request within a session usually never needs it.
    let server: RequestServer | undefined;
    const serverOf = () => {
      server ??= serverForRequest(req.headers);
      return server;
    };
    if (req.method !== "POST") return legacy.handle(req, res, undefined, facts, serverOf);
    inFlight.track(res);
    const body = await readMcpBody(req, settings.maxBodyBytes);
    Object.assign(facts, describeBody(body));
    if (isLegacy(req, body)) return legacy.handle(req, res, body, facts, serverOf);
    facts.era = "2026-07-28";
    return modern.handle(req, res, body, serverOf);
  }

  function route(req: IncomingMessage, res: ServerResponse, facts: RequestFacts): Promise<void> {
    if (facts.path === "/healthz" && req.method === "GET") {
      sendJson(res, 200, { status: "ok", name: SERVER_NAME, version: SERVER_VERSION });
    } else if (facts.path === "/readyz" && req.method === "GET") {
      const missing = missingSettings();
      if (missing.length > 0) sendJson(res, 503, { status: "not ready", missing });
      else sendJson(res, 200, { status: "ready" });
    } else if (facts.path === "/mcp") {
      return handleMcp(req, res, facts);
    } else {
      sendJson(res, 404, { error: "Not found: the MCP endpoint is /mcp" });
    }
    return Promise.resolve();
  }

  const httpServer = createServer((req, res) => {
    const started = performance.now();
    const facts: RequestFacts = { method: req.method, path: (req.url ?? "/").split("?")[0] ?? "/" };
    res.once("close", () => {
      if (!logs("info")) return;
      const duration_ms = Math.round(performance.now() - started);
      log("info", "request", { ...facts, status: res.statusCode, duration_ms });
    });
    route(req, res, facts).catch((error: unknown) => {
      if (error instanceof HttpProblem) return sendProblem(res, error);
      log("error", "MCP request failed", { error: error instanceof Error ? error.message : String(error) });
      sendProblem(res, new HttpProblem(500, RpcCode.internalError, "Internal error"));
    });
  });

  await new Promise<void>((resolve, reject) => {
    httpServer.once("error", reject);
    httpServer.listen(settings.port, settings.host, () => resolve());
  });
  const { port } = httpServer.address() as AddressInfo;
  const host = settings.host.includes(":") ? `[${settings.host}]` : settings.host;

  let markClosed!: () => void;
  const closed = new Promise<void>((resolve) => {
    markClosed = resolve;
  });

  /** Stops accepting, lets POSTs in flight finish (bounded by shutdownGraceMs), then ends every session. */
  async function close(): Promise<void> {
    if (shuttingDown) return closed;
    shuttingDown = true;
    const stopped = new Promise<void>((resolve) => httpServer.close(() => resolve()));
    httpServer.closeIdleConnections();
    const abandoned = await inFlight.settled(settings.shutdownGraceMs);
    if (abandoned > 0) log("warn", "shutdown grace is over: ending requests still in flight", { abandoned });
    await Promise.all([legacy.close(), modern.close()]);
    httpServer.closeAllConnections();
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
