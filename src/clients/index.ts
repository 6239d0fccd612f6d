// One client per API, built from one set of settings (the environment's, or one user's).
import type { Dispatcher } from "undici";
import type { UpstreamSettings } from "../config.js";
import type { EndpointDefinition } from "../tools/definition.js";
import { AnalyticsClient } from "./analytics.js";
import { WorkspaceClient } from "./workspace.js";

export interface Upstreams {
  settings: UpstreamSettings;
  call(definition: EndpointDefinition, args: Record<string, unknown>, signal?: AbortSignal): Promise<unknown>;
}

export function createUpstreams(settings: UpstreamSettings, dispatcher: Dispatcher): Upstreams {
  const clients = {
    workspace: new WorkspaceClient(settings, dispatcher),
    analytics: new AnalyticsClient(settings, dispatcher),
  };
  return {
    settings,
    call: (definition, args, signal) => clients[definition.api].call(definition, args, signal),
  };
}
