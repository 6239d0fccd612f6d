// `npm run bench:cpu -- <path> [baseline dist]`: CPU time per tasks_query call (16 in flight) of this
// build, another build (default: none) and the bare SDK v2 server on one MCP path, in alternating
// slots. For judging a change on a shared machine, where wall-clock figures swing and CPU time less.
// Paths: stdio, stdioModern, httpModern, http (2025 sessions), stateless; and oauth (2025 sessions) and
// oauthModern (2026-07-28): two servers of this build with --oauth, one called with an access token,
// one with X-API-KEY, paired.
// --long runs each side four times as long. With --profile this build writes a CPU profile to bench/results/profiles/probe-<path>/ (see profile-summary.ts).
import type { ChildProcess } from "node:child_process";
import { rmSync } from "node:fs";
import { type Era, HttpMcpDriver, type McpDriver } from "./jsonrpc.js";
import { type Budget, pairedThroughput, type Side } from "./measure.js";
import { accessTokenFor } from "./oauth-sign-in.js";
import {
  BARE,
  CLI,
  cpuMicros,
  forkBench,
  ROOT,
  serverEnv,
  startBareHttpServer,
  startListening,
  stopChild,
} from "./processes.js";
import { mcpOperations } from "./scenarios.js";
import { StdioMcpDriver } from "./stdio-driver.js";
import { API_KEY } from "./upstream.js";

const profile = process.argv.includes("--profile");
/** --long: four times the slots' time, for a loaded machine where a short run's ratio swings. */
const long = process.argv.includes("--long");
const [path = "stdio", baseline] = process.argv.slice(2).filter((arg) => !arg.startsWith("--"));
const BUDGET: Budget = {
  sequentialMs: 0,
  sequentialCalls: 0,
  throughputMs: long ? 16_000 : 4_000,
  warmupMs: 1_000,
};
const children: ChildProcess[] = [];

interface Subject {
  driver: McpDriver;
  pid: number | undefined;
}

async function stdioSubject(args: string[], upstreamUrl: string, era: Era): Promise<Subject> {
  const driver = await StdioMcpDriver.spawn(args, serverEnv(upstreamUrl), era);
  children.push(driver.child);
  if (era === "legacy") await driver.open();
  return { driver, pid: driver.child.pid };
}

async function httpSubject(args: string[] | "bare", upstreamUrl: string, era: Era): Promise<Subject> {
  const server =
    args === "bare"
      ? await startBareHttpServer(upstreamUrl, path === "http" ? "sessions" : "http")
      : await startListening(upstreamUrl, (port) => [...args, "--transport", "http", "--port", port]);
  children.push(server.child);
  const driver = await HttpMcpDriver.connect(server.url, 64, undefined, era);
  return { driver, pid: server.child.pid };
}

async function subjectFor(
  cli: string | "bare",
  upstreamUrl: string,
  nodeArgs: string[] = [],
): Promise<Subject> {
  const era: Era = path === "stdioModern" || path === "httpModern" ? "modern" : "legacy";
  if (path.startsWith("stdio")) {
    return stdioSubject(
      cli === "bare" ? [BARE, "--transport", "stdio"] : [...nodeArgs, cli],
      upstreamUrl,
      era,
    );
  }
  if (cli === "bare") return httpSubject("bare", upstreamUrl, era);
  return httpSubject([...nodeArgs, cli, ...(path === "stateless" ? ["--stateless"] : [])], upstreamUrl, era);
}

/** A server of this build with --oauth, its driver sending a token (signed in with the key) or X-API-KEY. */
async function oauthSubject(
  upstreamUrl: string,
  credentials: "token" | "header",
  era: Era,
): Promise<Subject> {
  const secret = { MCP_OAUTH_SECRET: "bench-secret-of-at-least-thirty-two-chars" };
  const server = await startListening(
    upstreamUrl,
    (port) => [CLI, "--transport", "http", "--port", port, "--oauth", "--toolsets", "workspace"],
    secret,
  );
  children.push(server.child);
  const headers: Record<string, string> =
    credentials === "token"
      ? { authorization: `Bearer ${await accessTokenFor(server.url, API_KEY)}` }
      : { "x-api-key": API_KEY };
  const driver = await HttpMcpDriver.connect(server.url, 64, undefined, era, headers);
  return { driver, pid: server.child.pid };
}

async function oauthProbe(upstreamUrl: string, era: Era): Promise<void> {
  const token = await oauthSubject(upstreamUrl, "token", era);
  const header = await oauthSubject(upstreamUrl, "header", era);
  const operation = (subject: Subject) => mcpOperations(subject.driver).get("tasks_query")!;
  const result = await pairedThroughput({ subject: operation(token), limit: operation(header) }, 16, BUDGET, {
    subject: () => cpuMicros(token.pid),
    limit: () => cpuMicros(header.pid),
  });
  const perCall = (side: { calls: number; cpuMicros?: number }) => (side.cpuMicros ?? 0) / side.calls;
  console.log(`${path} (${era === "modern" ? "2026-07-28" : "2025 sessions"}, tasks_query, 16 in flight):`);
  for (const [name, side] of [
    ["token", result.subject],
    ["X-API-KEY", result.limit],
  ] as const) {
    console.log(
      `${name.padEnd(9)} ${side.perSecond.toFixed(0).padStart(6)}/s  ${perCall(side).toFixed(0).padStart(5)} µs/call`,
    );
  }
  console.log(
    `token / X-API-KEY CPU per call: ${(perCall(result.subject) / perCall(result.limit)).toFixed(3)}`,
  );
}

const { child: upstream, ready } = await forkBench<{ url: string }>("upstream-child.js");
try {
  if (path === "oauth" || path === "oauthModern") {
    await oauthProbe(ready.url, path === "oauth" ? "legacy" : "modern");
  } else {
    const profileDir = `${ROOT}bench/results/profiles/probe-${path}`;
    if (profile) rmSync(profileDir, { recursive: true, force: true });
    const ours = await subjectFor(
      CLI,
      ready.url,
      profile ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [],
    );
    const bare = await subjectFor("bare", ready.url);
    const base = baseline ? await subjectFor(`${baseline}/cli.js`, ready.url) : bare;
    const sides: Record<Side, Subject> = { subject: ours, limit: base, bare };
    const operation = (side: Side) => mcpOperations(sides[side].driver).get("tasks_query")!;
    const result = await pairedThroughput(
      {
        subject: operation("subject"),
        limit: operation("limit"),
        ...(baseline ? { bare: operation("bare") } : {}),
      },
      16,
      BUDGET,
      {
        subject: () => cpuMicros(ours.pid),
        limit: () => cpuMicros(base.pid),
        bare: () => cpuMicros(bare.pid),
      },
    );
    const line = (name: string, side?: { perSecond: number; calls: number; cpuMicros?: number }) =>
      side &&
      `${name.padEnd(9)} ${side.perSecond.toFixed(0).padStart(6)}/s  ${((side.cpuMicros ?? 0) / side.calls).toFixed(0).padStart(5)} µs/call`;
    console.log(`${path}:`);
    console.log(line("this", result.subject));
    if (baseline) console.log(line("baseline", result.limit));
    console.log(line("bare", baseline ? result.bare : result.limit));
  }
} finally {
  upstream.disconnect();
  await Promise.all(children.map(stopChild));
  await stopChild(upstream);
}
