// The one function that turns any failure of a tool call into the result the assistant sees:
// `isError: true`, the tool's name, what happened, and what to do next. Never an API key.
import type { CallToolResult } from "@modelcontextprotocol/server";
import {
  MissingConfigError,
  ToolInputError,
  UpstreamBodyError,
  type UpstreamError,
  UpstreamHttpError,
  UpstreamNetworkError,
  UpstreamTooLargeError,
} from "../clients/errors.js";
import type { LogLevel, UpstreamSettings } from "../config/types.js";
import { settingName, settingRef, settingsPlace } from "../settings-names.js";
import type { EndpointDefinition } from "./definition.js";
import { redact } from "./key-scrub.js";
import { sanitizeMessage } from "./sanitize.js";

const DETAIL_CHARS = 300;
/** The 422 field list is quoted at most this long; a Retry-After value, this long. */
const VALIDATION_CHARS = 600;
const RETRY_AFTER_CHARS = 64;
/** Connect-phase codes: the service was never reached (the others mean a connection was lost). */
const UNREACHED_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]);

export function errorResult(text: string): CallToolResult {
  return { isError: true, content: [{ type: "text", text }] };
}

export function toolErrorResult(
  definition: EndpointDefinition,
  error: unknown,
  settings: UpstreamSettings,
): CallToolResult {
  const message = redact(`${definition.name}: ${describeFailure(definition, error, settings)}`, settings);
  if (settings.sanitize === "off") return errorResult(message);
  // The message may quote the API's own text (a detail, a body excerpt): sanitized like an answer, after
  // the keys are scrubbed (so `[redacted]` is judged too), and scrubbed again should removing a hidden
  // character have joined the pieces of one.
  const clean = sanitizeMessage(message);
  const again = redact(clean, settings);
  return errorResult(again === clean ? clean : sanitizeMessage(again));
}

/**
 * How a failure is logged: `warning` for what the caller or the configuration can fix, `error` for a
 * failing or unreachable service. Only a status or an error code: never a message that might quote a key.
 */
export function failureLog(error: unknown): { level: LogLevel; fields: Record<string, unknown> } {
  if (error instanceof MissingConfigError) return { level: "warning", fields: { missing: error.variable } };
  if (error instanceof ToolInputError) return { level: "warning", fields: { reason: "input" } };
  if (error instanceof UpstreamHttpError) {
    return { level: error.status >= 500 ? "error" : "warning", fields: { status: error.status } };
  }
  if (error instanceof UpstreamNetworkError) return { level: "error", fields: { network: error.code } };
  if (error instanceof UpstreamBodyError) {
    return { level: "error", fields: { status: error.status, reason: "not JSON" } };
  }
  if (error instanceof UpstreamTooLargeError) return { level: "error", fields: { reason: "too large" } };
  return { level: "error", fields: { reason: error instanceof Error ? error.name : typeof error } };
}

function describeFailure(definition: EndpointDefinition, error: unknown, settings: UpstreamSettings): string {
  if (error instanceof MissingConfigError || error instanceof ToolInputError) return error.message;
  if (error instanceof UpstreamHttpError) return describeHttpError(definition, error, settings);
  if (error instanceof UpstreamNetworkError) return describeNetworkError(definition, error, settings);
  if (error instanceof UpstreamBodyError) {
    return `the ${definition.api} API answered ${error.status} with a body that is not JSON (content type ${error.contentType}): "${error.excerpt}". Retry later; the service may be misconfigured.`;
  }
  if (error instanceof UpstreamTooLargeError) {
    return `the ${definition.api} API sent more than ${error.maxBytes} bytes (UPSTREAM_MAX_BYTES), so the answer was cut off. Ask for less (a smaller page or fewer metrics), or raise UPSTREAM_MAX_BYTES.`;
  }
  return `unexpected failure (${error instanceof Error ? error.name : typeof error}). Retry; report it if it persists.`;
}

/** " after 3 attempts" once the call was retried. */
const attemptsNote = (error: UpstreamError) =>
  error.attempts > 1 ? ` after ${error.attempts} attempts` : "";

/** For a call that creates data, the next step after a failure that may have come after the write. */
const notRepeated = (definition: EndpointDefinition) =>
  `It was not retried, because ${definition.name} creates data: check whether it took effect before calling it again.`;

function describeNetworkError(
  definition: EndpointDefinition,
  error: UpstreamNetworkError,
  settings: UpstreamSettings,
): string {
  const tries = attemptsNote(error);
  if (error.code === "timeout") {
    const next = definition.readOnly
      ? "Retry in a moment; if it keeps happening the service is slow or down."
      : notRepeated(definition);
    return `the ${definition.api} API did not answer within ${error.timeoutMs} ms (UPSTREAM_TIMEOUT_MS)${tries}. ${next}`;
  }
  if (UNREACHED_CODES.has(error.code)) {
    const baseUrl =
      definition.api === "workspace" ? "upstream.workspaceBaseUrl" : "upstream.analyticsBaseUrl";
    return `could not reach the ${definition.api} API at ${error.origin} (${error.code})${tries}. Check ${settingRef(settings, baseUrl)} and the network, then retry.`;
  }
  const next = definition.readOnly ? "Retry in a moment." : notRepeated(definition);
  return `lost the connection to the ${definition.api} API at ${error.origin} (${error.code})${tries}. ${next}`;
}

