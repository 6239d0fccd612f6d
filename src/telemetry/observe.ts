// The spans and metrics of one running pipeline: a server span per MCP request, a client span per
// upstream attempt, and the counters an operator pages on. Loaded with the SDK (sdk.ts), never before.
import { AsyncLocalStorage } from "node:async_hooks";
import { PROTOCOL_VERSION_META_KEY, type Server, type ServerContext } from "@modelcontextprotocol/server";
import {
  type Attributes,
  type Context,
  type Counter,
  defaultTextMapGetter,
  defaultTextMapSetter,
  type Histogram,
  type Link,
  type Meter,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
  type UpDownCounter,
} from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_REQUEST_RESEND_COUNT,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_NETWORK_PROTOCOL_NAME,
  ATTR_NETWORK_TRANSPORT,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ERROR_TYPE_VALUE_OTHER,
  METRIC_HTTP_CLIENT_REQUEST_DURATION,
} from "@opentelemetry/semantic-conventions";
import {
  GEN_AI,
  HTTP_DURATION_BUCKETS,
  JSONRPC_REQUEST_ID,
  MCP,
  MCP_DURATION_BUCKETS,
  OWN,
  RPC_RESPONSE_STATUS_CODE,
  SESSION_DURATION_BUCKETS,
  URL_TEMPLATE,
} from "./names.js";
import type {
  ActiveTelemetry,
  EventName,
  RequestHandler,
  TelemetryNames,
  UpstreamAttempt,
  UpstreamAttemptInfo,
} from "./types.js";

/** Recorded content is cut here: a span is not a place for whole listings. */
const MAX_CONTENT_CHARS = 8_192;

type Carrier = Record<string, unknown>;

/** The parts of ActiveTelemetry that observe; sdk.ts adds the exporters' lifecycle. */
export class Observer implements Omit<ActiveTelemetry, "shutdown" | "metricsUrl"> {
  /** The context (and so the span) the current code runs in: ours, not the API's global one. */
  private readonly current = new AsyncLocalStorage<Context>();
  private readonly propagator = new W3CTraceContextPropagator();
  private readonly operationDuration: Histogram;
  private readonly sessionDuration: Histogram;
  private readonly upstreamDuration: Histogram;
  private readonly retries: Counter;
  private readonly active: UpDownCounter;
  private readonly cancelled: Counter;
  private readonly sessionsOpen: UpDownCounter;
  private readonly events: Record<EventName, Counter>;

  constructor(
    private readonly tracer: Tracer,
    meter: Meter,
    private readonly names: TelemetryNames,
    readonly recordsContent: boolean,
  ) {
    const seconds = (name: string, description: string, buckets: number[]) =>
      meter.createHistogram(name, { unit: "s", description, advice: { explicitBucketBoundaries: buckets } });
    this.operationDuration = seconds(
      MCP.operationDuration,
      "MCP requests, received to answered",
      MCP_DURATION_BUCKETS,
    );
    this.sessionDuration = seconds(
      MCP.sessionDuration,
      "MCP sessions, opened to closed",
      SESSION_DURATION_BUCKETS,
    );
    this.upstreamDuration = seconds(
      METRIC_HTTP_CLIENT_REQUEST_DURATION,
      "HTTP attempts to the upstream APIs",
      HTTP_DURATION_BUCKETS,
    );
    this.retries = meter.createCounter(OWN.retries, { description: "Upstream retries, by reason" });
    this.active = meter.createUpDownCounter(OWN.requestsActive, { description: "MCP requests in flight" });
    this.cancelled = meter.createCounter(OWN.requestsCancelled, {
      description: "MCP requests the client cancelled",
    });
    this.sessionsOpen = meter.createUpDownCounter(OWN.sessionsOpen, {
      description: "Open 2025 sessions and stdio connections",
    });
    this.events = {
      confirmation: meter.createCounter(OWN.confirmations, { description: "Write confirmations, by answer" }),
      sanitized: meter.createCounter(OWN.sanitized, { description: "Answers the sanitizer changed" }),
      "oauth.signin": meter.createCounter(OWN.oauthSignins, { description: "OAuth sign-ins completed" }),
      "oauth.refusal": meter.createCounter(OWN.oauthRefusals, { description: "OAuth sign-ins refused" }),
    };
  }

