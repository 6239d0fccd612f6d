// The 2025 revisions without sessions (--stateless): every POST gets a server and transport of its
// own, dropped when the answer has gone out, so any replica can answer any request. A cancellation
// arrives in a POST of its own: it reaches the call it names when that call runs in this process
// under the same per-user headers (a cancel landing on another replica cannot reach it).

import type { IncomingMessage, ServerResponse } from "node:http";
import {
  type AuthInfo,
  type RequestId,
  type Server,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import type { RequestLogLine } from "./body.js";
import { HttpProblem, RpcCode } from "./replies.js";
import { cancelledIdOf, requestIdOf } from "./rpc-ids.js";
import type { RequestServer } from "./user-servers.js";
import { answerWith } from "./web-exchange.js";

export class StatelessEndpoint {
  /** Calls in flight, by the headers that built their server and their request id. */
  private readonly running = new Map<string, Server>();

  async handle(
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    _logLine: RequestLogLine,
    serverOf: () => RequestServer,
    auth?: AuthInfo,
  ): Promise<void> {
    if (req.method !== "POST") {
      // No session: no event stream to GET, nothing to DELETE.
      throw new HttpProblem(
        405,
        RpcCode.serverError,
        "Method Not Allowed: this server is stateless, only POST",
        {
          allow: "POST",
        },
      );
    }
    const server = serverOf();
    const cancelled = cancelledIdOf(body);
    if (cancelled !== undefined) void this.running.get(keyOf(server, cancelled))?.close();

    const instance = server.build();
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    const id = requestIdOf(body);
    const key = id === undefined ? undefined : keyOf(server, id);
    if (key !== undefined) this.running.set(key, instance);
    res.once("close", () => {
      if (key !== undefined && this.running.get(key) === instance) this.running.delete(key);
      // Answered: nothing is pending. Cut short: closing stops the call and its upstream request.
      void instance.close();
    });
    await instance.connect(transport);
    await answerWith(transport, req, res, body, auth);
  }

  async close(): Promise<void> {
    await Promise.all([...this.running.values()].map((instance) => instance.close()));
  }
}

const keyOf = (server: RequestServer, id: RequestId) => `${server.shapingHeaders}\n${JSON.stringify(id)}`;
