// The one place that talks HTTP to an upstream: a shared keep-alive pool, JSON in and out, a bound
// on time and size per attempt, safe retries, a cap on requests in flight per key, and every failure
// turned into a typed error (errors.ts) that tools/errors.ts explains to the assistant.
/// <reference path="./undici-agent.d.ts" />
import type { Agent, Dispatcher } from "undici";
import UndiciAgent from "undici/lib/dispatcher/agent.js";
import type { UpstreamSettings } from "../config/types.js";
import * as telemetry from "../telemetry/index.js";
import {
  UpstreamBodyError,
  UpstreamHttpError,
  UpstreamNetworkError,
  UpstreamTooLargeError,
} from "./errors.js";
import { KeyedLimiter } from "./limiter.js";
import { type CallControl, withRetries } from "./retry.js";

export type ApiName = "workspace" | "analytics";

/** What the clients read of an endpoint's definition (tools/definition.ts extends it). */
export interface UpstreamEndpoint {
  api: ApiName;
  method: "GET" | "POST";
  /** Path below the API's base URL. */
  path: string;
  /**
   * Whether the endpoint acts on one project: workspace tools then send `X-Project-Id`, analytics
   * tools the body field `project_id`; either way a default applies when the caller gives none.
   */
  projectScoped: boolean;
  /** False only for endpoints that create data: they are annotated, and retried, differently. */
  readOnly: boolean;
}

export interface UpstreamRequest {
  /** Which API, and the endpoint's path template: what telemetry labels the request with and the debug line of each attempt names. */
  api: ApiName;
  route: string;
  method: "GET" | "POST";
  url: string;
  headers: Record<string, string>;
  body?: unknown;
  /** From the endpoint's `readOnly`: false for a call that creates data, retried only when unsent. */
  repeatable: boolean;
  /** Whose in-flight cap the request counts against: the API key's digest (keyDigest), never the key. */
  lane: string;
}

export type UpstreamLimits = Pick<
  UpstreamSettings,
  "timeoutMs" | "retryBudgetMs" | "maxResponseBytes" | "concurrency"
>;

/**
 * One pool for every upstream, built with the same maxResponseBytes the clients are given: undici
 * enforces that cap (maxResponseSize) as bytes arrive, and closes the socket. The time bound is a timer
 * per attempt instead of headersTimeout/bodyTimeout, because those restart with every byte and so
 * never stop a slow drip.
 */
export function createDispatcher(limits: Partial<Pick<UpstreamSettings, "maxResponseBytes">> = {}): Agent {
  return new UndiciAgent({
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
  control: CallControl,
): Promise<UpstreamJson> {
  const { origin, path } = targetOf(request.url);
  // Built once for every attempt: undici copies what it needs from it.
  const options: Dispatcher.DispatchOptions = {
    origin,
    path,
    method: request.method,
    headers: request.headers,
    body: request.body === undefined ? null : JSON.stringify(request.body),
  };
  const { signal } = control;
  const attemptOf = { method: request.method, route: request.route };
  const retries = { repeatable: request.repeatable, budgetMs: limits.retryBudgetMs, attemptOf };
  const observing = telemetry.active;
  if (observing)
    return withRetries(
      observedAttempts(observing, dispatcher, request, options, limits, signal),
      retries,
      control,
    );
  const sendOnce = () =>
    inFlightPerKey.run(request.lane, limits.concurrency, signal, () =>
      requestOnce(dispatcher, options, limits, signal),
    );
  return withRetries(sendOnce, retries, control);
}

/**
 * Attempts as telemetry sees them: each in a client span whose `traceparent` goes to the API, counted
 * by status; a retry counted with the previous attempt's failure as its reason.
 */
function observedAttempts(
  observing: telemetry.ActiveTelemetry,
  dispatcher: Dispatcher,
  request: UpstreamRequest,
  options: Dispatcher.DispatchOptions,
  limits: UpstreamLimits,
  signal: AbortSignal | undefined,
): () => Promise<UpstreamJson> {
  const { api, route, method } = request;
  let resendCount = 0;
  let previousFailure: string | undefined;
  return () =>
    inFlightPerKey.run(request.lane, limits.concurrency, signal, async () => {
      if (previousFailure !== undefined) observing.retry(api, route, previousFailure);
      const attempt = observing.upstreamAttempt({
        api,
        method,
        route,
        origin: options.origin as string,
        resendCount: resendCount++,
      });
      const headers = { ...request.headers, ...attempt.headers };
      try {
        const answer = await requestOnce(dispatcher, { ...options, headers }, limits, signal);
        attempt.end(answer.status, undefined);
        return answer;
      } catch (error) {
        previousFailure = failureKind(error, signal);
        attempt.end(error instanceof UpstreamHttpError ? error.status : undefined, previousFailure);
        throw error;
      }
    });
}

/** A failed attempt as a low-cardinality `error.type`: the status, the network code, or what else. */
function failureKind(error: unknown, signal: AbortSignal | undefined): string {
  if (signal?.aborted) return "cancelled";
  if (error instanceof UpstreamHttpError) return String(error.status);
  if (error instanceof UpstreamNetworkError) return error.code;
  if (error instanceof UpstreamTooLargeError) return "response_too_large";
  if (error instanceof UpstreamBodyError) return "invalid_body";
  return "_OTHER";
}

interface Target {
  origin: string;
  path: string;
}

/** Bounds the cache below; base URLs come from the environment and paths from the endpoint tables. */
const MAX_TARGETS = 256;
const targets = new Map<string, Target>();

/** The origin and path of a URL, parsed once per URL rather than once per request. */
function targetOf(url: string): Target {
  let target = targets.get(url);
  if (target === undefined) {
    const parsed = new URL(url);
    target = { origin: parsed.origin, path: parsed.pathname + parsed.search };
    if (targets.size >= MAX_TARGETS) targets.clear();
    targets.set(url, target);
  }
  return target;
}

function requestOnce(
  dispatcher: Dispatcher,
  options: Dispatcher.DispatchOptions,
  limits: UpstreamLimits,
  signal: AbortSignal | undefined,
): Promise<UpstreamJson> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    dispatcher.dispatch(
      options,
      new AnswerHandler(resolve, reject, options.origin as string, limits, signal),
    );
  });
}

