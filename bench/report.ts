// Figures -> the lines (lines.ts) with PASS/MISS, the ratios reported beside them, and the markdown
// tables a run prints.
import type { ColdStart } from "./cold-start.js";
import {
  BARE_LINES,
  COLD_START_LINE,
  HEAP_PER_SESSION_LINE_KB,
  MCP_PATH_LABELS,
  SANITIZE_100KB_LINE_MS,
} from "./lines.js";
import type { Latency } from "./measure.js";
import type { MemoryFigures } from "./memory.js";
import type { SanitizeFigures } from "./sanitize.js";
import { IN_FLIGHT, type OperationFigures, type OperationName, type PathFigures } from "./scenarios.js";

export type PathName = "limit" | "stdio" | "stdioModern" | "httpModern" | "http" | "stateless";
/** The MCP paths of the server, in the order they are measured and shown. */
export type McpPathName = Exclude<PathName, "limit">;
export const MCP_PATHS: McpPathName[] = ["stdio", "stdioModern", "httpModern", "http", "stateless"];

export interface Sizes {
  toolsListBytes: number;
  /** The JSON-RPC result of one tasks_query call, serialised. */
  tasksResultBytes: number;
  /** What the upstream sent for it. */
  upstreamBodyBytes: number;
  /** Text block plus structuredContent, serialised, over the upstream body. */
  textPlusStructuredRatio: number;
}

export interface Results {
  /** loadAverage: the 1-minute load when the run started and when it ended (other work on the machine). */
  machine: { nproc: number; cpu: string; node: string; platform: string; loadAverage: [number, number] };
  /** When the run started and ended. */
  startedAt?: string;
  date: string;
  quick: boolean;
  notes: string[];
  /** Our server's figures by path; a path it does not serve is empty and named in notServed. */
  paths: Record<PathName, PathFigures>;
  /** Paths our server did not serve, with what it answered (a 2025-only build on 2026-07-28). */
  notServed: Partial<Record<McpPathName, string>>;
  /** The bare SDK v2 server against the limit alone, on paths our server did not serve. */
  bareAlone: Partial<Record<McpPathName, PathFigures>>;
  coldStart: ColdStart;
  memory: MemoryFigures;
  sizes: Sizes;
  /** sanitizeText on long hostile strings (absent from runs recorded before it was measured). */
  sanitize?: SanitizeFigures;
  targets: TargetRow[];
}

/** A figure of the run: judged against its line (lines.ts), or only reported (no line). */
export interface TargetRow {
  measure: string;
  figure: string;
  /** The line, e.g. ">= 0.9×"; absent for a figure that is reported, not judged. */
  target?: string;
  /** The figure over its line (for an "at most" line) or the line over the figure ("at least"): <= 1 passes. */
  ofLine?: number;
  pass?: boolean;
  /** The path is not served by this build: the row's lines were not measured. */
  notServed?: boolean;
}

const PATH_LABEL: Record<PathName, string> = { limit: "limit (undici → upstream)", ...MCP_PATH_LABELS };

/** A row judged against an "at least" line. */
const atLeast = (measure: string, figure: string, value: number, line: number, unit = "×"): TargetRow => ({
  measure,
  figure,
  target: `>= ${line}${unit}`,
  ofLine: line / value,
  pass: value >= line,
});

/** A row judged against an "at most" line. */
const atMost = (measure: string, figure: string, value: number, line: number, unit = "×"): TargetRow => ({
  measure,
  figure,
  target: `<= ${line}${unit}`,
  ofLine: value / line,
  pass: value <= line,
});

const ms = (value: number) => `${value.toFixed(value < 1 ? 3 : 2)} ms`;
const rate = (value: number) => `${Math.round(value)}/s`;
const times = (value: number) => `${value.toFixed(2)}×`;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

/**
 * The limit a row is compared with: the one measured alongside it (MCP paths), else the limit's own
 * run of the same operation (tasks_query for tools/list).
 */
function limitFor(paths: Results["paths"], operation: OperationName, figures: OperationFigures) {
  return figures.limit ?? paths.limit[operation === "tools/list" ? "tasks_query" : operation]!;
}

/** A throughput as a share of the limit's in the same slots. */
const shareOfLimit = (
  paths: Results["paths"],
  operation: OperationName,
  figures: OperationFigures,
  inFlight: number,
) => figures.throughput[inFlight]! / limitFor(paths, operation, figures).throughput[inFlight]!;

const fraction = (share: number) => `1/${Number((1 / share).toFixed(1))}`;

