// The 2026-07-28 revision over HTTP: every request stands alone, so the SDK's handler answers it with
// a fresh server instance, whatever the deployment's mode (sessions are a 2025-revision notion). Closing
// the response stream is how a client cancels; the SDK then aborts the call and its upstream request.
import type { IncomingMessage, ServerResponse } from "node:http";
import { type AuthInfo, createMcpHandler, type Server } from "@modelcontextprotocol/server";
import { log } from "../../log.js";
import type { RequestServer } from "./user-servers.js";
import { abortOnClientGone, sendWebResponse, webRequestOf } from "./web-exchange.js";

export class Revision20260728Endpoint {
  /**
   * Each request's own server factory, keyed by the web Request the SDK hands back to the handler's
   * factory (`requestInfo`): an entry goes with its request.
   */
  private readonly builders = new WeakMap<Request, () => Server>();
  private readonly handler = createMcpHandler(({ requestInfo }) => this.serverFor(requestInfo), {
    legacy: "reject",
    onerror: (error) => log("debug", "2026-07-28 request refused", { error: error.message.slice(0, 200) }),
  });

  /** `body` is the parsed POST body; `server` was built from this request's headers. */
  async handle(
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    server: () => RequestServer,
    auth?: AuthInfo,
  ): Promise<void> {
    const { build } = server();
    const request = webRequestOf(req, abortOnClientGone(res));
    this.builders.set(request, build);
    await sendWebResponse(req, res, await this.handler.fetch(request, { parsedBody: body, authInfo: auth }));
  }

  private serverFor(request: Request | undefined): Server {
    const build = request && this.builders.get(request);
    if (!build) throw new Error("no server factory for this request");
    return build();
  }

  close(): Promise<void> {
    return this.handler.close();
  }
}
