// The one place that talks HTTP to an upstream: a shared keep-alive pool, JSON in and out, a bound
// on time and size per attempt, safe retries, a cap on requests in flight per key, and every failure
// turned into a typed error (errors.ts) that tools/errors.ts explains to the assistant.
import { Agent, type Dispatcher } from "undici";
import type { UpstreamSettings } from "../config.js";
import {
  UpstreamBodyError,
  UpstreamHttpError,
  UpstreamNetworkError,
  UpstreamTooLargeError,
} from "./errors.js";
import { KeyedLimiter } from "./limiter.js";
import { type RetryNotice, withRetries } from "./retry.js";

export interface UpstreamRequest {
  method: "GET" | "POST";
  url: string;
  headers: Record<string, string>;
  body?: unknown;
  signal?: AbortSignal;
}

/** How one call may be repeated, and who hears about it. */
export interface RetryPolicy {
  /** From the endpoint's `readOnly`: false for a call that creates data. */
  repeatable: boolean;
  onRetry?: (notice: RetryNotice) => void;
}

export type UpstreamLimits = Pick<
  UpstreamSettings,
  "timeoutMs" | "retryBudgetMs" | "maxResponseBytes" | "concurrency"
>;

/**
 * One pool for every upstream, built with the same maxResponseBytes the clients are given: undici
 * enforces that cap (maxResponseSize) as bytes arrive, and closes the socket. The time bound is an
 * abort signal per attempt instead of headersTimeout/bodyTimeout, because those restart with every
 * byte and so never stop a slow drip.
 */
export function createDispatcher(limits: Partial<Pick<UpstreamSettings, "maxResponseBytes">> = {}): Agent {
  return new Agent({
    keepAliveTimeout: 10_000,
    connections: 64,
    pipelining: 1,
    maxResponseSize: limits.maxResponseBytes ?? -1,
  });
}

/** Shared by every client in the process, so the cap holds per key whichever session sends. */
const inFlightPerKey = new KeyedLimiter();

export function requestJson(
  dispatcher: Dispatcher,
  request: UpstreamRequest,
  limits: UpstreamLimits,
  policy: RetryPolicy,
): Promise<unknown> {
  const key = request.headers["x-api-key"] ?? "";
  const sendOnce = () =>
    inFlightPerKey.run(key, limits.concurrency, request.signal, () =>
      requestOnce(dispatcher, request, limits),
    );
  return withRetries(sendOnce, {
    repeatable: policy.repeatable,
    budgetMs: limits.retryBudgetMs,
    signal: request.signal,
    onRetry: policy.onRetry,
  });
}

async function requestOnce(dispatcher: Dispatcher, request: UpstreamRequest, limits: UpstreamLimits) {
  const { timeoutMs } = limits;
  const url = new URL(request.url);
  const attempt = boundedAttempt(timeoutMs, request.signal);
  let response: Dispatcher.ResponseData;
  let text: string;
  try {
    response = await dispatcher.request({
      origin: url.origin,
      path: url.pathname + url.search,
      method: request.method,
      headers: request.headers,
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      signal: attempt.signal,
    });
    text = await response.body.text();
  } catch (error) {
    if (request.signal?.aborted) throw request.signal.reason ?? error;
    if (attempt.timedOut()) throw new UpstreamNetworkError(url.origin, "timeout", timeoutMs);
    if (errorCode(error) === "UND_ERR_RES_EXCEEDED_MAX_SIZE") {
      throw new UpstreamTooLargeError(limits.maxResponseBytes);
    }
    throw new UpstreamNetworkError(url.origin, networkCode(error));
  } finally {
    attempt.done();
  }
  return parseAnswer(response, text);
}

/**
 * One signal for an attempt, aborted by its time bound or by the caller's signal: a plain timer and a
 * listener, cheaper per request than AbortSignal.timeout plus AbortSignal.any, and cleared at once.
 */
function boundedAttempt(timeoutMs: number, callerSignal: AbortSignal | undefined) {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException("The upstream request timed out", "TimeoutError"));
  }, timeoutMs);
  const onCallerAbort = () => controller.abort(callerSignal?.reason);
  if (callerSignal?.aborted) onCallerAbort();
  else callerSignal?.addEventListener("abort", onCallerAbort, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    done() {
      clearTimeout(timer);
      callerSignal?.removeEventListener("abort", onCallerAbort);
    },
  };
}

function parseAnswer(response: Dispatcher.ResponseData, text: string): unknown {
  const parsed = parseBody(text);
  const { statusCode, headers } = response;
  if (statusCode < 200 || statusCode >= 300) {
    const retryAfter = headers["retry-after"];
    throw new UpstreamHttpError(
      statusCode,
      parsed.json ? parsed.value : excerptOf(text),
      Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
    );
  }
  if (!parsed.json) {
    const contentType = headers["content-type"];
    throw new UpstreamBodyError(statusCode, excerptOf(String(contentType ?? "none")), excerptOf(text));
  }
  return parsed.value;
}

const EXCERPT_CHARS = 120;

/** Collapses a non-JSON body (an HTML error page, say) to a short single line without markup. */
export function excerptOf(text: string): string {
  const flat = text
    .slice(0, 64 * 1024)
    .replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, " ")
    .replace(/<!--[\s\S]*?-->|<[^>]*>?/g, " ")
    .replace(/&[a-z0-9#]+;/gi, " ")
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

function errorCode(error: unknown): unknown {
  return (error as { code?: unknown } | null)?.code;
}

function networkCode(error: unknown): string {
  // undici reports a reset mid-answer, like any early close, as "other side closed" without a cause.
  if (errorCode(error) === "UND_ERR_SOCKET" && errorCode((error as Error).cause) === undefined) {
    return "ECONNRESET";
  }
  const seen = new Set<unknown>();
  let current: unknown = error;
  // undici wraps the socket error: the useful code is on the cause.
  while (current && typeof current === "object" && !seen.has(current)) {
    seen.add(current);
    const code = errorCode(current);
    if (typeof code === "string" && !code.startsWith("UND_ERR_")) return code;
    current = (current as { cause?: unknown }).cause;
  }
  const code = errorCode(error);
  return typeof code === "string" ? code : "network error";
}