function callTargets(paths: Results["paths"], path: McpPathName): TargetRow[] {
  const call = paths[path].tasks_query!;
  const limit = limitFor(paths, "tasks_query", call);
  const rows: TargetRow[] = [
    ...bareTargets(path, call),
    {
      measure: `${PATH_LABEL[path]} tool call p50 vs the limit`,
      figure: `${ms(call.p50Ms)} = ${times(call.p50Ms / limit.p50Ms)} the limit`,
    },
  ];
  for (const inFlight of IN_FLIGHT) {
    const share = shareOfLimit(paths, "tasks_query", call, inFlight);
    rows.push({
      measure: `${PATH_LABEL[path]} tool call throughput, ${inFlight} in flight, vs the limit`,
      figure: `${rate(call.throughput[inFlight]!)} = ${fraction(share)} of the limit`,
    });
  }
  // Each against the limit beside it, so that the machine's drift between the two runs cancels out.
  const list = paths[path]["tools/list"]!;
  const listShare =
    shareOfLimit(paths, "tools/list", list, 16) / shareOfLimit(paths, "tasks_query", call, 16);
  rows.push({
    measure: `${PATH_LABEL[path]} tools/list throughput, 16 in flight`,
    figure: `${rate(list.throughput[16]!)} = ${times(listShare)} a tool call (each against the limit beside it)`,
  });
  return rows;
}

/** Our tool call against the bare SDK v2 server's in the same slots: throughput and p50. */
function bareTargets(path: McpPathName, call: OperationFigures): TargetRow[] {
  const bare = call.bare;
  if (!bare) return [];
  const line = BARE_LINES[path];
  const speedup = call.throughput[16]! / bare.throughput[16]!;
  const latency = call.p50Ms / bare.p50Ms;
  return [
    atLeast(
      `${PATH_LABEL[path]} tool call throughput, 16 in flight, vs bare SDK v2`,
      `${rate(call.throughput[16]!)} = ${times(speedup)} bare SDK v2 (${rate(bare.throughput[16]!)})`,
      speedup,
      line.throughput,
    ),
    atMost(
      `${PATH_LABEL[path]} tool call p50 vs bare SDK v2`,
      `${ms(call.p50Ms)} = ${times(latency)} bare SDK v2 (${ms(bare.p50Ms)})`,
      latency,
      line.p50,
    ),
  ];
}

/** One row for a path this build does not serve, in place of that path's lines. */
function notServedRow(path: McpPathName, reason: string): TargetRow {
  const line = BARE_LINES[path];
  return {
    measure: `${PATH_LABEL[path]}: tool call vs bare SDK v2`,
    figure: `not served: ${reason.replaceAll("|", "/").replaceAll("\n", " ").slice(0, 160)}`,
    target: `>= ${line.throughput}× and <= ${line.p50}× bare`,
    pass: false,
    notServed: true,
  };
}

export function targetRows(results: Omit<Results, "targets">): TargetRow[] {
  const { paths, notServed, coldStart, memory, sizes, sanitize } = results;
  return [
    ...MCP_PATHS.flatMap((path) => {
      const reason = notServed[path];
      return reason === undefined ? callTargets(paths, path) : [notServedRow(path, reason)];
    }),
    atMost(
      "cold start (spawn → first tools/list answer, median)",
      `${ms(coldStart.serverMs)} = ${times(coldStart.ratio)} node -e 0 (${ms(coldStart.nodeMs)})`,
      coldStart.ratio,
      COLD_START_LINE,
    ),
    atMost(
      `heap per open 2025 session (${memory.sessions} open)`,
      kb(memory.heapPerSessionBytes),
      memory.heapPerSessionBytes / 1024,
      HEAP_PER_SESSION_LINE_KB,
      " KB",
    ),
    {
      measure: "heap after closing them, over baseline",
      figure: `${(memory.heapAfterCloseGrowth * 100).toFixed(1)} %`,
    },
    {
      measure: "tasks_query result: text + structuredContent over upstream body",
      figure: `${times(sizes.textPlusStructuredRatio)} (${sizes.upstreamBodyBytes} B upstream)`,
    },
    ...(sanitize
      ? [
          atMost(
            "sanitizing 100 KB of mixed hostile Markdown (median; 10 KB beside it)",
            `${ms(sanitize.medianMs["100 KB"]!)} (10 KB: ${ms(sanitize.medianMs["10 KB"]!)})`,
            sanitize.medianMs["100 KB"]!,
            SANITIZE_100KB_LINE_MS,
            " ms",
          ),
          atMost(
            "sanitizing 100 KB of subdivision flags (tag sequences; median)",
            ms(sanitize.medianMs["100 KB flags"]!),
            sanitize.medianMs["100 KB flags"]!,
            SANITIZE_100KB_LINE_MS,
            " ms",
          ),
        ]
      : []),
  ];
}