  wrapRequest(method: string, handler: RequestHandler, server: Server): RequestHandler {
    return async (request, ctx) => {
      const { parent, links } = this.parentOf(ctx);
      const attributes = this.requestAttributes(method, request.params, ctx, server);
      const target = attributes[GEN_AI.toolName] ?? attributes[GEN_AI.promptName];
      const name = target === undefined || target === ERROR_TYPE_VALUE_OTHER ? method : `${method} ${target}`;
      if (request.id !== null && request.id !== undefined)
        attributes[JSONRPC_REQUEST_ID] = String(request.id);
      const span = this.tracer.startSpan(name, { kind: SpanKind.SERVER, attributes, links }, parent);
      const metricAttributes = metricLabels(attributes);
      const activeLabels = { [MCP.methodName]: method };
      this.active.add(1, activeLabels);
      const started = performance.now();
      let errorType: string | undefined;
      try {
        const result = await this.current.run(trace.setSpan(parent, span), () => handler(request, ctx));
        if ((result as { isError?: unknown }).isError === true) errorType = "tool_error";
        return result;
      } catch (error) {
        if (ctx.mcpReq.signal.aborted) {
          errorType = "cancelled";
          this.cancelled.add(1, metricLabels(attributes, false));
        } else {
          const code = (error as { code?: unknown } | null)?.code;
          errorType = typeof code === "number" ? String(code) : ERROR_TYPE_VALUE_OTHER;
          if (typeof code === "number") span.setAttribute(RPC_RESPONSE_STATUS_CODE, String(code));
        }
        throw error;
      } finally {
        this.active.add(-1, activeLabels);
        if (errorType !== undefined) {
          span.setAttribute(ATTR_ERROR_TYPE, errorType);
          // No description: a JSON-RPC error's message may quote what the client sent.
          span.setStatus({ code: SpanStatusCode.ERROR });
          metricAttributes[ATTR_ERROR_TYPE] = errorType;
        }
        span.end();
        this.operationDuration.record((performance.now() - started) / 1000, metricAttributes);
      }
    };
  }

  /** The parent from `_meta` (the conventions' choice), else from the HTTP request; both: the HTTP one linked. */
  private parentOf(ctx: ServerContext): { parent: Context; links: Link[] } {
    const meta = ctx.mcpReq._meta as Carrier | undefined;
    const fromMeta = meta && typeof meta.traceparent === "string" ? this.extract(meta) : undefined;
    const headers = ctx.http?.req?.headers;
    const header = headers?.get("traceparent");
    const fromHttp = header
      ? this.extract({ traceparent: header, tracestate: headers?.get("tracestate") ?? undefined })
      : undefined;
    const httpSpan = fromHttp && trace.getSpanContext(fromHttp);
    if (fromMeta && trace.getSpanContext(fromMeta)) {
      return { parent: fromMeta, links: httpSpan ? [{ context: httpSpan }] : [] };
    }
    return { parent: httpSpan && fromHttp ? fromHttp : ROOT_CONTEXT, links: [] };
  }

  private extract(carrier: Carrier): Context {
    return this.propagator.extract(ROOT_CONTEXT, carrier, defaultTextMapGetter);
  }

  private requestAttributes(
    method: string,
    params: Carrier | undefined,
    ctx: ServerContext,
    server: Server,
  ): Attributes & Record<string, string | undefined> {
    const envelope = ctx.mcpReq.envelope as Carrier | undefined;
    const version = envelope?.[PROTOCOL_VERSION_META_KEY] ?? server.getNegotiatedProtocolVersion();
    const attributes: Record<string, string | undefined> = {
      [MCP.methodName]: method,
      [ATTR_NETWORK_TRANSPORT]: ctx.http ? "tcp" : "pipe",
    };
    if (typeof version === "string") attributes[MCP.protocolVersion] = version;
    if (ctx.http) attributes[ATTR_NETWORK_PROTOCOL_NAME] = "http";
    if (ctx.sessionId) attributes[MCP.sessionId] = ctx.sessionId;
    const name = typeof params?.name === "string" ? params.name : undefined;
    if (method === "tools/call") {
      attributes[GEN_AI.toolName] = name && this.names.tools.has(name) ? name : ERROR_TYPE_VALUE_OTHER;
      attributes[GEN_AI.operationName] = "execute_tool";
    } else if (method === "prompts/get") {
      attributes[GEN_AI.promptName] = name && this.names.prompts.has(name) ? name : ERROR_TYPE_VALUE_OTHER;
    }
    return attributes;
  }

