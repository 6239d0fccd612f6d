// Starts OpenTelemetry's SDK as the standard variables and the metrics settings ask: OTLP traces and
// metrics (http/json or http/protobuf) and a Prometheus endpoint on a listener of its own. This module
// and everything it imports load only when telemetry is on (index.ts).
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { getHeapSpaceStatistics } from "node:v8";
import type { Meter } from "@opentelemetry/api";
import { OTLPMetricExporter as JsonMetricExporter } from "@opentelemetry/exporter-metrics-otlp-http";
import { OTLPMetricExporter as ProtobufMetricExporter } from "@opentelemetry/exporter-metrics-otlp-proto";
import { PrometheusExporter } from "@opentelemetry/exporter-prometheus";
import { OTLPTraceExporter as JsonTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtobufTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import {
  type IMetricReader,
  MeterProvider,
  PeriodicExportingMetricReader,
  type PushMetricExporter,
} from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from "@opentelemetry/sdk-trace-base";
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from "@opentelemetry/semantic-conventions";
import type { TelemetrySettings } from "../config/types.js";
import { log, setLogContext } from "../log.js";
import { SERVER_NAME, SERVER_VERSION } from "../version.js";
import { Observer } from "./observe.js";
import { type ActiveTelemetry, type OtlpEnv, TelemetryConfigError, type TelemetryNames } from "./types.js";

const PROTOCOLS = ["http/protobuf", "http/json"] as const;
type OtlpProtocol = (typeof PROTOCOLS)[number];

/** The OTLP endpoint of one signal: its own variable (used as is), else the general one plus its path. */
function endpointOf(env: OtlpEnv, signal: "TRACES" | "METRICS"): string | undefined {
  if (env[`OTEL_${signal}_EXPORTER`]?.trim() === "none") return undefined;
  const own = env[`OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`]?.trim();
  if (own) return own;
  const general = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  return general ? `${general.replace(/\/+$/, "")}/v1/${signal.toLowerCase()}` : undefined;
}

function protocolOf(env: OtlpEnv, signal: "TRACES" | "METRICS"): OtlpProtocol {
  const variable = env[`OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`]?.trim()
    ? `OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`
    : "OTEL_EXPORTER_OTLP_PROTOCOL";
  const given = env[variable]?.trim() || "http/protobuf";
  if (!PROTOCOLS.includes(given as OtlpProtocol)) {
    throw new TelemetryConfigError(`${variable} must be http/protobuf or http/json, got "${given}"`);
  }
  return given as OtlpProtocol;
}

function traceExporter(url: string, protocol: OtlpProtocol): SpanExporter {
  return protocol === "http/json" ? new JsonTraceExporter({ url }) : new ProtobufTraceExporter({ url });
}

function metricExporter(url: string, protocol: OtlpProtocol): PushMetricExporter {
  return protocol === "http/json" ? new JsonMetricExporter({ url }) : new ProtobufMetricExporter({ url });
}

/** A whole number of ms from a variable, or the default. */
function millisOf(env: OtlpEnv, name: string, fallback: number): number {
  const value = Number(env[name]?.trim() || fallback);
  if (!Number.isInteger(value) || value <= 0) {
    throw new TelemetryConfigError(`${name} must be a whole number of milliseconds, got "${env[name]}"`);
  }
  return value;
}

/** Serves the Prometheus text at /metrics, and nothing else, on a listener of its own. */
async function serveMetrics(exporter: PrometheusExporter, host: string, port: number): Promise<HttpServer> {
  const server = createServer((req, res) => {
    const path = (req.url ?? "").split("?")[0];
    if (req.method === "GET" && path === "/metrics") return exporter.getMetricsRequestHandler(req, res);
    res.writeHead(404, { "content-type": "text/plain" }).end("Not found: metrics are at /metrics\n");
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(new TelemetryConfigError(`--metrics-port: cannot listen on ${host}:${port} (${error.code})`)),
    );
    server.listen(port, host, () => resolve());
  });
  return server;
}

