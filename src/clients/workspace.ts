// The agent-workspace API: X-API-KEY, X-Project-Id and X-Workspace-Id headers, and the default project.
import type { Dispatcher } from "undici";
import type { UpstreamSettings } from "../config/types.js";
import { settingRef } from "../settings-names.js";
import { requireSetting, ToolInputError } from "./errors.js";
import { requestJson, type UpstreamEndpoint } from "./http.js";
import { keyDigest } from "./limiter.js";
import type { ImpliedProjectCache } from "./project-cache.js";
import type { CallControl } from "./retry.js";

const WHOAMI_PATH = "/api/v1/business/whoami";
const LISTED_PROJECTS = 10;

interface WhoamiProject {
  id?: unknown;
  name?: unknown;
}

export class WorkspaceClient {
  private apiKeyDigest: string | undefined;

  constructor(
    private readonly settings: UpstreamSettings,
    private readonly dispatcher: Dispatcher,
    /** The project whoami implies, per key and workspace: looked up once, forgotten if the lookup fails. */
    private readonly impliedProjects: ImpliedProjectCache,
  ) {}

  async call(endpoint: UpstreamEndpoint, args: Record<string, unknown>, control: CallControl) {
    const { project_id, workspace_id, ...body } = args as {
      project_id?: string;
      workspace_id?: string;
    } & Record<string, unknown>;
    const workspaceId = workspace_id ?? this.settings.workspaceId;
    const headers = this.baseHeaders(workspaceId);
    if (endpoint.projectScoped) {
      headers["x-project-id"] =
        project_id ?? this.settings.workspaceProjectId ?? (await this.impliedProject(workspaceId, control));
    }
    return this.send(endpoint.method, endpoint.path, headers, body, endpoint.readOnly, control);
  }

  private baseHeaders(workspaceId: string | undefined): Record<string, string> {
    const apiKey = requireSetting(
      this.settings.workspaceApiKey,
      this.settings,
      "upstream.workspaceApiKey",
      "API key",
      "WORKSPACE_API_KEY is not set: add your API key (API dashboard, API access on) to this MCP server's environment and restart it; over HTTP, a client may send it as the X-API-KEY header instead.",
    );
    const headers: Record<string, string> = { "x-api-key": apiKey, accept: "application/json" };
    if (workspaceId) headers["x-workspace-id"] = workspaceId;
    return headers;
  }

  private send(
    method: "GET" | "POST",
    path: string,
    headers: Record<string, string>,
    body: Record<string, unknown>,
    repeatable: boolean,
    control: CallControl,
  ) {
    const baseUrl = requireSetting(
      this.settings.workspaceBaseUrl,
      this.settings,
      "upstream.workspaceBaseUrl",
      "agent-workspace API base URL",
      "WORKSPACE_BASE_URL is not set: add the agent-workspace API's base URL to this MCP server's environment and restart it.",
    );
    const withBody = method === "POST";
    if (withBody) headers["content-type"] = "application/json";
    return requestJson(
      this.dispatcher,
      {
        api: "workspace",
        route: path,
        method,
        url: baseUrl + path,
        headers,
        body: withBody ? body : undefined,
        repeatable,
        lane: this.keyId(),
      },
      this.settings,
      control,
    );
  }

  /** The key as the limiter and the project cache know it: its digest, hashed once per client. */
  private keyId(): string {
    this.apiKeyDigest ??= keyDigest(this.settings.workspaceApiKey ?? "");
    return this.apiKeyDigest;
  }

  private impliedProject(workspaceId: string | undefined, { signal }: CallControl): Promise<string> {
    // The lookup is shared by every call waiting on it, so no one caller's cancellation may abort it
    // (it is bounded by the upstream timeout); each caller stops waiting when its own call is cancelled.
    const lookup = this.impliedProjects.get(this.keyId(), workspaceId, () =>
      this.lookUpOnlyProject(workspaceId),
    );
    return signal ? untilAborted(lookup, signal) : lookup;
  }

  private async lookUpOnlyProject(workspaceId: string | undefined): Promise<string> {
    // whoami only reads, whatever the tool that needs it; no one caller's signal or retry notice applies.
    const headers = this.baseHeaders(workspaceId);
    const identity = (await this.send("GET", WHOAMI_PATH, headers, {}, true, {})).value as {
      projects?: unknown;
    };
    const projects = (Array.isArray(identity?.projects) ? identity.projects : []) as WhoamiProject[];
    const only = projects.length === 1 ? projects[0]?.id : undefined;
    if (typeof only === "string") return only;
    const listed = projects
      .slice(0, LISTED_PROJECTS)
      .map((project) => `${String(project.name ?? "unnamed")} (${String(project.id)})`)
      .join(", ");
    const setting = settingRef(this.settings, "upstream.workspaceProjectId");
    throw new ToolInputError(
      projects.length === 0
        ? `No project chosen and whoami lists no project for this key: check the key's workspace (workspace_id) or set ${setting}.`
        : `No project chosen and whoami lists ${projects.length}: ${listed}${projects.length > LISTED_PROJECTS ? ", …" : ""}. Pass one's id as project_id (call whoami for the full list), or set ${setting}.`,
    );
  }
}

/** `promise`, or the signal's reason as soon as it aborts, whichever comes first. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
