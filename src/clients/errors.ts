// Failures found before anything is sent: they tell the assistant or the user what to change.
import type { UpstreamSettings } from "../config/types.js";
import { envOf, type FormSetting, missingAdvice } from "../settings-names.js";

/** A required setting is missing; `variable` names what to set. */
export class MissingConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A setting a call cannot go without: its value, or the MissingConfigError that says how to set it
 * (`envMessage` where settings are environment variables; in the extension, the form's field).
 */
export function requireSetting(
  value: string | undefined,
  settings: UpstreamSettings,
  key: FormSetting,
  what: string,
  envMessage: string,
): string {
  if (value) return value;
  throw new MissingConfigError(envOf(key), missingAdvice(settings, key, what, envMessage));
}

/** The call cannot go out as given (no project chosen, say); the message says what to pass. */
export class ToolInputError extends Error {}

// Failures of the upstream exchange itself. The retry loop records how many attempts were made and,
// when it chose not to wait, how long the wait would have been.

export abstract class UpstreamError extends Error {
  /** Requests sent (or tried) before giving up. */
  attempts = 1;
  /** Set when a retry was due but its wait did not fit the retry budget. */
  retryInMs?: number;
}

/** The upstream answered with a status outside 2xx. `body` is parsed JSON, or a short text excerpt. */
export class UpstreamHttpError extends UpstreamError {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly retryAfter: string | undefined,
  ) {
    super(`upstream answered ${status}`);
  }
}

/** The request did not get a whole HTTP answer: refused, reset, DNS, TLS, or timed out. */
export class UpstreamNetworkError extends UpstreamError {
  constructor(
    readonly origin: string,
    readonly code: string,
    readonly timeoutMs?: number,
  ) {
    super(`could not reach ${origin} (${code})`);
  }
}

/** An answer whose body is not JSON. */
export class UpstreamBodyError extends UpstreamError {
  constructor(
    readonly status: number,
    readonly contentType: string,
    readonly excerpt: string,
  ) {
    super(`upstream answered ${status} with a body that is not JSON`);
  }
}

/** An answer whose body is larger than UPSTREAM_MAX_BYTES: it was cut off. */
export class UpstreamTooLargeError extends UpstreamError {
  constructor(readonly maxBytes: number) {
    super(`upstream body exceeds ${maxBytes} bytes`);
  }
}