/** The process's own gauges: event-loop delay (its percentiles since the last read) and V8's heap. */
function observeProcess(meter: Meter): () => void {
  const delay = monitorEventLoopDelay({ resolution: 20 });
  delay.enable();
  const seconds = (ns: number) => (Number.isFinite(ns) ? ns / 1e9 : 0);
  const p50 = meter.createObservableGauge("nodejs.eventloop.delay.p50", { unit: "s" });
  const p99 = meter.createObservableGauge("nodejs.eventloop.delay.p99", { unit: "s" });
  const max = meter.createObservableGauge("nodejs.eventloop.delay.max", { unit: "s" });
  const heapUsed = meter.createObservableGauge("v8js.memory.heap.used", { unit: "By" });
  const heapLimit = meter.createObservableGauge("v8js.memory.heap.limit", { unit: "By" });
  meter.addBatchObservableCallback(
    (observer) => {
      observer.observe(p50, seconds(delay.percentile(50)));
      observer.observe(p99, seconds(delay.percentile(99)));
      observer.observe(max, seconds(delay.max));
      delay.reset();
      for (const space of getHeapSpaceStatistics()) {
        const labels = { "v8js.heap.space.name": space.space_name };
        observer.observe(heapUsed, space.space_used_size, labels);
        observer.observe(heapLimit, space.space_size, labels);
      }
    },
    [p50, p99, max, heapUsed, heapLimit],
  );
  return () => delay.disable();
}

export async function createTelemetry(
  settings: TelemetrySettings,
  env: OtlpEnv,
  names: TelemetryNames,
): Promise<ActiveTelemetry> {
  const resource = resourceFromAttributes({
    [ATTR_SERVICE_NAME]: SERVER_NAME,
    [ATTR_SERVICE_VERSION]: SERVER_VERSION,
  }).merge(detectResources({ detectors: [envDetector] }));

  const tracesUrl = endpointOf(env, "TRACES");
  const spanProcessors = tracesUrl
    ? [new BatchSpanProcessor(traceExporter(tracesUrl, protocolOf(env, "TRACES")))]
    : [];
  // The sampler is the SDK's reading of OTEL_TRACES_SAMPLER (default: parent-based, always on).
  const tracerProvider = new BasicTracerProvider({ resource, spanProcessors });

  const readers: IMetricReader[] = [];
  const metricsUrl = endpointOf(env, "METRICS");
  if (metricsUrl) {
    const exporter = metricExporter(metricsUrl, protocolOf(env, "METRICS"));
    const exportIntervalMillis = millisOf(env, "OTEL_METRIC_EXPORT_INTERVAL", 60_000);
    readers.push(new PeriodicExportingMetricReader({ exporter, exportIntervalMillis }));
  }
  let listener: HttpServer | undefined;
  if (settings.metricsPort !== undefined) {
    const prometheus = new PrometheusExporter({ preventServerStart: true });
    readers.push(prometheus);
    listener = await serveMetrics(prometheus, settings.metricsHost, settings.metricsPort);
  }
  const meterProvider = new MeterProvider({ resource, readers });
  const meter = meterProvider.getMeter(SERVER_NAME, SERVER_VERSION);
  const stopProcessGauges = observeProcess(meter);
  const observer = new Observer(
    tracerProvider.getTracer(SERVER_NAME, SERVER_VERSION),
    meter,
    names,
    settings.recordContent,
  );
  setLogContext(() => observer.currentIds());

  const address = listener?.address() as AddressInfo | undefined;
  const metricsUrlText = address
    ? `http://${address.family === "IPv6" ? `[${address.address}]` : address.address}:${address.port}/metrics`
    : undefined;
  log("info", "telemetry on", {
    traces: tracesUrl !== undefined,
    otlp_metrics: metricsUrl !== undefined,
    ...(metricsUrlText && { metrics_url: metricsUrlText }),
  });

  return Object.assign(observer, {
    metricsUrl: metricsUrlText,
    async shutdown() {
      setLogContext(undefined);
      stopProcessGauges();
      await Promise.allSettled([tracerProvider.shutdown(), meterProvider.shutdown()]);
      await new Promise<void>((resolve) => (listener ? listener.close(() => resolve()) : resolve()));
    },
  });
}
