// The body of POST /mcp, read here rather than by the transport: the server needs it to tell the
// protocol revision and an initialize from other requests, and to log the tool called. Each malformed request gets its own 4xx.
import type { IncomingMessage } from "node:http";
import { isJsonContentType } from "@modelcontextprotocol/server";
import { HttpProblem, RpcCode } from "./replies.js";

/** The Accept header is the SDK transports' to check; the body cannot be read as anything but JSON. */
function checkHeaders(req: IncomingMessage): void {
  if (!isJsonContentType(req.headers["content-type"])) {
    throw new HttpProblem(
      415,
      RpcCode.serverError,
      "Unsupported Media Type: Content-Type must be application/json",
    );
  }
}

function tooLarge(maxBytes: number): HttpProblem {
  return new HttpProblem(
    413,
    RpcCode.invalidRequest,
    `Payload Too Large: the body exceeds ${maxBytes} bytes`,
    {
      connection: "close",
    },
  );
}

/** The parsed JSON body. Plain stream events: an async iterator costs a few promises per request. */
export function readMcpBody(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  checkHeaders(req);
  if (Number(req.headers["content-length"] ?? 0) > maxBytes) throw tooLarge(maxBytes);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      req.off("close", onError);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      chunks.push(chunk);
      if (size <= maxBytes) return;
      stop();
      req.pause(); // the rest is not read: the connection closes after the answer
      reject(tooLarge(maxBytes));
    };
    const onEnd = () => {
      stop();
      try {
        resolve(JSON.parse((chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString("utf8")));
      } catch {
        reject(new HttpProblem(400, RpcCode.parseError, "Parse error: the body is not valid JSON"));
      }
    };
    // A client gone mid-body: whatever answer there is will not be read.
    const onError = (error?: Error) => {
      stop();
      reject(error ?? new Error("the client closed the connection before the body ended"));
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
    req.on("close", onError);
  });
}

const MAX_LOGGED_NAME = 100;

/** What the request log line says of a request, filled in as the request is handled. */
export interface RequestLogLine {
  method?: string;
  path: string;
  rpc?: string;
  tool?: string;
  session?: string;
  /** The protocol revision, when the request names one in its `_meta` (2026-07-28). */
  revision?: string;
}

/** The JSON-RPC method and, for tools/call, the tool name: what the request log shows of a body. */
export function describeBody(body: unknown): { rpc?: string; tool?: string } {
  const first = (Array.isArray(body) ? body[0] : body) as
    | { method?: unknown; params?: { name?: unknown } }
    | undefined;
  const rpc = typeof first?.method === "string" ? first.method : undefined;
  const name = first?.params?.name;
  const tool = rpc === "tools/call" && typeof name === "string" ? name.slice(0, MAX_LOGGED_NAME) : undefined;
  return { rpc: rpc?.slice(0, MAX_LOGGED_NAME), tool };
}
