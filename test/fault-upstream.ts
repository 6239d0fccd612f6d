// A loopback upstream that misbehaves on request: it hangs, drips, resets, lies about JSON, rate
// limits or floods. It records every request and every socket, so tests can count what reached it
// and see that each connection was closed.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface FaultRequest {
  method: string;
  path: string;
  body: unknown;
  /** Resolves when this request's connection closes. */
  socketClosed: Promise<void>;
  /** Whether the handler finished an answer to this request. */
  answered: boolean;
}

/** Answers one request; `index` counts requests from 0 since the handler was set. */
export type FaultHandler = (res: ServerResponse, request: FaultRequest, index: number) => void;

export interface FaultUpstream {
  url: string;
  port: number;
  requests: FaultRequest[];
  /** Resolves with each request as it arrives (after its body was read). */
  nextRequest(): Promise<FaultRequest>;
  answerWith(handler: FaultHandler): void;
  openSockets(): number;
  /** Resolves once no connection is open. */
  allSocketsClosed(): Promise<void>;
  close(): Promise<void>;
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
};

export const faults = {
  ok:
    (body: unknown = { ok: true }): FaultHandler =>
    (res) =>
      json(res, 200, body),
  status:
    (status: number, body: unknown, headers: Record<string, string> = {}): FaultHandler =>
    (res) =>
      json(res, status, body, headers),
  /** Reads the request and never answers. */
  hang: (): FaultHandler => () => {},
  /** Headers at once, then one byte of a body that never ends every `everyMs`. */
  drip:
    (everyMs = 50): FaultHandler =>
    (res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write("[");
      const timer = setInterval(() => res.write("0,"), everyMs);
      res.on("close", () => clearInterval(timer));
    },
  /** Promises 1000 bytes, sends 10, then resets the connection. */
  resetMidBody: (): FaultHandler => (res) => {
    res.writeHead(200, { "content-type": "application/json", "content-length": "1000" });
    res.write('{"items": [', () => (res.socket as Socket).resetAndDestroy());
  },
  /** A 200 whose JSON stops halfway. */
  truncatedJson: (): FaultHandler => (res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end('{"items": [{"id": "a"}, {"id"');
  },
  /** A proxy's error page: markup, a script and a long text. */
  html502: (): FaultHandler => (res) => {
    res.writeHead(502, { "content-type": "text/html; charset=utf-8" });
    res.end(
      `<!DOCTYPE html><html><head><style>body{color:red}</style><script>alert("x")</script></head><body>` +
        `<h1>502 Bad Gateway</h1><p>The upstream server\u0007 did not respond.</p>${"<p>padding text</p>".repeat(200)}</body></html>`,
    );
  },
  /** A JSON array far past any sane cap, written in 16 KiB chunks until the client hangs up. */
  huge:
    (bytes: number): FaultHandler =>
    (res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.on("error", () => {});
      const chunk = `"${"x".repeat(16 * 1024 - 3)}",`;
      let sent = 0;
      const pump = () => {
        while (sent < bytes && !res.destroyed) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
        if (!res.destroyed) res.end('""]');
      };
      res.write("[");
      pump();
    },
  /** Each handler once, in order; the last one for every later request. */
  sequence:
    (...handlers: FaultHandler[]): FaultHandler =>
    (res, request, index) =>
      (handlers[Math.min(index, handlers.length - 1)] as FaultHandler)(res, request, index),
};

export async function startFaultUpstream(port = 0): Promise<FaultUpstream> {
  const requests: FaultRequest[] = [];
  const sockets = new Set<Socket>();
  const socketClosed = new WeakMap<Socket, Promise<void>>();
  const arrivals: ((request: FaultRequest) => void)[] = [];
  let handler: FaultHandler = faults.ok();
  let handled = 0;
  let idle: (() => void)[] = [];

  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    const request: FaultRequest = {
      method: req.method ?? "",
      path: req.url ?? "",
      body: text ? JSON.parse(text) : undefined,
      socketClosed: socketClosed.get(req.socket) ?? Promise.resolve(),
      answered: false,
    };
    res.on("finish", () => {
      request.answered = true;
    });
    requests.push(request);
    arrivals.shift()?.(request);
    handler(res, request, handled++);
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("error", () => {}); // a client that resets is part of the game
    socketClosed.set(socket, new Promise((resolve) => socket.once("close", () => resolve())));
    socket.on("close", () => {
      sockets.delete(socket);
      if (sockets.size === 0) for (const resolve of idle.splice(0)) resolve();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const address = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}`,
    port: address.port,
    requests,
    nextRequest: () => new Promise((resolve) => arrivals.push(resolve)),
    answerWith: (next) => {
      handler = next;
      handled = 0;
    },
    openSockets: () => sockets.size,
    allSocketsClosed: () =>
      sockets.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => idle.push(resolve)),
    close: () =>
      new Promise<void>((resolve) => {
        idle = [];
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
