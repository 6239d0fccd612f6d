// The 2026-07-28 revision over HTTP: every request stands alone, so the SDK's handler answers it with
// a fresh server instance, whatever the deployment's mode (sessions are a 2025-era notion). Closing
// the response stream is how a client cancels; the SDK then aborts the call and its upstream request.
import type { IncomingMessage, ServerResponse } from "node:http";
import { type AuthInfo, createMcpHandler, type Server } from "@modelcontextprotocol/server";
import { log } from "../../log.js";
import type { RequestServer } from "./user-servers.js";
import { abortOnClientGone, sendWebResponse, webRequestOf } from "./web-exchange.js";

/** How the request's own server reaches the factory: through the pass-through auth info. */
interface ServerCarrier extends AuthInfo {
  extra: { build: () => Server };
}

export class ModernEndpoint {
  private readonly handler = createMcpHandler(({ authInfo }) => (authInfo as ServerCarrier).extra.build(), {
    legacy: "reject",
    onerror: (error) => log("debug", "2026-07-28 request refused", { error: error.message.slice(0, 200) }),
  });

  /** `body` is the parsed POST body; `server` was built from this request's headers. */
  async handle(
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    server: () => RequestServer,
  ): Promise<void> {
    const authInfo: ServerCarrier = { token: "", clientId: "", scopes: [], extra: { build: server().build } };
    const request = webRequestOf(req, abortOnClientGone(res));
    await sendWebResponse(req, res, await this.handler.fetch(request, { authInfo, parsedBody: body }));
  }

  close(): Promise<void> {
    return this.handler.close();
  }
}
