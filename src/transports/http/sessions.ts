// The 2025 revisions with sessions (the default mode): one server and the SDK's streamable HTTP
// transport per session, bound to the per-user headers it was opened with. Sessions are bounded in number and expire after an idle spell; a session with a request still
// open (a slow call, the client's event stream) is never idle.
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { NodeStreamableHTTPServerTransport } from "@modelcontextprotocol/node";
import { isInitializeRequest, type Server } from "@modelcontextprotocol/server";
import type { RequestFacts } from "./body.js";
import { HttpProblem, RpcCode } from "./replies.js";
import { type RequestServer, shapingHeadersOf } from "./user-servers.js";

export interface Session {
  transport: NodeStreamableHTTPServerTransport;
  mcp: Server;
  /** See RequestServer.identity and shapingHeaders: of the request that opened the session. */
  identity: string;
  shapingHeaders: string;
  openRequests: number;
  idleTimer?: NodeJS.Timeout;
}

export class SessionStore {
  private readonly sessions = new Map<string, Session>();
  /** Sessions being initialized: they count against the cap before they have an id. */
  private opening = 0;
  private armedTimers = 0;

  constructor(
    private readonly idleMs: number,
    readonly maxSessions: number,
  ) {}

  get size(): number {
    return this.sessions.size;
  }

  /** Idle timers armed and not yet fired or cleared: for tests that check none is left behind. */
  get timerCount(): number {
    return this.armedTimers;
  }

  get(id: string): Session | undefined {
    return this.sessions.get(id);
  }

  /** Holds a place for a session being opened; undefined when the cap is reached. */
  reserve(): (() => void) | undefined {
    if (this.sessions.size + this.opening >= this.maxSessions) return undefined;
    this.opening++;
    let released = false;
    return () => {
      if (!released) this.opening--;
      released = true;
    };
  }

  /** Called while the session's initialize request is open: the idle timer starts when it ends. */
  add(id: string, session: Session): void {
    this.sessions.set(id, session);
  }

  /** Called when the session's transport closed (DELETE, expiry, shutdown). */
  remove(id: string): void {
    const session = this.sessions.get(id);
    if (!session) return;
    this.disarm(session);
    this.sessions.delete(id);
  }

  requestStarted(session: Session): void {
    session.openRequests++;
    this.disarm(session);
  }

  requestEnded(session: Session): void {
    session.openRequests--;
    if (session.openRequests === 0 && this.sessions.get(session.transport.sessionId ?? "") === session) {
      this.armIdleTimer(session);
    }
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.sessions.values()].map((session) => session.transport.close()));
  }

  private armIdleTimer(session: Session): void {
    this.disarm(session);
    session.idleTimer = setTimeout(() => {
      this.disarm(session);
      void session.transport.close();
    }, this.idleMs);
    // An idle session must not keep the process alive on its own.
    session.idleTimer.unref();
    this.armedTimers++;
  }

  private disarm(session: Session): void {
    if (!session.idleTimer) return;
    clearTimeout(session.idleTimer);
    session.idleTimer = undefined;
    this.armedTimers--;
  }
}

const RETRY_AFTER_SECONDS = "30";

type RequestId = string | number;

/** The id of a single JSON-RPC request body, if it is one. */
export function requestIdOf(body: unknown): RequestId | undefined {
  const message = body as { id?: unknown; method?: unknown } | undefined;
  const { id } = message ?? {};
  return typeof message?.method === "string" && (typeof id === "string" || Number.isSafeInteger(id))
    ? (id as RequestId)
    : undefined;
}

/** Hands the session's server a cancellation of request `id`, through the SDK's own cancellation path. */
function cancelOnServer(transport: NodeStreamableHTTPServerTransport, id: RequestId): void {
  const reason = "the client closed the connection before the answer";
  transport.onmessage?.({
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: id, reason },
  });
}

/** Serves /mcp requests in the stateful mode. */
export class StatefulEndpoint {
  readonly sessions: SessionStore;

  constructor(settings: { sessionIdleMs: number; maxSessions: number }) {
    this.sessions = new SessionStore(settings.sessionIdleMs, settings.maxSessions);
  }

  async handle(
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    facts: RequestFacts,
    server: () => RequestServer,
  ): Promise<void> {
    const header = req.headers["mcp-session-id"];
    const sessionId = Array.isArray(header) ? header[0] : header;
    if (sessionId === undefined) {
      if (req.method === "POST" && isInitializeRequest(body))
        return this.open(req, res, body, facts, server());
      throw new HttpProblem(
        400,
        RpcCode.serverError,
        "Bad Request: no Mcp-Session-Id; send initialize first",
      );
    }
    const session = this.sessions.get(sessionId);
    if (!session) {
      throw new HttpProblem(
        404,
        RpcCode.sessionNotFound,
        "Session not found (expired or closed): initialize a new one",
      );
    }
    if (!this.sameIdentity(req, session, server)) {
      throw new HttpProblem(
        403,
        RpcCode.serverError,
        "Forbidden: this session was opened with other X-API-KEY, X-Project-Id, X-Workspace-Id or X-MCP-* headers; send the same ones, or initialize a new session",
      );
    }
    facts.session = sessionId;
    this.sessions.requestStarted(session);
    const id = requestIdOf(body);
    res.once("close", () => {
      this.sessions.requestEnded(session);
      // A client that dropped the connection before its answer will never read it: the call stops, as
      // if cancelled, rather than run on (and, for tasks_comments, create what the client may send again).
      if (id !== undefined && !res.writableFinished) cancelOnServer(session.transport, id);
    });
    await session.transport.handleRequest(req, res, body);
  }

  close(): Promise<void> {
    return this.sessions.closeAll();
  }

  /** Headers as the session's opening request sent them pass at once; others are parsed and digested. */
  private sameIdentity(req: IncomingMessage, session: Session, server: () => RequestServer): boolean {
    if (shapingHeadersOf(req.headers) === session.shapingHeaders) return true;
    return server().identity === session.identity;
  }

  private async open(
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    facts: RequestFacts,
    { identity, shapingHeaders, build }: RequestServer,
  ) {
    const release = this.sessions.reserve();
    if (!release) {
      throw new HttpProblem(
        503,
        RpcCode.serverError,
        `Service Unavailable: ${this.sessions.maxSessions} sessions are open, the most this server allows; retry later`,
        { "retry-after": RETRY_AFTER_SECONDS },
      );
    }
    const mcp = build();
    const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => {
        release();
        facts.session = id;
        this.sessions.add(id, session);
        res.once("close", () => this.sessions.requestEnded(session));
      },
    });
    // This initialize request is open until its answer is sent: the idle timer starts after it.
    const session: Session = { transport, mcp, identity, shapingHeaders, openRequests: 1 };
    mcp.onclose = () => this.sessions.remove(transport.sessionId ?? "");
    try {
      await mcp.connect(transport);
      await transport.handleRequest(req, res, body);
    } finally {
      release();
      if (!facts.session) void mcp.close();
    }
  }
}
