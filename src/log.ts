// Logs go to two sinks: JSON lines on stderr (stdout is the protocol in stdio mode), and, where a
// client asked for them, MCP `notifications/message` on the request they belong to. Neither ever
// carries an API key: callers log names, statuses and durations, not arguments or upstream bodies.
import type { LoggingLevel } from "@modelcontextprotocol/server";
import type { LogLevel } from "./config/types.js";
import { SERVER_NAME } from "./version.js";

// A reader that goes away (EPIPE) must not take the server down with it.
process.stderr.on("error", () => {});

/** MCP's levels, least severe first; a client may ask for any of them. */
export const LOGGING_LEVELS: readonly LoggingLevel[] = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
];

export const isLoggingLevel = (value: unknown): value is LoggingLevel =>
  LOGGING_LEVELS.includes(value as LoggingLevel);

const atLeast = (level: LoggingLevel, threshold: LoggingLevel) =>
  LOGGING_LEVELS.indexOf(level) >= LOGGING_LEVELS.indexOf(threshold);

let stderrLevel: LogLevel = "info";

/** Where log lines go: stderr, unless something (the test harness) collects them instead. */
let sink: (line: string) => void = (line) => process.stderr.write(line);

export function setLogSink(next: (line: string) => void): void {
  sink = next;
}

/** The level below which nothing is written to stderr (LOG_LEVEL). */
export function setLogLevel(level: LogLevel): void {
  stderrLevel = level;
}

/** Whether a line at `level` would be written: to skip building one that would not. */
export function logs(level: LogLevel): boolean {
  return atLeast(level, stderrLevel);
}

/** The ids of the span a line is written in, while telemetry is on (src/telemetry/). */
let spanIds: (() => { trace_id: string; span_id: string } | undefined) | undefined;

export function setLogContext(ids: typeof spanIds): void {
  spanIds = ids;
}

/** `warn` is accepted as another name for `warning`. */
export function log(level: LogLevel | "warn", message: string, fields: Record<string, unknown> = {}): void {
  const mcpLevel = level === "warn" ? "warning" : level;
  if (!atLeast(mcpLevel, stderrLevel)) return;
  const line = { time: new Date().toISOString(), level: mcpLevel, message, ...spanIds?.(), ...fields };
  sink(`${JSON.stringify(line)}\n`);
}

/** What a tool call reports about itself, wherever it ends up. */
export type Report = (level: LogLevel, message: string, fields: Record<string, unknown>) => void;

/** The part of a request's context that can reach its client. */
export interface ClientLogSink {
  mcpReq: {
    envelope?: unknown;
    log(level: LoggingLevel, data: unknown, logger?: string): Promise<void>;
  };
}

/**
 * The client's side of one server instance's log. Nothing reaches a client that did not ask: a
 * 2025-revision client asks with logging/setLevel (kept here), a 2026-07-28 request with its own
 * `logLevel` in `_meta` (which the SDK reads). Every entry also goes to stderr at LOG_LEVEL.
 */
export class ClientLog {
  /** The level a 2025-revision client set with logging/setLevel; none until it does. */
  level?: LoggingLevel;

  /** A `Report` for one request: its entries travel with that request's answer. */
  reporter(request: ClientLogSink): Report {
    const onRevision20260728 = request.mcpReq.envelope !== undefined;
    return (level, message, fields) => {
      log(level, message, fields);
      if (!onRevision20260728 && (this.level === undefined || !atLeast(level, this.level))) return;
      // A client that went away misses the entry; stderr still has it.
      request.mcpReq.log(level, { message, ...fields }, SERVER_NAME).catch(() => {});
    };
  }
}
