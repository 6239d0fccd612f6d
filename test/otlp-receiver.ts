// A small OTLP/HTTP receiver on loopback: it keeps every export it is sent (traces and metrics, JSON
// or protobuf) and decodes the JSON ones into spans and data points the tests can read.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedExport {
  path: string;
  contentType: string;
  body: Buffer;
}

type AnyValue = {
  stringValue?: string;
  intValue?: number | string;
  boolValue?: boolean;
  doubleValue?: number;
};
type KeyValue = { key: string; value: AnyValue };

export interface ReceivedSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  /** OTLP's numbering: 2 server, 3 client. */
  kind: number;
  /** 2 is ERROR. */
  statusCode: number;
  attributes: Record<string, string | number | boolean>;
  links: { traceId: string; spanId: string }[];
  service: string;
}

export interface ReceivedPoint {
  metric: string;
  attributes: Record<string, string | number | boolean>;
  /** A sum's or gauge's value, or a histogram's count. */
  value: number;
}

export interface OtlpReceiver {
  url: string;
  exports: ReceivedExport[];
  spans(): ReceivedSpan[];
  points(metric: string): ReceivedPoint[];
  /** Everything received, as text: for checking that a string appears nowhere. */
  allText(): string;
  close(): Promise<void>;
}

export const SPAN_KIND_SERVER = 2;
export const SPAN_KIND_CLIENT = 3;

function plainValue(value: AnyValue): string | number | boolean {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  return JSON.stringify(value);
}

function attributesOf(list: KeyValue[] | undefined): Record<string, string | number | boolean> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, plainValue(value)]));
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const exports: ReceivedExport[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    exports.push({
      path: req.url ?? "",
      contentType: String(req.headers["content-type"] ?? ""),
      body: Buffer.concat(chunks),
    });
    const json = String(req.headers["content-type"]).includes("json");
    res.writeHead(200, { "content-type": json ? "application/json" : "application/x-protobuf" });
    res.end(json ? "{}" : undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const jsonBodies = (path: string) =>
    exports
      .filter((e) => e.path === path && e.contentType.includes("json"))
      .map((e) => JSON.parse(e.body.toString("utf8")));
  return {
    url: `http://127.0.0.1:${port}`,
    exports,
    spans: () =>
      jsonBodies("/v1/traces").flatMap((body) =>
        body.resourceSpans.flatMap(
          (resource: { resource: { attributes: KeyValue[] }; scopeSpans: { spans: never[] }[] }) =>
            resource.scopeSpans.flatMap((scope) =>
              scope.spans.map(
                (span: {
                  name: string;
                  traceId: string;
                  spanId: string;
                  parentSpanId?: string;
                  kind: number;
                  status?: { code?: number };
                  attributes?: KeyValue[];
                  links?: { traceId: string; spanId: string }[];
                }): ReceivedSpan => ({
                  name: span.name,
                  traceId: span.traceId,
                  spanId: span.spanId,
                  parentSpanId: span.parentSpanId || undefined,
                  kind: span.kind,
                  statusCode: span.status?.code ?? 0,
                  attributes: attributesOf(span.attributes),
                  links: (span.links ?? []).map(({ traceId, spanId }) => ({ traceId, spanId })),
                  service: String(attributesOf(resource.resource.attributes)["service.name"]),
                }),
              ),
            ),
        ),
      ),
    points: (metric) =>
      jsonBodies("/v1/metrics").flatMap((body) =>
        body.resourceMetrics.flatMap((resource: { scopeMetrics: { metrics: never[] }[] }) =>
          resource.scopeMetrics.flatMap((scope) =>
            scope.metrics
              .filter((m: { name: string }) => m.name === metric)
              .flatMap(
                (m: {
                  name: string;
                  sum?: { dataPoints: never[] };
                  gauge?: { dataPoints: never[] };
                  histogram?: { dataPoints: never[] };
                }) =>
                  (m.sum ?? m.gauge ?? m.histogram)?.dataPoints.map(
                    (point: {
                      attributes?: KeyValue[];
                      asInt?: number | string;
                      asDouble?: number;
                      count?: number | string;
                    }) => ({
                      metric: m.name,
                      attributes: attributesOf(point.attributes),
                      value: Number(point.count ?? point.asInt ?? point.asDouble ?? Number.NaN),
                    }),
                  ) ?? [],
              ),
          ),
        ),
      ),
    allText: () => exports.map((e) => e.body.toString("utf8")).join("\n"),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
