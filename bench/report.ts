// Figures -> the targets with PASS/MISS, and the markdown tables a run prints.
import type { ColdStart } from "./cold-start.js";
import type { MemoryFigures } from "./memory.js";
import { IN_FLIGHT, type OperationFigures, type OperationName, type PathFigures } from "./scenarios.js";

export type PathName = "limit" | "stdio" | "http" | "stateless";

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
  date: string;
  quick: boolean;
  notes: string[];
  paths: Record<PathName, PathFigures>;
  coldStart: ColdStart;
  memory: MemoryFigures;
  sizes: Sizes;
  targets: TargetRow[];
}

export interface TargetRow {
  measure: string;
  figure: string;
  target: string;
  pass: boolean;
}

const PATH_LABEL: Record<PathName, string> = {
  limit: "limit (undici → upstream)",
  stdio: "stdio",
  http: "HTTP stateful",
  stateless: "HTTP --stateless",
};

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

function callTargets(
  paths: Results["paths"],
  path: PathName,
  latencyRatio: number,
  throughputShare: number,
): TargetRow[] {
  const call = paths[path].tasks_query!;
  const limit = limitFor(paths, "tasks_query", call);
  const rows: TargetRow[] = [
    {
      measure: `${PATH_LABEL[path]} tool call p50`,
      figure: `${ms(call.p50Ms)} = ${times(call.p50Ms / limit.p50Ms)} the limit`,
      target: `<= ${latencyRatio}×`,
      pass: call.p50Ms / limit.p50Ms <= latencyRatio,
    },
  ];
  for (const inFlight of IN_FLIGHT) {
    const share = shareOfLimit(paths, "tasks_query", call, inFlight);
    rows.push({
      measure: `${PATH_LABEL[path]} tool call throughput, ${inFlight} in flight`,
      figure: `${rate(call.throughput[inFlight]!)} = 1/${(1 / share).toFixed(1)} of the limit`,
      target: `>= 1/${Math.round(1 / throughputShare)}`,
      pass: share >= throughputShare,
    });
  }
  // Each against the limit beside it, so that the machine's drift between the two runs cancels out.
  const list = paths[path]["tools/list"]!;
  const listShare =
    shareOfLimit(paths, "tools/list", list, 16) / shareOfLimit(paths, "tasks_query", call, 16);
  rows.push({
    measure: `${PATH_LABEL[path]} tools/list throughput, 16 in flight`,
    figure: `${rate(list.throughput[16]!)} = ${times(listShare)} a tool call (each against the limit beside it)`,
    target: ">= 1.5× a tool call",
    pass: listShare >= 1.5,
  });
  return rows;
}

export function targetRows(results: Omit<Results, "targets">): TargetRow[] {
  const { paths, coldStart, memory, sizes } = results;
  return [
    ...callTargets(paths, "http", 4, 1 / 10),
    ...callTargets(paths, "stateless", 6, 1 / 14),
    ...callTargets(paths, "stdio", 3, 1 / 4),
    {
      measure: "cold start (spawn → first tools/list answer, median)",
      figure: `${ms(coldStart.serverMs)} = ${times(coldStart.ratio)} node -e 0 (${ms(coldStart.nodeMs)})`,
      target: "<= 3×",
      pass: coldStart.ratio <= 3,
    },
    {
      measure: `heap per open stateful session (${memory.sessions} open)`,
      figure: kb(memory.heapPerSessionBytes),
      target: "<= 40 KB",
      pass: memory.heapPerSessionBytes <= 40 * 1024,
    },
    {
      measure: "heap after closing them, over baseline",
      figure: `${(memory.heapAfterCloseGrowth * 100).toFixed(1)} %`,
      target: "<= 10 %",
      pass: memory.heapAfterCloseGrowth <= 0.1,
    },
    {
      measure: "tasks_query result: text + structuredContent over upstream body",
      figure: `${times(sizes.textPlusStructuredRatio)} (${sizes.upstreamBodyBytes} B upstream)`,
      target: "<= 2.1×",
      pass: sizes.textPlusStructuredRatio <= 2.1,
    },
  ];
}

function pathTable(paths: Results["paths"]): string[] {
  const lines = [
    "| path | operation | p50 | p99 | p50 ratio | 16 in flight | ratio | 64 in flight | ratio | CPU/call |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const path of Object.keys(PATH_LABEL) as PathName[]) {
    for (const [operation, figures] of Object.entries(paths[path]) as [
      OperationName,
      PathFigures[OperationName],
    ][]) {
      if (!figures) continue;
      const limit = limitFor(paths, operation, figures);
      const cells = [
        PATH_LABEL[path],
        operation,
        ms(figures.p50Ms),
        ms(figures.p99Ms),
        times(figures.p50Ms / limit.p50Ms),
      ];
      for (const inFlight of IN_FLIGHT) {
        cells.push(
          rate(figures.throughput[inFlight]!),
          `1/${(limit.throughput[inFlight]! / figures.throughput[inFlight]!).toFixed(1)}`,
        );
      }
      cells.push(
        figures.cpuMicrosPerCall === undefined ? "n/a" : `${Math.round(figures.cpuMicrosPerCall)} µs`,
      );
      lines.push(`| ${cells.join(" | ")} |`);
    }
  }
  return lines;
}

export function markdown(results: Results): string {
  const { machine, memory, sizes } = results;
  const lines = [
    `Machine: ${machine.nproc} × ${machine.cpu}, Node ${machine.node}, ${machine.platform}, load ${machine.loadAverage.join(" → ")}; ${results.date}${results.quick ? " (quick run)" : ""}`,
    "",
    "| measure | figure | target | result |",
    "|---|---|---|---|",
    ...results.targets.map(
      (row) => `| ${row.measure} | ${row.figure} | ${row.target} | ${row.pass ? "PASS" : "MISS"} |`,
    ),
    "",
    ...pathTable(results.paths),
    "",
    "Ratios on the MCP paths are to the limit measured in slots alternating with that row's own (its figures are in latest.json), tools/list's to the limit's tasks_query; the limit rows are its own run at the start. tools/list against a tool call compares their two ratios. CPU/call: CPU time of the serving process per call at 16 in flight (the server's own; on the limit's lines, the upstream's).",
    `Memory: heap ${kb(memory.baseline.heapUsed)} → ${kb(memory.open.heapUsed)} with ${memory.open.sessions} sessions → ${kb(memory.closed.heapUsed)} after closing (${memory.closed.sessions} left); RSS ${kb(memory.baseline.rss)} → ${kb(memory.open.rss)} → ${kb(memory.closed.rss)}.`,
    `Sizes: tools/list result ${sizes.toolsListBytes} B; tasks_query result ${sizes.tasksResultBytes} B for an upstream body of ${sizes.upstreamBodyBytes} B.`,
    ...results.notes.map((note) => `Note: ${note}`),
  ];
  return `${lines.join("\n")}\n`;
}
