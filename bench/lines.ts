// The lines `npm run bench` judges a run by, in one place: report.ts prints each as pass or miss with
// its ratio to the line, and `npm run docs` writes the table of them into bench/README.md and
// docs/performance.md. Ratios to the limit (undici straight to the upstream) are reported, not judged:
// a server that lets the SDK answer each message cannot come near the limit's figures.
import type { McpPathName } from "./report.js";

/** Our tool call against the bare SDK v2 server's on the same path, 16 in flight. */
export interface BareLine {
  /** Our throughput over the bare server's: at least this. */
  throughput: number;
  /** Our p50 over the bare server's: at most this. */
  p50: number;
}

/** Every path: our server does more per call (argument checks, answer shaping, key scrubbing). */
const EVERY_PATH: BareLine = { throughput: 0.9, p50: 1.1 };

export const BARE_LINES: Record<McpPathName, BareLine> = {
  stdio: EVERY_PATH,
  stdioModern: EVERY_PATH,
  // Our own bridge to node:http in place of the SDK's toNodeHandler (docs/performance.md).
  httpModern: { throughput: 1.5, p50: 0.75 },
  http: EVERY_PATH,
  stateless: EVERY_PATH,
};

/** Spawn to the first tools/list answer, over `node -e 0`'s: at most this. */
export const COLD_START_LINE = 3;

/** Heap per open 2025 session, in KB: at most this. */
export const HEAP_PER_SESSION_LINE_KB = 40;

/** sanitizeText on 100 KB of mixed hostile Markdown, median, in milliseconds: at most this (it blocks the process). */
export const SANITIZE_100KB_LINE_MS = 50;

/** How each MCP path is named in the bench's output and the docs. */
export const MCP_PATH_LABELS: Record<McpPathName, string> = {
  stdio: "stdio 2025",
  stdioModern: "stdio 2026-07-28",
  httpModern: "HTTP 2026-07-28",
  http: "HTTP 2025 sessions",
  stateless: "HTTP 2025 stateless",
};

/** The lines as a markdown table, for the docs. */
export function linesTable(): string {
  const rows = [
    "| measure | line |",
    "|---|---|",
    ...Object.entries(BARE_LINES).map(
      ([path, line]) =>
        `| ${MCP_PATH_LABELS[path as McpPathName]}: \`tasks_query\` throughput (16 in flight) and p50, over the bare SDK v2 server's | ≥ ${line.throughput}× / ≤ ${line.p50}× |`,
    ),
    `| cold start (spawn to the first \`tools/list\` answer), over \`node -e 0\` | ≤ ${COLD_START_LINE}× |`,
    `| heap per open 2025 session | ≤ ${HEAP_PER_SESSION_LINE_KB} KB |`,
    `| sanitizing 100 KB of mixed hostile Markdown in one string (median) | ≤ ${SANITIZE_100KB_LINE_MS} ms |`,
    `| sanitizing 100 KB of subdivision flags (tag sequences) in one string (median) | ≤ ${SANITIZE_100KB_LINE_MS} ms |`,
  ];
  return rows.join("\n");
}
