// What scrubbing success results of the key costs per call (issue 14): scrubKeys on the bench's 5.6 KB
// tasks page, in the three cases a body can be in. A micro-measurement, not a pass/fail test.
// Run: npm run build && npx tsc -p bench && node bench/.out/bench/scrub.js
import { performance } from "node:perf_hooks";
import type { UpstreamSettings } from "../src/config/types.js";
import { scrubKeys } from "../src/tools/key-scrub.js";
import { API_KEY, TASKS_BODY } from "./upstream.js";

const settings = { workspaceApiKey: API_KEY } as UpstreamSettings;
const ROUNDS = 200_000;

/** Nanoseconds per call of `run`, the best of 5 runs of ROUNDS calls (after one to warm up). */
function nsPerCall(run: () => unknown): number {
  let best = Number.POSITIVE_INFINITY;
  for (let attempt = 0; attempt < 6; attempt++) {
    const started = performance.now();
    for (let i = 0; i < ROUNDS; i++) run();
    const ns = ((performance.now() - started) * 1e6) / ROUNDS;
    if (attempt > 0) best = Math.min(best, ns);
  }
  return best;
}

const cases: [string, string][] = [
  ["no key, plain text (the usual case)", TASKS_BODY],
  ["no key, text with \\u escapes (judged by JSON.stringify)", TASKS_BODY.replace("Check", "Ch\\u00e9ck")],
  [
    "the key echoed once (body rebuilt)",
    TASKS_BODY.replace('"description":""', `"description":"${API_KEY}"`),
  ],
];

for (const [name, text] of cases) {
  const body = JSON.parse(text) as Record<string, unknown>;
  const ns = nsPerCall(() => scrubKeys(body, text, settings));
  process.stdout.write(`${name.padEnd(60)} ${(ns / 1000).toFixed(2)} µs/call (${text.length} bytes)\n`);
}
