// The one function that turns any failure of a tool call into the result the assistant sees:
// `isError: true`, the tool's name, what happened, and what to do next. Never an API key.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { MissingConfigError, ToolInputError } from "../clients/errors.js";
import { UpstreamBodyError, UpstreamHttpError, UpstreamNetworkError } from "../clients/http.js";
import type { LogLevel, UpstreamSettings } from "../config.js";
import type { EndpointDefinition } from "./definition.js";

const DETAIL_CHARS = 300;

export function errorResult(text: string): CallToolResult {
  return { isError: true, content: [{ type: "text", text }] };
}

export function toolErrorResult(
  definition: EndpointDefinition,
  error: unknown,
  settings: UpstreamSettings,
): CallToolResult {
  return errorResult(redact(`${definition.name}: ${describeFailure(definition, error)}`, settings));
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
  return { level: "error", fields: { reason: error instanceof Error ? error.name : typeof error } };
}

function describeFailure(definition: EndpointDefinition, error: unknown): string {
  if (error instanceof MissingConfigError || error instanceof ToolInputError) return error.message;
  if (error instanceof UpstreamHttpError) return describeHttpError(definition, error);
  if (error instanceof UpstreamNetworkError) {
    const variable = definition.api === "workspace" ? "WORKSPACE_BASE_URL" : "ANALYTICS_BASE_URL";
    if (error.code === "timeout") {
      return `the ${definition.api} API did not answer within ${error.timeoutMs} ms. Retry in a moment; if it keeps happening the service is slow or down.`;
    }
    return `could not reach the ${definition.api} API at ${error.origin} (${error.code}). Check ${variable} and the network, then retry.`;
  }
  if (error instanceof UpstreamBodyError) {
    return `the ${definition.api} API answered ${error.status} with ${error.contentType} instead of JSON: "${error.excerpt}". Retry later; the service may be misconfigured.`;
  }
  return `unexpected failure (${error instanceof Error ? error.name : typeof error}). Retry; report it if it persists.`;
}

function describeHttpError(definition: EndpointDefinition, error: UpstreamHttpError): string {
  const status = error.status;
  const detail = detailText(error.body);
  const lister = definition.api === "workspace" ? "whoami" : "geo_projects";
  switch (true) {
    case status === 401:
      return definition.api === "workspace"
        ? "401 Unauthorized: the API key is missing or invalid. Set or fix WORKSPACE_API_KEY in this MCP server's environment."
        : "401 Unauthorized: the API key is missing or invalid. Set or fix WORKSPACE_API_KEY (or ANALYTICS_API_KEY, which overrides it for geo_ tools) in this MCP server's environment.";
    case status === 403:
      return `403 Forbidden: the key has no access to that project${definition.api === "workspace" ? " or workspace" : ""}. Check project_id with ${lister} and pass one it lists.${withDetail(detail)}`;
    case status === 404:
      return `404 Not Found: a referenced id does not exist in this project.${withDetail(detail)} Check the ids against an earlier result.`;
    case status === 422:
      return `422 Unprocessable: the API rejected the arguments: ${validationText(error.body) ?? detail ?? "no detail given"}. Fix them and call again.`;
    case status === 429:
      return `429 Too Many Requests: rate limited. ${retryAdvice(error.retryAfter)}`;
    case status >= 500:
      return `the ${definition.api} API failed with ${status}.${withDetail(detail)} This is on the service's side: retry in a little while.`;
    default:
      return `the ${definition.api} API answered ${status}.${withDetail(detail)}`;
  }
}

function retryAdvice(retryAfter: string | undefined): string {
  if (retryAfter === undefined) return "Wait a little before calling again.";
  const seconds = /^\d+$/.test(retryAfter.trim()) ? Number(retryAfter) : undefined;
  return seconds !== undefined ? `Retry after ${seconds} s.` : `Retry after ${retryAfter}.`;
}

/** 422 `detail` entries as `loc.joined: msg`, the form a model can act on. */
function validationText(body: unknown): string | undefined {
  const detail = (body as { detail?: unknown } | null)?.detail;
  if (!Array.isArray(detail) || detail.length === 0) return undefined;
  return detail
    .map((entry: { loc?: unknown; msg?: unknown }) => {
      const loc = Array.isArray(entry?.loc) ? entry.loc.join(".") : "(request)";
      return `${loc}: ${String(entry?.msg ?? "invalid")}`;
    })
    .join("; ");
}

function detailText(body: unknown): string | undefined {
  if (body === undefined || body === null || body === "") return undefined;
  const detail = typeof body === "object" && "detail" in body ? (body as { detail: unknown }).detail : body;
  const text = typeof detail === "string" ? detail : JSON.stringify(detail);
  return text.length > DETAIL_CHARS ? `${text.slice(0, DETAIL_CHARS)}…` : text;
}

function withDetail(detail: string | undefined): string {
  return detail ? ` The API said: ${detail}.` : "";
}

/** Belt and braces: whatever text a failure carries, the keys in use never leave the server. */
export function redact(text: string, settings: UpstreamSettings): string {
  let safe = text;
  for (const secret of [settings.workspaceApiKey, settings.analyticsApiKey]) {
    if (secret && secret.length >= 4) safe = safe.split(secret).join("[redacted]");
  }
  return safe;
}
