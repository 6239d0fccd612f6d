// Server log lines of in-process servers are kept per test and shown only when that test fails, so a
// passing run prints test names and nothing else.
import { beforeEach } from "vitest";
import { logLines, resetLogLines } from "./log-capture.js";

beforeEach((context) => {
  resetLogLines();
  context.onTestFailed(() => {
    const lines = logLines();
    if (lines.length > 0) process.stderr.write(`server log of "${context.task.name}":\n${lines.join("")}`);
  });
});
