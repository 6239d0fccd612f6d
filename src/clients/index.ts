// One client per API, built from one set of settings (the environment's, or one user's).
import type { Dispatcher } from "undici";
import type { UpstreamSettings } from "../config.js";
import type { Report } from "../log.js";
import type { ConfirmChannel } from "../tools/confirm.js";
import type { EndpointDefinition } from "../tools/definition.js";
import { AnalyticsClient } from "./analytics.js";
import type { UpstreamJson } from "./http.js";
import { ImpliedProjectCache } from "./project-cache.js";
import type { RetryNotice } from "./retry.js";
import { WorkspaceClient } from "./workspace.js";

/** What one tool call carries from the transport down to its upstream request. */
export interface CallContext {
  /** The tools this server offers; a call to any other is refused. */
  enabled: ReadonlySet<string>;
  /** Where the call's log entries go (stderr, and the client when it asked for them). */
  report: Report;
  /** Aborted when the MCP client cancels the call or goes away: the upstream request stops at once. */
  signal?: AbortSignal;
  /** Told before each wait for a retry (the MCP progress notification, when the client asked). */
  onRetry?: (notice: RetryNotice) => void;
  /** How to ask the person before a write, with --confirm-writes (tools/confirm.ts). */
  confirm?: ConfirmChannel;
}

/** The part of a call's context the upstream clients read. */
export type UpstreamContext = Pick<CallContext, "signal" | "onRetry">;

export interface Upstreams {
  settings: UpstreamSettings;
  call(
    definition: EndpointDefinition,
    args: Record<string, unknown>,
    context: UpstreamContext,
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
    call: (definition, args, context) => clients[definition.api].call(definition, args, context),
  };
}
