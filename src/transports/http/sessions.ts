// The stateful mode: one server and transport per session, bound to the per-user headers it was opened
// with. Sessions are bounded in number and expire after an idle spell; a session with a request still
// open (a slow call, the client's event stream) is never idle.
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import type { McpSession } from "../../session.js";
import type { RequestFacts } from "./body.js";
import { NodeStreamableTransport } from "./node-transport.js";
import { HttpProblem, RpcCode } from "./replies.js";
import { type ServerForRequest, shapingHeadersOf } from "./user-servers.js";

export interface Session {
  transport: NodeStreamableTransport;
  mcp: McpSession;
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

/** Serves /mcp requests in the stateful mode. */
export class StatefulEndpoint {
  readonly sessions: SessionStore;

  constructor(
    private readonly serverForRequest: ServerForRequest,
    settings: { sessionIdleMs: number; maxSessions: number },
  ) {
    this.sessions = new SessionStore(settings.sessionIdleMs, settings.maxSessions);
  }

  async handle(req: IncomingMessage, res: ServerResponse, body: unknown, facts: RequestFacts): Promise<void> {
    const header = req.headers["mcp-session-id"];
    const sessionId = Array.isArray(header) ? header[0] : header;
    if (sessionId === undefined) {
      if (req.method === "POST" && isInitializeRequest(body)) return this.open(req, res, body, facts);
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
    if (!this.sameIdentity(req, session)) {
      throw new HttpProblem(
        403,
        RpcCode.serverError,
        "Forbidden: this session was opened with other X-API-KEY, X-Project-Id, X-Workspace-Id or X-MCP-* headers; send the same ones, or initialize a new session",
      );
    }
    facts.session = sessionId;
    this.sessions.requestStarted(session);
    res.once("close", () => this.sessions.requestEnded(session));
    await session.transport.handleRequest(req, res, body);
  }

  close(): Promise<void> {
    return this.sessions.closeAll();
  }

  /** Headers as the session's opening request sent them pass at once; others are parsed and digested. */
  private sameIdentity(req: IncomingMessage, session: Session): boolean {
    if (shapingHeadersOf(req.headers) === session.shapingHeaders) return true;
    return this.serverForRequest(req.headers).identity === session.identity;
  }

  private async open(req: IncomingMessage, res: ServerResponse, body: unknown, facts: RequestFacts) {
    const { identity, shapingHeaders, build } = this.serverForRequest(req.headers);
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
    const transport: NodeStreamableTransport = new NodeStreamableTransport({
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
