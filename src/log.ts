// Logs go to two sinks: JSON lines on stderr (stdout is the protocol in stdio mode), and, where a
// session is at hand, MCP `notifications/message` to its client. Neither ever carries an API key:
// callers log names, statuses and durations, not arguments or upstream bodies.
import type { LoggingLevel, LoggingMessageNotification } from "@modelcontextprotocol/sdk/types.js";
import type { LogLevel } from "./config.js";
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

/** The level below which nothing is written to stderr (LOG_LEVEL); also each session's first client level. */
export function setLogLevel(level: LogLevel): void {
  stderrLevel = level;
}

/** Whether a line at `level` would be written: to skip building one that would not. */
export function logs(level: LogLevel): boolean {
  return atLeast(level, stderrLevel);
}

/** `warn` is accepted as another name for `warning`. */
export function log(level: LogLevel | "warn", message: string, fields: Record<string, unknown> = {}): void {
  const mcpLevel = level === "warn" ? "warning" : level;
  if (!atLeast(mcpLevel, stderrLevel)) return;
  const line = { time: new Date().toISOString(), level: mcpLevel, message, ...fields };
  process.stderr.write(`${JSON.stringify(line)}\n`);
}

/** Sends a notification to the client; in a request handler, on that request's own stream. */
export type Notify = (notification: LoggingMessageNotification) => Promise<void>;

/** What a tool call reports about itself, wherever it ends up. */
export type Report = (level: LogLevel, message: string, fields: Record<string, unknown>) => void;

/**
 * The log of one MCP session: every entry goes to stderr (at LOG_LEVEL) and to the client, at the
 * level the client chose with `logging/setLevel` (LOG_LEVEL until it chooses).
 */
export class SessionLog {
  private clientLevel: LoggingLevel = stderrLevel;

  setClientLevel(level: LoggingLevel): void {
    this.clientLevel = level;
  }

  log(level: LogLevel, message: string, fields: Record<string, unknown>, notify: Notify): void {
    log(level, message, fields);
    if (!atLeast(level, this.clientLevel)) return;
    const params = { level, logger: SERVER_NAME, data: { message, ...fields } };
    // A client that went away misses the entry; stderr still has it.
    notify({ method: "notifications/message", params }).catch(() => {});
  }

  /** A `Report` bound to one way of reaching the client. */
  reporter(notify: Notify): Report {
    return (level, message, fields) => this.log(level, message, fields, notify);
  }
}
