// Server log lines of in-process servers are kept per test and shown only when that test fails, so a
// passing run prints test names and nothing else.
// Test files share a worker's modules (isolate: false in vitest.config.ts), so every test starts at
// the default level, whatever a test before it set.
import { beforeEach } from "vitest";
import { setLogLevel } from "../src/log.js";
import { logLines, resetLogLines } from "./log-capture.js";

beforeEach((context) => {
  resetLogLines();
  setLogLevel("info");
  context.onTestFailed(() => {
    const lines = logLines();
    if (lines.length > 0) process.stderr.write(`server log of "${context.task.name}":\n${lines.join("")}`);
  });
});
