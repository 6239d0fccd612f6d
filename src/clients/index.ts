// One client per API, built from one set of settings (the environment's, or one user's).
import type { Dispatcher } from "undici";
import type { UpstreamSettings } from "../config/types.js";
import { AnalyticsClient } from "./analytics.js";
import type { UpstreamEndpoint, UpstreamJson } from "./http.js";
import { ImpliedProjectCache } from "./project-cache.js";
import type { CallControl } from "./retry.js";
import { WorkspaceClient } from "./workspace.js";

export interface Upstreams {
  settings: UpstreamSettings;
  call(
    endpoint: UpstreamEndpoint,
    args: Record<string, unknown>,
    control: CallControl,
  ): Promise<UpstreamJson>;
}

/**
 * `impliedProjects` is shared when many Upstreams serve the same process (one per HTTP session or
 * request), so a key's default project is looked up once, not once per Upstreams.
 */
export function createUpstreams(
  settings: UpstreamSettings,
  dispatcher: Dispatcher,
  impliedProjects = new ImpliedProjectCache(),
): Upstreams {
  const clients = {
    workspace: new WorkspaceClient(settings, dispatcher, impliedProjects),
    analytics: new AnalyticsClient(settings, dispatcher),
  };
  return {
    settings,
    call: (endpoint, args, control) => clients[endpoint.api].call(endpoint, args, control),
  };
}
