// Retries of one upstream call, only where they are safe. A loop of our own rather than undici's
// RetryHandler: that handler cannot stop at a retry budget and report the wait it skipped, tell the
// client about each wait (progress), or retry a request that creates data only when the connection
// was refused; and it spends its waits outside the abort signal of the MCP call.
import { log, logs } from "../log.js";
import { UpstreamError, UpstreamHttpError, UpstreamNetworkError } from "./errors.js";

export const MAX_ATTEMPTS = 3;
/** First backoff; doubled per attempt, then jittered down by up to half. */
const BASE_DELAY_MS = 500;
const RETRIED_STATUSES = new Set([429, 502, 503, 504]);
/** Connect failures: the request never left, so even a call that creates data may go again. */
const NOT_SENT_CODES = new Set(["ECONNREFUSED", "UND_ERR_CONNECT_TIMEOUT"]);
/** The request may have been received, but a read can safely be asked again. */
const DROPPED_CODES = new Set(["timeout", "ECONNRESET", "EPIPE"]);

export interface RetryNotice {
  /** The attempt that just failed (1-based). */
  attempt: number;
  maxAttempts: number;
  delayMs: number;
  /** Why, e.g. "upstream answered 503". */
  reason: string;
}

/**
 * What the caller of one tool call hands down to its upstream requests: the same object from the MCP
 * handler to the last retry wait, never copied.
 */
export interface CallControl {
  /** Aborted when the MCP client cancels the call or goes away: the upstream request stops at once. */
  signal?: AbortSignal;
  /** Told before each wait for a retry (the MCP progress notification, when the client asked). */
  onRetry?: (notice: RetryNotice) => void;
}

export interface RetryOptions {
  /** True for reads; false when a repeat could do a thing twice (create a comment). */
  repeatable: boolean;
  /**
   * No attempt starts later than this after the call began (attempts and waits both count), so a call
   * ends within budgetMs plus one attempt's timeout: under the request timeout common clients use.
   */
  budgetMs: number;
  /** Named in each attempt's debug line: the method and the route (the endpoint's path), never a header. */
  attemptOf?: { method: string; route: string };
}

/**
 * One debug line per attempt, so a person can watch a retry happen: method, route, attempt, its
 * status (or network code) and time, and the wait before the next attempt, or why there is none.
 */
function logAttempt(
  options: RetryOptions,
  attempt: number,
  ms: number,
  outcome: Record<string, unknown>,
): void {
  if (!options.attemptOf || !logs("debug")) return;
  log("debug", "upstream attempt", { ...options.attemptOf, attempt, ms: Math.round(ms), ...outcome });
}

/** What a failed attempt got: the status, or the network failure's code. */
const outcomeOf = (error: UpstreamError): Record<string, unknown> =>
  error instanceof UpstreamHttpError
    ? { status: error.status }
    : error instanceof UpstreamNetworkError
      ? { network: error.code }
      : { failure: error.name };

/** "upstream answered 503; retrying in 1.2 s (attempt 2 of 3)" */
export function describeRetry(notice: RetryNotice): string {
  const seconds = (notice.delayMs / 1000).toFixed(1);
  return `${notice.reason}; retrying in ${seconds} s (attempt ${notice.attempt + 1} of ${notice.maxAttempts})`;
}

/**
 * The clock of every retry: the waits and the time the budget counts. One object the tests replace
 * (test/retry-clock.ts) to skip the waits while the budget still counts them; nothing else sets it.
 */
export const retryClock = {
  now: (): number => performance.now(),
  pause: (ms: number, signal: AbortSignal | undefined): Promise<void> => pause(ms, signal),
};

export async function withRetries<T extends { status?: number }>(
  send: () => Promise<T>,
  options: RetryOptions,
  control: CallControl,
): Promise<T> {
  const started = retryClock.now();
  for (let attempt = 1; ; attempt++) {
    const began = retryClock.now();
    try {
      const answer = await send();
      logAttempt(options, attempt, retryClock.now() - began, { status: answer.status });
      return answer;
    } catch (error) {
      if (control.signal?.aborted || !(error instanceof UpstreamError)) throw error;
      error.attempts = attempt;
      const ms = retryClock.now() - began;
      const reason = retryReason(error, options.repeatable);
      if (reason === undefined || attempt >= MAX_ATTEMPTS) {
        logAttempt(options, attempt, ms, { ...outcomeOf(error), retry: reason ? "no: last attempt" : "no" });
        throw error;
      }
      const delayMs = delayBeforeRetry(error, attempt);
      if (retryClock.now() - started + delayMs > options.budgetMs) {
        logAttempt(options, attempt, ms, {
          ...outcomeOf(error),
          retry: "no: beyond the budget",
          waitMs: delayMs,
        });
        error.retryInMs = delayMs;
        throw error;
      }
      logAttempt(options, attempt, ms, { ...outcomeOf(error), waitMs: delayMs });
      control.onRetry?.({ attempt, maxAttempts: MAX_ATTEMPTS, delayMs, reason });
      await retryClock.pause(delayMs, control.signal);
    }
  }
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const stop = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", stop);
      resolve();
    }, ms);
    signal?.addEventListener("abort", stop);
  });
}

/** Why this failure may be retried, or undefined when it must not be. */
function retryReason(error: UpstreamError, repeatable: boolean): string | undefined {
  if (error instanceof UpstreamNetworkError) {
    if (NOT_SENT_CODES.has(error.code)) return `connection refused (${error.code})`;
    if (!repeatable || !DROPPED_CODES.has(error.code)) return undefined;
    return error.code === "timeout"
      ? `upstream did not answer within ${error.timeoutMs} ms`
      : `connection lost (${error.code})`;
  }
  if (repeatable && error instanceof UpstreamHttpError && RETRIED_STATUSES.has(error.status)) {
    return `upstream answered ${error.status}`;
  }
  return undefined;
}

function delayBeforeRetry(error: UpstreamError, attempt: number): number {
  const asked = error instanceof UpstreamHttpError ? retryAfterMs(error.retryAfter) : undefined;
  if (asked !== undefined) return asked;
  const ceiling = BASE_DELAY_MS * 2 ** (attempt - 1);
  return Math.round(ceiling * (0.5 + Math.random() / 2));
}

/** `Retry-After` as a wait in ms: delay-seconds or an HTTP date; undefined when absent or unreadable. */
function retryAfterMs(header: string | undefined, now = Date.now()): number | undefined {
  if (header === undefined) return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
