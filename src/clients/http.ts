// The one place that talks HTTP to an upstream: a shared keep-alive pool, JSON in and out, and every
// failure turned into a typed error that tools/errors.ts explains to the assistant.
import { Agent, type Dispatcher } from "undici";

export interface UpstreamRequest {
  method: "GET" | "POST";
  url: string;
  headers: Record<string, string>;
  body?: unknown;
  signal?: AbortSignal;
}

/** The upstream answered with a status outside 2xx. `body` is parsed JSON, or a short text excerpt. */
export class UpstreamHttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly retryAfter: string | undefined,
  ) {
    super(`upstream answered ${status}`);
  }
}

/** The request did not get an HTTP answer: refused, reset, DNS, TLS, or timed out. */
export class UpstreamNetworkError extends Error {
  constructor(
    readonly origin: string,
    readonly code: string,
    readonly timeoutMs?: number,
  ) {
    super(`could not reach ${origin} (${code})`);
  }
}

/** A 2xx answer whose body is not JSON. */
export class UpstreamBodyError extends Error {
  constructor(
    readonly status: number,
    readonly contentType: string,
    readonly excerpt: string,
  ) {
    super(`upstream answered ${status} with a body that is not JSON`);
  }
}

export interface HttpClientOptions {
  /** Bounds each request from connect to last body byte. */
  timeoutMs: number;
}

export function createDispatcher(): Dispatcher {
  return new Agent({ keepAliveTimeout: 10_000, connections: 64, pipelining: 1 });
}

const EXCERPT_CHARS = 200;

/** Collapses a non-JSON body (an HTML error page, say) to a short single-line excerpt. */
export function excerptOf(text: string): string {
  const flat = text
    .replace(/<[^>]*>/g, " ")
    .replace(/[^\x20-\x7e]+/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return flat.length > EXCERPT_CHARS ? `${flat.slice(0, EXCERPT_CHARS)}…` : flat;
}

function parseBody(text: string): { json: true; value: unknown } | { json: false } {
  try {
    return { json: true, value: JSON.parse(text) };
  } catch {
    return { json: false };
  }
}

export async function requestJson(
  dispatcher: Dispatcher,
  request: UpstreamRequest,
  options: HttpClientOptions,
): Promise<unknown> {
  const url = new URL(request.url);
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
  let response: Dispatcher.ResponseData;
  let text: string;
  try {
    response = await dispatcher.request({
      origin: url.origin,
      path: url.pathname + url.search,
      method: request.method,
      headers: request.headers,
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      signal,
    });
    text = await response.body.text();
  } catch (error) {
    if (request.signal?.aborted) throw request.signal.reason ?? error;
    if (timeout.aborted) throw new UpstreamNetworkError(url.origin, "timeout", options.timeoutMs);
    throw new UpstreamNetworkError(url.origin, networkCode(error));
  }
  const parsed = parseBody(text);
  const { statusCode } = response;
  if (statusCode < 200 || statusCode >= 300) {
    const retryAfter = response.headers["retry-after"];
    throw new UpstreamHttpError(
      statusCode,
      parsed.json ? parsed.value : excerptOf(text),
      Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
    );
  }
  if (!parsed.json) {
    const contentType = response.headers["content-type"];
    throw new UpstreamBodyError(statusCode, String(contentType ?? "none"), excerptOf(text));
  }
  return parsed.value;
}

function networkCode(error: unknown): string {
  const seen = new Set<unknown>();
  let current: unknown = error;
  // undici wraps the socket error: the useful code is on the cause.
  while (current && typeof current === "object" && !seen.has(current)) {
    seen.add(current);
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && !code.startsWith("UND_ERR_")) return code;
    current = (current as { cause?: unknown }).cause;
  }
  const code = (error as { code?: unknown })?.code;
  return typeof code === "string" ? code : "network error";
}