type Figures = Latency & { throughput: Record<string, number>; cpuMicrosPerCall?: number };

/** One line of the path table: figures, and their ratios to the limit of the same slots. */
function pathLine(label: string, operation: string, figures: Figures, limit: Figures): string {
  const cells = [label, operation, ms(figures.p50Ms), ms(figures.p99Ms), times(figures.p50Ms / limit.p50Ms)];
  for (const inFlight of IN_FLIGHT) {
    cells.push(
      rate(figures.throughput[inFlight]!),
      `1/${(limit.throughput[inFlight]! / figures.throughput[inFlight]!).toFixed(1)}`,
    );
  }
  cells.push(figures.cpuMicrosPerCall === undefined ? "n/a" : `${Math.round(figures.cpuMicrosPerCall)} µs`);
  return `| ${cells.join(" | ")} |`;
}

function pathTable(results: Results): string[] {
  const { paths } = results;
  const lines = [
    "| path | operation | p50 | p99 | p50 ratio | 16 in flight | ratio | 64 in flight | ratio | CPU/call |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const path of Object.keys(PATH_LABEL) as PathName[]) {
    const reason = path === "limit" ? undefined : results.notServed[path];
    if (reason !== undefined) lines.push(`| ${PATH_LABEL[path]} | all | not served | | | | | | | |`);
    for (const [operation, figures] of Object.entries(paths[path]) as [
      OperationName,
      PathFigures[OperationName],
    ][]) {
      if (!figures) continue;
      lines.push(pathLine(PATH_LABEL[path], operation, figures, limitFor(paths, operation, figures)));
    }
    const bareFigures = path === "limit" ? undefined : (results.bareAlone[path] ?? paths[path]);
    const call = bareFigures?.tasks_query;
    const bare = call?.bare ?? (reason === undefined ? undefined : call);
    if (call && bare) {
      lines.push(
        pathLine(
          `${PATH_LABEL[path]}, bare SDK v2`,
          "tasks_query",
          bare,
          limitFor(paths, "tasks_query", call),
        ),
      );
    }
  }
  return lines;
}

export function markdown(results: Results): string {
  const { machine, memory, sizes } = results;
  const lines = [
    `Machine: ${machine.nproc} × ${machine.cpu}, Node ${machine.node}, ${machine.platform}, load ${machine.loadAverage.join(" → ")}; ${results.date}${results.quick ? " (quick run)" : ""}`,
    "",
    "| measure | figure | line | of the line | result |",
    "|---|---|---|---:|---|",
    ...results.targets.map((row) => {
      const result = row.notServed
        ? "NOT SERVED"
        : row.target === undefined
          ? "reported"
          : row.pass
            ? "PASS"
            : "MISS";
      const ofLine = row.ofLine === undefined ? "" : `${Math.round(row.ofLine * 100)} %`;
      return `| ${row.measure} | ${row.figure} | ${row.target ?? ""} | ${ofLine} | ${result} |`;
    }),
    "",
    "line: what a run is judged by (bench/lines.ts); of the line: the figure's share of what the line allows, 100 % or less passes. A row without a line is reported, not judged: the ratios to the limit among them.",
    "",
    ...pathTable(results),
    "",
    "Ratios on the MCP paths are to the limit measured in slots alternating with that row's own (its figures are in latest.json), tools/list's to the limit's tasks_query; the limit rows are its own run at the start. \"bare SDK v2\" lines: the same tool on a bare SDK v2 server (bench/sdk-bare-child.ts) on the same path, in the same alternating slots as our tasks_query (alone with the limit where our server does not serve the path). tools/list against a tool call compares their two ratios. CPU/call: CPU time of the serving process per call at 16 in flight (the server's own; on the limit's lines, the upstream's).",
    `Memory: heap ${kb(memory.baseline.heapUsed)} → ${kb(memory.open.heapUsed)} with ${memory.open.sessions} sessions → ${kb(memory.closed.heapUsed)} after closing (${memory.closed.sessions} left); RSS ${kb(memory.baseline.rss)} → ${kb(memory.open.rss)} → ${kb(memory.closed.rss)}.`,
    `Sizes: tools/list result ${sizes.toolsListBytes} B; tasks_query result ${sizes.tasksResultBytes} B for an upstream body of ${sizes.upstreamBodyBytes} B.`,
    ...results.notes.map((note) => `Note: ${note}`),
  ];
  return `${lines.join("\n")}\n`;
}