/** A 401's next step depends on where the key came from: a user's X-API-KEY header, or the environment. */
function unauthorizedText(definition: EndpointDefinition, settings: UpstreamSettings): string {
  if (settings.apiKeySource === "header") {
    return "401 Unauthorized: the API key sent in the X-API-KEY header was refused. Fix the X-API-KEY header in this client's settings for the MCP server and reconnect.";
  }
  const key = settingName(settings, "upstream.workspaceApiKey");
  const override = `(or ${settingName(settings, "upstream.analyticsApiKey")}, which overrides it for geo_ tools) `;
  return `401 Unauthorized: the API key is missing or invalid. Set or fix ${key} ${definition.api === "workspace" ? "" : override}${settingsPlace(settings)}.`;
}

function describeHttpError(
  definition: EndpointDefinition,
  error: UpstreamHttpError,
  settings: UpstreamSettings,
): string {
  const status = error.status;
  const detail = detailText(error.body);
  const lister = definition.api === "workspace" ? "whoami" : "geo_projects";
  switch (true) {
    case status === 401:
      return unauthorizedText(definition, settings);
    case status === 403:
      return `403 Forbidden: the key has no access to that project${definition.api === "workspace" ? " or workspace" : ""}. Check project_id with ${lister} and pass one it lists.${withDetail(detail)}`;
    case status === 404 && !isApiAnswer(error.body):
      return notTheApi(definition, settings, detail);
    case status === 404:
      return `404 Not Found: a referenced id does not exist in this project.${withDetail(detail)} Check the ids against an earlier result.`;
    case status === 422:
      return `422 Unprocessable: the API rejected the arguments: ${validationText(definition, error.body) ?? detail ?? "no detail given"}. Fix them and call again.`;
    case status === 429:
      return `429 Too Many Requests: rate limited${attemptsNote(error)}. ${retryAdvice(error) ?? "Wait a little before calling again."}`;
    case status >= 500: {
      const next = !definition.readOnly
        ? notRepeated(definition)
        : (retryAdvice(error) ?? "This is on the service's side: retry in a little while.");
      return `the ${definition.api} API failed with ${status}${attemptsNote(error)}.${withDetail(detail)} ${next}`;
    }
    default:
      return `the ${definition.api} API answered ${status}.${withDetail(detail)}`;
  }
}

/**
 * A 404 about a missing id is JSON with a `detail` naming what is missing; an HTML page, another body,
 * or the bare "Not Found" of a path the API does not have says the request went somewhere else.
 */
const isApiAnswer = (body: unknown) => {
  const detail = (body as { detail?: unknown } | null)?.detail;
  return typeof body === "object" && detail !== undefined && detail !== "Not Found";
};

/** A 404 that is not the API's own (an HTML page, a proxy's answer): the base URL points elsewhere. */
function notTheApi(definition: EndpointDefinition, settings: UpstreamSettings, detail: string | undefined) {
  const key = definition.api === "workspace" ? "upstream.workspaceBaseUrl" : "upstream.analyticsBaseUrl";
  const said = detail ? ` It said: ${detail}.` : "";
  return `404 Not Found for the path itself, not for an id: the ${definition.api} API's base URL likely points at another server or path, or a proxy answered.${said} Check ${settingRef(settings, key)}, then retry.`;
}

/** When to come back: the service's own word (Retry-After) as it gave it, else the wait we skipped. */
function retryAdvice(error: UpstreamHttpError): string | undefined {
  const text = error.retryAfter?.trim().slice(0, RETRY_AFTER_CHARS);
  if (text) return /^\d+$/.test(text) ? `Retry after ${Number(text)} s.` : `Retry after ${text}.`;
  return error.retryInMs === undefined ? undefined : `Retry in ${Math.ceil(error.retryInMs / 1000)} s.`;
}

/** 422 `detail` entries as `loc.joined: msg`, the form a model can act on, with the tool's field hint. */
function validationText(definition: EndpointDefinition, body: unknown): string | undefined {
  const detail = (body as { detail?: unknown } | null)?.detail;
  if (!Array.isArray(detail) || detail.length === 0) return undefined;
  const text = detail
    .map((entry: { loc?: unknown; msg?: unknown }) => {
      const loc = Array.isArray(entry?.loc) ? entry.loc : undefined;
      const field = loc?.[0] === "body" && typeof loc[1] === "string" ? loc[1] : undefined;
      const hint = field === undefined ? undefined : definition.fieldHint?.(field);
      return `${loc ? loc.join(".") : "(request)"}: ${String(entry?.msg ?? "invalid")}${hint ? ` (${hint})` : ""}`;
    })
    .join("; ");
  return cutShort(text, VALIDATION_CHARS);
}

function detailText(body: unknown): string | undefined {
  if (body === undefined || body === null || body === "") return undefined;
  const detail = typeof body === "object" && "detail" in body ? (body as { detail: unknown }).detail : body;
  return cutShort(typeof detail === "string" ? detail : JSON.stringify(detail), DETAIL_CHARS);
}

/** `text` cut to `max` characters with an ellipsis (quoted text is cut before it is sanitized). */
function cutShort(text: string, max: number): string {
  if (text.length <= max) return text;
  const high = text.charCodeAt(max - 1);
  return `${text.slice(0, high >= 0xd800 && high <= 0xdbff ? max - 1 : max)}…`;
}

function withDetail(detail: string | undefined): string {
  return detail ? ` The API said: ${detail}.` : "";
}
