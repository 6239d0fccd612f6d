// The visibility-analytics API: X-API-KEY header (ANALYTICS_API_KEY or WORKSPACE_API_KEY) and the
// body's project_id, defaulted from ANALYTICS_PROJECT_ID.
import type { Dispatcher } from "undici";
import type { UpstreamSettings } from "../config/types.js";
import { settingRef } from "../settings-names.js";
import { requireSetting, ToolInputError } from "./errors.js";
import { requestJson, type UpstreamEndpoint } from "./http.js";
import { keyDigest } from "./limiter.js";
import type { CallControl } from "./retry.js";

export class AnalyticsClient {
  /** The key as the limiter knows it (keyDigest), hashed on first use: a client's settings never change. */
  private apiKeyDigest: string | undefined;

  constructor(
    private readonly settings: UpstreamSettings,
    private readonly dispatcher: Dispatcher,
  ) {}

  call(endpoint: UpstreamEndpoint, args: Record<string, unknown>, control: CallControl) {
    const apiKey = requireSetting(
      this.settings.analyticsApiKey ?? this.settings.workspaceApiKey,
      this.settings,
      "upstream.workspaceApiKey",
      "API key",
      "WORKSPACE_API_KEY is not set (ANALYTICS_API_KEY may override it for the geo_ tools): add your API key to this MCP server's environment and restart it; over HTTP, a client may send it as the X-API-KEY header instead.",
    );
    const baseUrl = requireSetting(
      this.settings.analyticsBaseUrl,
      this.settings,
      "upstream.analyticsBaseUrl",
      "analytics API base URL",
      "ANALYTICS_BASE_URL is not set: add the analytics API's base URL to this MCP server's environment and restart it.",
    );
    const body = endpoint.projectScoped ? this.withProject(args) : args;
    this.apiKeyDigest ??= keyDigest(apiKey);
    return requestJson(
      this.dispatcher,
      {
        api: "analytics",
        route: endpoint.path,
        method: endpoint.method,
        url: baseUrl + endpoint.path,
        headers: { "x-api-key": apiKey, accept: "application/json", "content-type": "application/json" },
        body,
        repeatable: endpoint.readOnly,
        lane: this.apiKeyDigest,
      },
      this.settings,
      control,
    );
  }

  private withProject(args: Record<string, unknown>): Record<string, unknown> {
    if (args.project_id !== undefined) return args;
    const projectId = this.settings.analyticsProjectId;
    if (!projectId) {
      throw new ToolInputError(
        `project_id is required: call geo_projects to list your analytics projects and pass one's id as project_id (or set ${settingRef(this.settings, "upstream.analyticsProjectId")}).`,
      );
    }
    return { project_id: projectId, ...args };
  }
}
