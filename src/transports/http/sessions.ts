// The 2025 revisions with sessions (the default mode): one server and the SDK's streamable HTTP
// transport per session, bound to the per-user headers it was opened with. Sessions are bounded in
// number and expire after an idle spell; one with a request still open (a slow call, the client's
// event stream) is never idle.
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  type AuthInfo,
  isInitializeRequest,
  type RequestId,
  type Server,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import * as telemetry from "../../telemetry/index.js";
import type { RequestLogLine } from "./body.js";
import { HttpProblem, RpcCode } from "./replies.js";
import { cancelledIdOf, requestIdOf } from "./rpc-ids.js";
import { type RequestServer, shapingHeadersOf } from "./user-servers.js";
import { answerWith } from "./web-exchange.js";

export interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  mcp: Server;
  /** See RequestServer.identity and shapingHeaders: of the request that opened the session. */
  identity: string;
  shapingHeaders: string;
  openRequests: number;
  idleTimer?: NodeJS.Timeout;
  /** Digest of the API key the session uses: sessions are bounded per key too. */
  key: string;
  /** Calls in flight, each alone in its POST: a cancelled one's stream is ended (the SDK leaves it open). */
  calls: Set<RequestId>;
  /** Ends the session's telemetry (open count, duration); absent while telemetry is off. */
  endTelemetry?: () => void;
}

/** Why a session could not be opened: the server's cap or the key's. */
export type SessionRefusal = "server" | "key";

export class SessionStore {
  private readonly sessions = new Map<string, Session>();
  /** Sessions being initialized: they count against the cap before they have an id. */
  private opening = 0;
  /** Sessions open or being opened, per key digest. */
  private readonly perKey = new Map<string, number>();
  private armedTimers = 0;

  constructor(
    private readonly idleMs: number,
    readonly maxSessions: number,
    readonly maxSessionsPerKey: number = maxSessions,
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

  /**
   * Holds a place for a session being opened with `key`, or says which cap is reached. The place is
   * released with `true` once the session is added (the key's count then goes with the session), or
   * with `false` when it was never opened; only the first release counts.
   */
  reserve(key: string): ((opened: boolean) => void) | SessionRefusal {
    if (this.sessions.size + this.opening >= this.maxSessions) return "server";
    const held = this.perKey.get(key) ?? 0;
    if (held >= this.maxSessionsPerKey) return "key";
    this.opening++;
    this.perKey.set(key, held + 1);
    let released = false;
    return (opened) => {
      if (released) return;
      released = true;
      this.opening--;
      if (!opened) this.forgetKey(key);
    };
  }

  /** Called while the session's initialize request is open: the idle timer starts when it ends. */
  add(id: string, session: Session): void {
    this.sessions.set(id, session);
    session.endTelemetry = telemetry.active?.sessionOpened("http");
  }

  /** Called when the session's transport closed (DELETE, expiry, shutdown). */
  remove(id: string): void {
    const session = this.sessions.get(id);
    if (!session) return;
    this.disarm(session);
    this.sessions.delete(id);
    session.endTelemetry?.();
    this.forgetKey(session.key);
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

  private forgetKey(key: string): void {
    const held = (this.perKey.get(key) ?? 1) - 1;
    if (held > 0) this.perKey.set(key, held);
    else this.perKey.delete(key);
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

/** Hands the session's server a cancellation of request `id`, through the SDK's own cancellation path. */
function cancelOnServer(transport: WebStandardStreamableHTTPServerTransport, id: RequestId): void {
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

  constructor(settings: { sessionIdleMs: number; maxSessions: number; maxSessionsPerKey: number }) {
    this.sessions = new SessionStore(
      settings.sessionIdleMs,
      settings.maxSessions,
      settings.maxSessionsPerKey,
    );
  }

  async handle(
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    logLine: RequestLogLine,
    server: () => RequestServer,
    auth?: AuthInfo,
  ): Promise<void> {
    const header = req.headers["mcp-session-id"];
    const sessionId = Array.isArray(header) ? header[0] : header;
    if (sessionId === undefined) {
      if (req.method === "POST" && isInitializeRequest(body))
        return this.open(req, res, body, logLine, server(), auth);
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
    logLine.session = sessionId;
    this.sessions.requestStarted(session);
    const id = requestIdOf(body);
    if (id !== undefined) session.calls.add(id);
    res.once("close", () => {
      this.sessions.requestEnded(session);
      if (id !== undefined) session.calls.delete(id);
      // A client that dropped the connection before its answer will never read it: the call stops, as
      // if cancelled, rather than run on (and, for tasks_comments, create what the client may send again).
      if (id !== undefined && !res.writableFinished) cancelOnServer(session.transport, id);
    });
    await answerWith(session.transport, req, res, body, auth);
    // The SDK sends no answer to a cancelled call and leaves its stream open: end it, so that the
    // client's connection is free and the session can become idle.
    const cancelled = cancelledIdOf(body);
    if (cancelled !== undefined && session.calls.has(cancelled)) session.transport.closeSSEStream(cancelled);
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
    logLine: RequestLogLine,
    { identity, shapingHeaders, keyDigest, build }: RequestServer,
    auth: AuthInfo | undefined,
  ) {
    const release = this.sessions.reserve(keyDigest);
    if (typeof release !== "function") throw this.refusal(release);
    const mcp = build();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => {
        release(true);
        logLine.session = id;
        this.sessions.add(id, session);
        res.once("close", () => this.sessions.requestEnded(session));
      },
    });
    // This initialize request is open until its answer is sent: the idle timer starts after it.
    const session: Session = {
      transport,
      mcp,
      identity,
      shapingHeaders,
      openRequests: 1,
      key: keyDigest,
      calls: new Set(),
    };
    mcp.onclose = () => this.sessions.remove(transport.sessionId ?? "");
    try {
      await mcp.connect(transport);
      await answerWith(transport, req, res, body, auth);
    } finally {
      release(false);
      if (!logLine.session) void mcp.close();
    }
  }

  private refusal(cap: SessionRefusal): HttpProblem {
    const message =
      cap === "server"
        ? `Service Unavailable: ${this.sessions.maxSessions} sessions are open, the most this server allows; retry later`
        : `Service Unavailable: this API key holds ${this.sessions.maxSessionsPerKey} open session${this.sessions.maxSessionsPerKey === 1 ? "" : "s"}, the most one key may hold (--max-sessions-per-key); end one (DELETE /mcp with its Mcp-Session-Id) or retry later`;
    return new HttpProblem(503, RpcCode.serverError, message, { "retry-after": RETRY_AFTER_SECONDS });
  }
}
