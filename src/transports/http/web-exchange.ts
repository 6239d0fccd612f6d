// The SDK's HTTP pieces (the 2026-07-28 handler, the 2025 streamable HTTP transport) speak web-standard
// Request/Response; node:http gives IncomingMessage and ServerResponse. This is the bridge, in place of
// @modelcontextprotocol/node's: the body, already parsed by body.ts, is handed to the SDK as `parsedBody`
// rather than serialized into the Request again, and an answer complete when it comes leaves in one write.
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import type { ReadableStreamReadResult } from "node:stream/web";
import type { AuthInfo, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";

/**
 * A Request with the method, URL and headers of `req` and no body (the SDK reads `parsedBody`), whose
 * `signal` is `signal` itself. Given to the constructor, a signal is followed by one of undici's own (a
 * listener and a FinalizationRegistry entry, about half the cost of the Request); the SDK only reads it.
 */
export function webRequestOf(req: IncomingMessage, signal?: AbortSignal): Request {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    // Pseudo-headers (HTTP/2) and the framing of a body the Request does not carry are left out.
    if (value === undefined || name.startsWith(":") || name === "content-length") continue;
    if (name === "transfer-encoding") continue;
    headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  const url = `http://${req.headers.host ?? "localhost"}${req.url ?? "/"}`;
  const request = new Request(url, { method: req.method, headers });
  if (signal) Object.defineProperty(request, "signal", { value: signal });
  return request;
}

/**
 * An AbortSignal that fires when the client goes away before its answer was sent: the SDK stops the
 * request's work (on 2026-07-28, closing the response is how a client cancels).
 */
export function abortOnClientGone(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  res.once("close", () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}

type Chunk = ReadableStreamReadResult<Uint8Array>;

/**
 * Headers of a web Response that node:http sets itself: the connection's fate (keep-alive, or close while
 * the server drains) and the framing of the body. The SDK's event streams name `Connection: keep-alive`,
 * which node would honour over a drain's close.
 */
const NODE_OWNED = new Set(["connection", "keep-alive", "transfer-encoding", "content-length"]);

/** The chunk `pending` reads, if it is there by the next turn of the event loop. */
function readSoon(pending: Promise<Chunk>) {
  return new Promise<Chunk | undefined>((resolve) => {
    const immediate = setImmediate(() => resolve(undefined));
    pending.then(
      (chunk) => {
        clearImmediate(immediate);
        resolve(chunk);
      },
      () => resolve({ done: true, value: undefined }),
    );
  });
}

/**
 * Writes `response` to `res`. A body that is complete as soon as its first chunk is there (a JSON
 * answer, or an event stream holding one answer) is sent with Content-Length in one write; any other
 * is relayed chunk by chunk as it comes, with backpressure. The headers of an answer to a POST wait
 * for its first chunk; those of a GET's event stream, which may stay silent, go out at once.
 */
export async function sendWebResponse(
  req: IncomingMessage,
  res: ServerResponse,
  response: Response,
): Promise<void> {
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of response.headers) if (!NODE_OWNED.has(name)) headers[name] = value;
  if (response.body === null) {
    res.writeHead(response.status, headers).end();
    return;
  }
  const reader = response.body.getReader();
  const stop = () => void reader.cancel().catch(() => {});
  res.once("close", stop);
  try {
    let pending = reader.read();
    const first = req.method === "POST" ? await pending : undefined;
    if (first === undefined) {
      res.writeHead(response.status, headers).flushHeaders();
    } else if (first.done) {
      res.writeHead(response.status, { ...headers, "content-length": 0 }).end();
      return;
    } else {
      pending = reader.read();
      const second = await readSoon(pending);
      if (second?.done) {
        res.writeHead(response.status, { ...headers, "content-length": first.value.byteLength });
        res.end(first.value);
        return;
      }
      res.writeHead(response.status, headers);
      res.write(first.value);
      if (second !== undefined) {
        res.write(second.value);
        pending = reader.read();
      }
    }
    await relay(res, reader, pending);
  } finally {
    res.off("close", stop);
  }
}

async function relay(
  res: ServerResponse,
  reader: ReadableStreamDefaultReader<Uint8Array>,
  next: Promise<Chunk>,
): Promise<void> {
  try {
    for (let chunk = await next; !chunk.done && !res.destroyed; chunk = await reader.read()) {
      if (!res.write(chunk.value)) await drained(res);
    }
  } catch {
    // The stream failed mid-answer: the client sees the connection end rather than wait forever.
    res.destroy();
    return;
  }
  if (!res.destroyed) res.end();
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.once("drain", done);
    res.once("close", done);
  });
}

/** Hands one 2025-revision request to the SDK's streamable HTTP transport, with its parsed body, and writes the answer. */
export async function answerWith(
  transport: WebStandardStreamableHTTPServerTransport,
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
  authInfo?: AuthInfo,
): Promise<void> {
  const request = webRequestOf(req);
  await sendWebResponse(req, res, await transport.handleRequest(request, { parsedBody: body, authInfo }));
}
