// Names from OpenTelemetry's semantic conventions that are still in development (MCP, GenAI,
// url.template): the package keeps them in its "incubating" entry, which its authors ask users to
// copy rather than import, since they may change between releases. Stable names come from the package.

export const MCP = {
  methodName: "mcp.method.name",
  sessionId: "mcp.session.id",
  protocolVersion: "mcp.protocol.version",
  resourceUri: "mcp.resource.uri",
  operationDuration: "mcp.server.operation.duration",
  sessionDuration: "mcp.server.session.duration",
} as const;

export const GEN_AI = {
  toolName: "gen_ai.tool.name",
  promptName: "gen_ai.prompt.name",
  operationName: "gen_ai.operation.name",
  toolCallArguments: "gen_ai.tool.call.arguments",
  toolCallResult: "gen_ai.tool.call.result",
} as const;

export const JSONRPC_REQUEST_ID = "jsonrpc.request.id";
export const RPC_RESPONSE_STATUS_CODE = "rpc.response.status_code";
export const URL_TEMPLATE = "url.template";

/** This server's own attributes and metrics: named under its own prefix, apart from the conventions'. */
export const OWN = {
  upstreamApi: "agent_workspace.upstream.api",
  retryReason: "agent_workspace.retry.reason",
  answer: "agent_workspace.confirmation.answer",
  retries: "agent_workspace.upstream.retries",
  requestsActive: "agent_workspace.requests.active",
  requestsCancelled: "agent_workspace.requests.cancelled",
  sessionsOpen: "agent_workspace.sessions.open",
  confirmations: "agent_workspace.confirmations",
  sanitized: "agent_workspace.answers.sanitized",
  oauthSignins: "agent_workspace.oauth.signins",
  oauthRefusals: "agent_workspace.oauth.refusals",
} as const;

/** Bucket bounds (s) the MCP conventions advise for the operation histograms. */
export const MCP_DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];
/** Bucket bounds (s) the HTTP conventions advise for http.client.request.duration. */
export const HTTP_DURATION_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10,
];
/** Sessions last from seconds to a working day. */
export const SESSION_DURATION_BUCKETS = [1, 10, 60, 300, 900, 1800, 3600, 7200, 14400, 28800, 86400];
