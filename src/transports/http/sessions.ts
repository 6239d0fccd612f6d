// Open sessions of the stateful mode: bounded in number, each expiring after an idle spell. A session
// with a request still open (a slow call, the client's event stream) is never idle.
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";

export interface Session {
  transport: StreamableHTTPServerTransport;
  server: Server;
  /** See RequestServer.identity. */
  identity: string;
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
    private readonly maxSessions: number,
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

  add(id: string, session: Session): void {
    this.sessions.set(id, session);
    this.armIdleTimer(session);
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
    if (session.openRequests > 0) return;
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