/** Answer headers as undici parses them. */
type AnswerHeaders = Dispatcher.ResponseData["headers"];

/**
 * Collects one answer straight from undici's callbacks (no body stream, no abort signal of its own)
 * and settles once: with the parsed body, a typed error, the caller's abort reason, or a timeout.
 * The timeout runs from dispatch to the last byte, so it also stops a slow drip. An abort settles at
 * once and closes the socket through the controller undici hands over, or, for a request still
 * waiting for a connection, as soon as undici starts it (onRequestStart), before anything is sent.
 */
class AnswerHandler implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined;
  private statusCode = 0;
  private headers: AnswerHeaders = {};
  private readonly chunks: Buffer[] = [];
  private settled = false;
  /** Why the attempt was stopped before its answer: handed to the controller as the abort reason. */
  private stopReason: unknown;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly resolve: (value: UpstreamJson) => void,
    private readonly reject: (error: unknown) => void,
    private readonly origin: string,
    private readonly limits: UpstreamLimits,
    private readonly signal: AbortSignal | undefined,
  ) {
    this.timer = setTimeout(AnswerHandler.timeOut, limits.timeoutMs, this);
    // The handler is its own listener (handleEvent): no closure per attempt.
    signal?.addEventListener("abort", this);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.settled) controller.abort(this.stopReason as Error);
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: AnswerHeaders) {
    this.statusCode = statusCode;
    this.headers = headers;
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.chunks.push(chunk);
  }

  onResponseEnd(): void {
    if (!this.settle()) return;
    const { chunks } = this;
    const text = chunks.length === 1 ? chunks[0]!.toString() : Buffer.concat(chunks).toString();
    try {
      this.resolve(parseAnswer(this.statusCode, this.headers, text));
    } catch (error) {
      this.reject(error);
    }
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    if (!this.settle()) return;
    this.reject(
      errorCode(error) === "UND_ERR_RES_EXCEEDED_MAX_SIZE"
        ? new UpstreamTooLargeError(this.limits.maxResponseBytes)
        : new UpstreamNetworkError(this.origin, networkCode(error)),
    );
  }

  /** The caller's signal aborted. */
  handleEvent(): void {
    this.stop(this.signal?.reason);
  }

  /** Rejects with `reason` and closes the socket now, or when undici starts the request. */
  private stop(reason: unknown): void {
    if (!this.settle()) return;
    this.stopReason = reason;
    this.reject(reason);
    this.controller?.abort(reason as Error);
  }

  private static timeOut(handler: AnswerHandler): void {
    handler.stop(new UpstreamNetworkError(handler.origin, "timeout", handler.limits.timeoutMs));
  }

  /** True the first time: clears the timer and the listener, so the attempt holds nothing after. */
  private settle(): boolean {
    if (this.settled) return false;
    this.settled = true;
    clearTimeout(this.timer);
    this.signal?.removeEventListener("abort", this);
    return true;
  }
}

/**
 * A successful upstream answer: the parsed body, and the JSON text it was parsed from when that text is
 * one line (a tool result's text block can then carry it as is, instead of a JSON.stringify of the value).
 */
export interface UpstreamJson {
  value: unknown;
  text?: string;
  /** The 2xx status it came with. */
  status?: number;
}

/** The text, trailing line break trimmed, when it is one line: answers are framed by lines (stdio, SSE). */
function oneLine(text: string): string | undefined {
  const last = text.charCodeAt(text.length - 1);
  const trimmed = last === 0x0a || last === 0x0d ? text.trim() : text;
  return trimmed.includes("\n") || trimmed.includes("\r") ? undefined : trimmed;
}

function parseAnswer(statusCode: number, headers: AnswerHeaders, text: string): UpstreamJson {
  const parsed = parseBody(text);
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
  return { value: parsed.value, text: oneLine(text), status: statusCode };
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