  upstreamAttempt(info: UpstreamAttemptInfo): UpstreamAttempt {
    const parent = this.current.getStore() ?? ROOT_CONTEXT;
    const { hostname, port, protocol } = new URL(info.origin);
    const labels: Attributes = {
      [ATTR_HTTP_REQUEST_METHOD]: info.method,
      [URL_TEMPLATE]: info.route,
      [OWN.upstreamApi]: info.api,
      [ATTR_SERVER_ADDRESS]: hostname,
      [ATTR_SERVER_PORT]: Number(port || (protocol === "https:" ? 443 : 80)),
    };
    const attributes =
      info.resendCount > 0 ? { ...labels, [ATTR_HTTP_REQUEST_RESEND_COUNT]: info.resendCount } : labels;
    const span = this.tracer.startSpan(
      `${info.method} ${info.route}`,
      { kind: SpanKind.CLIENT, attributes },
      parent,
    );
    const headers: Record<string, string> = {};
    this.propagator.inject(trace.setSpan(parent, span), headers, defaultTextMapSetter);
    const started = performance.now();
    return {
      headers,
      end: (status, errorType) => {
        const recorded: Attributes = { ...labels };
        if (status !== undefined) recorded[ATTR_HTTP_RESPONSE_STATUS_CODE] = status;
        if (errorType !== undefined) recorded[ATTR_ERROR_TYPE] = errorType;
        span.setAttributes(recorded);
        if (errorType !== undefined) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
        this.upstreamDuration.record((performance.now() - started) / 1000, recorded);
      },
    };
  }

  retry(api: string, route: string, reason: string): void {
    this.retries.add(1, { [OWN.upstreamApi]: api, [URL_TEMPLATE]: route, [OWN.retryReason]: reason });
  }

  sessionOpened(transport: "stdio" | "http"): () => void {
    const labels = { [ATTR_NETWORK_TRANSPORT]: transport === "http" ? "tcp" : "pipe" };
    const started = performance.now();
    this.sessionsOpen.add(1, labels);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.sessionsOpen.add(-1, labels);
      this.sessionDuration.record((performance.now() - started) / 1000, labels);
    };
  }

  count(event: EventName, attributes: Record<string, string>): void {
    this.events[event].add(1, attributes);
  }

  recordToolContent(kind: "arguments" | "result", text: string): void {
    if (!this.recordsContent) return;
    const span = this.currentSpan();
    const key = kind === "arguments" ? GEN_AI.toolCallArguments : GEN_AI.toolCallResult;
    span?.setAttribute(key, text.length > MAX_CONTENT_CHARS ? `${text.slice(0, MAX_CONTENT_CHARS)}…` : text);
  }

  currentIds(): { trace_id: string; span_id: string } | undefined {
    const context = this.currentSpan()?.spanContext();
    return context ? { trace_id: context.traceId, span_id: context.spanId } : undefined;
  }

  private currentSpan(): Span | undefined {
    const context = this.current.getStore();
    return context ? trace.getSpan(context) : undefined;
  }
}

/** A request's metric labels: the span's low-cardinality attributes, without ids. */
function metricLabels(attributes: Record<string, string | undefined>, withVersion = true): Attributes {
  const labels: Attributes = {};
  for (const key of [
    MCP.methodName,
    GEN_AI.toolName,
    GEN_AI.promptName,
    GEN_AI.operationName,
    ATTR_NETWORK_TRANSPORT,
    ...(withVersion ? [MCP.protocolVersion] : []),
  ]) {
    const value = attributes[key];
    if (value !== undefined) labels[key] = value;
  }
  return labels;
}
