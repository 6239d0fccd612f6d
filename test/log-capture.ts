// The log lines in-process servers write during the current test (see setup-logs.ts), for tests that
// assert what is logged.
import { setLogSink } from "../src/log.js";

let lines: string[] = [];
setLogSink((line) => {
  lines.push(line);
});

/** Starts a new test's collection. */
export function resetLogLines(): void {
  lines = [];
}

/** Every line collected so far in this test (each ends with a newline). */
export function logLines(): readonly string[] {
  return lines;
}
