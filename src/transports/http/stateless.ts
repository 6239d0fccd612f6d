// The stateless mode: every POST gets a server and transport of its own, dropped when the answer has gone
// out. Nothing outlives a request, so any replica behind a load balancer can answer any request.
import type { IncomingMessage, ServerResponse } from "node:http";
import { NodeStreamableTransport } from "./node-transport.js";
import { HttpProblem, RpcCode } from "./replies.js";
import type { ServerForRequest } from "./user-servers.js";

export class StatelessEndpoint {
  constructor(private readonly serverForRequest: ServerForRequest) {}

  async handle(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
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
    const session = this.serverForRequest(req.headers).build();
    const transport = new NodeStreamableTransport();
    res.once("close", () => {
      // Answered: nothing is pending and the pair is simply dropped. Cut short: closing stops the rest.
      if (!res.writableFinished) void session.close();
    });
    await session.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  async close(): Promise<void> {}
}
