// Logs are JSON lines on stderr: in stdio mode stdout carries the protocol and nothing else.
// A reader that goes away (EPIPE) must not take the server down with it.
process.stderr.on("error", () => {});

export type LogLevel = "debug" | "info" | "warn" | "error";

export function log(level: LogLevel, message: string, fields: Record<string, unknown> = {}): void {
  process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level, message, ...fields })}\n`);
}
