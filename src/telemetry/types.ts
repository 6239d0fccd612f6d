// The shapes telemetry's hooks (index.ts) and its SDK side (sdk.ts, observe.ts) share.
import type { JSONRPCRequest, Result, Server, ServerContext } from "@modelcontextprotocol/server";

/**
 * Counted events, each a metric of its own (docs/observability.md). The OAuth flow reports
 * "oauth.signin" and "oauth.refusal" (with a bounded reason) through src/oauth/metrics.ts.
 */
export type EventName = "confirmation" | "sanitized" | "oauth.signin" | "oauth.refusal";

/** One HTTP attempt to an upstream API. */
export interface UpstreamAttemptInfo {
  api: string;
  method: string;
  /** The endpoint's path template as the endpoint table gives it, never a filled path. */
  route: string;
  origin: string;
  /** 0 for the first attempt, then the retry's number. */
  resendCount: number;
}

export interface UpstreamAttempt {
  /** `traceparent` (and `tracestate`) to send with the request: the API joins the trace. */
  readonly headers: Record<string, string>;
  /** Ends the attempt's span and counts it: the answer's status, and the failure's kind if it failed. */
  end(status: number | undefined, errorType: string | undefined): void;
}

export type RequestHandler = (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>;

/** What a running telemetry pipeline offers the hooks. */
export interface ActiveTelemetry {
  /** `handler` inside a server span and the operation metric (server.ts's `_wrapHandler`). */
  wrapRequest(method: string, handler: RequestHandler, server: Server): RequestHandler;
  upstreamAttempt(info: UpstreamAttemptInfo): UpstreamAttempt;
  /** A retry is due: `reason` is low-cardinality (a status, or a network error code). */
  retry(api: string, route: string, reason: string): void;
  /** A 2025 session or a stdio connection began; the function returned ends it. */
  sessionOpened(transport: "stdio" | "http"): () => void;
  count(event: EventName, attributes: Record<string, string>): void;
  /** Whether tool arguments and results go on spans (--trace-content). */
  readonly recordsContent: boolean;
  /** Records `text` (already scrubbed of keys) on the current request's span. */
  recordToolContent(kind: "arguments" | "result", text: string): void;
  /** The ids of the span the current code runs in, for log lines. */
  currentIds(): { trace_id: string; span_id: string } | undefined;
  /** The Prometheus listener's URL, when there is one. */
  readonly metricsUrl?: string;
  /** Flushes what is buffered and stops the exporters and the listener. */
  shutdown(): Promise<void>;
}

/** A telemetry variable or setting that cannot be used: the CLI stops with it, as with any bad setting. */
export class TelemetryConfigError extends Error {}

/** The standard variables that turn on OTLP export of traces or metrics. */
export interface OtlpEnv {
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string;
  OTEL_EXPORTER_OTLP_METRICS_ENDPOINT?: string;
  OTEL_SDK_DISABLED?: string;
  [name: string]: string | undefined;
}

/** The names that may label a metric: anything else a client sends is counted as `_OTHER`. */
export interface TelemetryNames {
  tools: ReadonlySet<string>;
  prompts: ReadonlySet<string>;
}
