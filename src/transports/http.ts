// Streamable HTTP on /mcp, stateful (one server and transport per session) or stateless (one per
// request, for replicas behind a load balancer); GET /healthz and /readyz for orchestrators.
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import type { HttpSettings } from "../config.js";
import { log } from "../log.js";
import { SERVER_NAME, SERVER_VERSION } from "../version.js";
import { describeBody, readMcpBody } from "./http/body.js";
import { createGuards } from "./http/guards.js";
import { HttpProblem, RpcCode, sendJson, sendProblem } from "./http/replies.js";
import { type Session, SessionStore } from "./http/sessions.js";
import type { ServerForRequest } from "./http/user-servers.js";
import type { RunningTransport } from "./stdio.js";

export interface RunningHttp extends RunningTransport {
  url: string;
  port: number;
  /** Open sessions, idle timers armed and sockets open: for tests that check nothing is left behind. */
  sessionCount(): number;
  timerCount(): number;
  connectionCount(): Promise<number>;
}

/** What the request log line says of a request, filled in as the request is handled. */
interface RequestFacts {
  method?: string;
  path: string;
  rpc?: string;
  tool?: string;
  session?: string;
}

const MCP_METHODS = ["GET", "POST", "DELETE"];
const RETRY_AFTER_SECONDS = "30";

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
  const sessions = new SessionStore(settings.sessionIdleMs, settings.maxSessions);
  const inFlight = new InFlight();
  let shuttingDown = false;

  async function handleStateless(req: IncomingMessage, res: ServerResponse, body: unknown) {
    if (req.method !== "POST") {
      throw new HttpProblem(
        405,
        RpcCode.serverError,
        "Method Not Allowed: this server is stateless, only POST",
        {
          allow: "POST",
        },
      );
    }
    const server = serverForRequest(req.headers).build();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.once("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  async function openSession(req: IncomingMessage, res: ServerResponse, body: unknown, facts: RequestFacts) {
    const { identity, build } = serverForRequest(req.headers);
    const release = sessions.reserve();
    if (!release) {
      throw new HttpProblem(
        503,
        RpcCode.serverError,
        `Service Unavailable: ${settings.maxSessions} sessions are open, the most this server allows; retry later`,
        { "retry-after": RETRY_AFTER_SECONDS },
      );
    }
    const server = build();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => {
        release();
        facts.session = id;
        sessions.add(id, session);
        res.once("close", () => sessions.requestEnded(session));
      },
    });
    // This initialize request is open until its answer is sent: the idle timer starts after it.
    const session: Session = { transport, server, identity, openRequests: 1 };
    transport.onclose = () => {
      sessions.remove(transport.sessionId ?? "");
      void server.close();
    };
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    } finally {
      release();
      if (!facts.session) void server.close();
    }
  }

  async function handleStateful(
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    facts: RequestFacts,
  ) {
    const header = req.headers["mcp-session-id"];
    const sessionId = Array.isArray(header) ? header[0] : header;
    if (sessionId === undefined) {
      if (req.method === "POST" && isInitializeRequest(body)) return openSession(req, res, body, facts);
      throw new HttpProblem(
        400,
        RpcCode.serverError,
        "Bad Request: no Mcp-Session-Id; send initialize first",
      );
    }
    const session = sessions.get(sessionId);
    if (!session) {
      throw new HttpProblem(
        404,
        RpcCode.sessionNotFound,
        "Session not found (expired or closed): initialize a new one",
      );
    }
    if (serverForRequest(req.headers).identity !== session.identity) {
      throw new HttpProblem(
        403,
        RpcCode.serverError,
        "Forbidden: this session was opened with other X-API-KEY, X-Project-Id or X-Workspace-Id headers; send the same ones, or initialize a new session",
      );
    }
    facts.session = sessionId;
    sessions.requestStarted(session);
    res.once("close", () => sessions.requestEnded(session));
    await session.transport.handleRequest(req, res, body);
  }

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
    let body: unknown;
    if (req.method === "POST") {
      inFlight.track(res);
      body = await readMcpBody(req, settings.maxBodyBytes);
      Object.assign(facts, describeBody(body));
    }
    if (settings.stateless) await handleStateless(req, res, body);
    else await handleStateful(req, res, body, facts);
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
    await sessions.closeAll();
    httpServer.closeAllConnections();
    await stopped;
    markClosed();
  }

  return {
    url: `http://${host}:${port}/mcp`,
    port,
    closed,
    close,
    sessionCount: () => sessions.size,
    timerCount: () => sessions.timerCount,
    connectionCount: () =>
      new Promise((resolve, reject) =>
        httpServer.getConnections((error, count) => (error ? reject(error) : resolve(count))),
      ),
  };
}
