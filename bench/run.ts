// `npm run bench`: the limit, then the same work through the built server over stdio (2025 and
// 2026-07-28) and HTTP (2026-07-28, 2025 sessions, 2025 --stateless), its tool call beside a bare SDK v2
// server's on each path; cold start; memory with 1000 sessions; result sizes. Loopback only, bounded.
// Flags: --quick (shorter runs), --profile (servers write CPU profiles to bench/results/profiles/),
// --record (a full run kept as the run of record in bench/record.json, see record.ts).
// BENCH_DIST=<dir> benches another build (e.g. a checkout of main) with the same harness.
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { measureColdStart } from "./cold-start.js";
import {
  decode,
  type Era,
  excerpt,
  HttpMcpDriver,
  type McpDriver,
  modernRefusal,
  succeeded,
} from "./jsonrpc.js";
import { FULL_BUDGET, type Operation, QUICK_BUDGET } from "./measure.js";
import { measureMemory } from "./memory.js";
import {
  BARE,
  CLI,
  forkBench,
  type HttpServerUnderTest,
  ROOT,
  serverEnv,
  startBareHttpServer,
  startHttpServer,
  stopChild,
} from "./processes.js";
import { RECORD_FILE } from "./record.js";
import {
  MCP_PATHS,
  type McpPathName,
  markdown,
  type PathName,
  type Results,
  type Sizes,
  targetRows,
} from "./report.js";
import { measureSanitize } from "./sanitize.js";
import {
  limitOperations,
  mcpOperations,
  measurePath,
  measurePathAgainstLimit,
  type OperationName,
  type PathFigures,
  type Served,
  TASKS_ARGUMENTS,
} from "./scenarios.js";
import { StdioMcpDriver } from "./stdio-driver.js";
import { TASKS_BODY } from "./upstream.js";

const RUN_LIMIT_MS = 8 * 60_000;
const RESULTS_DIR = `${ROOT}bench/results/`;
const quick = process.argv.includes("--quick");
const profile = process.argv.includes("--profile");
// Also keeps this run as the run of record (bench/record.ts), from which npm run docs writes the figures.
const record = process.argv.includes("--record");
if (record && (quick || profile)) {
  process.stderr.write("bench: --record keeps a full run without --profile; drop --quick and --profile\n");
  process.exit(2);
}
const budget = quick ? QUICK_BUDGET : FULL_BUDGET;
const children = new Set<ChildProcess>();

function nodeArgsFor(path: PathName): string[] {
  return profile ? ["--cpu-prof", `--cpu-prof-dir=${RESULTS_DIR}profiles/${path}`] : [];
}

function cpuModel(): string {
  const line = readFileSync("/proc/cpuinfo", "utf8")
    .split("\n")
    .find((text) => text.startsWith("model name"));
  return line?.split(":")[1]?.trim() ?? "unknown CPU";
}

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

async function measureSizes(driver: McpDriver): Promise<Sizes> {
  const whole = { whole: true };
  const list = decode(await driver.request("tools/list", undefined, whole));
  const call = decode(
    await driver.request("tools/call", { name: "tasks_query", arguments: TASKS_ARGUMENTS }, whole),
  );
  const result = call.result as { content: { text: string }[]; structuredContent: unknown };
  const upstreamBodyBytes = Buffer.byteLength(TASKS_BODY);
  const blocks = Buffer.byteLength(result.content[0]!.text) + bytes(result.structuredContent);
  return {
    toolsListBytes: bytes(list.result),
    tasksResultBytes: bytes(call.result),
    upstreamBodyBytes,
    textPlusStructuredRatio: blocks / upstreamBodyBytes,
  };
}

type LimitOperations = Map<OperationName, Operation>;

/** The bare server's operations on a path: the tool call only (it has no other tool). */
function bareOperations(driver: McpDriver, pid: number | undefined): Served {
  const operations = mcpOperations(driver);
  return { operations: new Map([["tasks_query", operations.get("tasks_query")!]]), pid };
}

interface PathRun {
  figures: PathFigures;
  /** Set when our server does not serve the path; the bare server was then measured alone. */
  notServed?: string;
  bareAlone?: PathFigures;
}

/**
 * One path: our server through `ours` beside the bare server through `bare`, both against the limit.
 * On the 2026-07-28 paths a server that does not list the revision in server/discover is not served.
 */
async function measureMcpPath(
  era: Era,
  ours: McpDriver,
  oursPid: number | undefined,
  bare: Served,
  limit: LimitOperations,
): Promise<PathRun> {
  const refusal = era === "modern" ? await modernRefusal(ours) : undefined;
  if (refusal !== undefined) {
    const bareAlone = await measurePathAgainstLimit(bare, limit, budget);
    return { figures: {}, notServed: refusal, bareAlone };
  }
  const figures = await measurePathAgainstLimit(
    { operations: mcpOperations(ours), pid: oursPid },
    limit,
    budget,
    bare,
  );
  return { figures };
}

async function spawnStdio(args: string[], upstreamUrl: string, era: Era): Promise<StdioMcpDriver> {
  const driver = await StdioMcpDriver.spawn(args, serverEnv(upstreamUrl), era);
  children.add(driver.child);
  return driver;
}

/** stdio in one era: our server and the bare one, each a child of its own. */
async function measureStdio(upstreamUrl: string, limit: LimitOperations, era: Era, path: McpPathName) {
  const ours = await spawnStdio([...nodeArgsFor(path), CLI], upstreamUrl, era);
  const bare = await spawnStdio([BARE, "--transport", "stdio"], upstreamUrl, era);
  try {
    // A modern server is asked server/discover first; a legacy opening is what pins the connection.
    if (era === "legacy") await ours.open();
    const opened = await bare.open();
    if (!succeeded(opened)) throw new Error(`bare SDK v2 stdio (${era}) failed: ${excerpt(opened)}`);
    return await measureMcpPath(era, ours, ours.child.pid, bareOperations(bare, bare.child.pid), limit);
  } finally {
    await Promise.all([ours.close(), bare.close()]);
  }
}

async function startHttp(start: () => Promise<HttpServerUnderTest>): Promise<HttpServerUnderTest> {
  const server = await start();
  children.add(server.child);
  return server;
}

/** The HTTP paths: our default server (2026-07-28, 2025 sessions) and --stateless (2025 stateless). */
async function measureHttpPaths(upstreamUrl: string, limit: LimitOperations, notes: string[]) {
  const bareHttp = await startHttp(() => startBareHttpServer(upstreamUrl, "http"));
  const bareSessions = await startHttp(() => startBareHttpServer(upstreamUrl, "sessions"));
  const runs: Partial<Record<McpPathName, PathRun>> = {};
  try {
    const server = await startHttp(() => startHttpServer(upstreamUrl, [], nodeArgsFor("http")));
    try {
      step("HTTP 2026-07-28");
      const ours = await HttpMcpDriver.connect(server.url, 64, undefined, "modern");
      const bare = await HttpMcpDriver.connect(bareHttp.url, 64, undefined, "modern");
      runs.httpModern = await measureMcpPath(
        "modern",
        ours,
        server.child.pid,
        bareOperations(bare, bareHttp.child.pid),
        limit,
      );
      await Promise.all([ours.close(), bare.close()]);

      step("HTTP 2025 sessions");
      const oursLegacy = await HttpMcpDriver.connect(server.url);
      const bareLegacy = await HttpMcpDriver.connect(bareSessions.url);
      if (!bareLegacy.sessionId)
        notes.push("the bare SDK v2 sessionful server answered initialize without a session id.");
      runs.http = await measureMcpPath(
        "legacy",
        oursLegacy,
        server.child.pid,
        bareOperations(bareLegacy, bareSessions.child.pid),
        limit,
      );
      await Promise.all([oursLegacy.close(), bareLegacy.close()]);
    } finally {
      await stopChild(server.child);
    }

    step("HTTP 2025 stateless");
    const stateless = await startHttp(() =>
      startHttpServer(upstreamUrl, ["--stateless"], nodeArgsFor("stateless")),
    );
    try {
      const ours = await HttpMcpDriver.connect(stateless.url);
      if (ours.sessionId) {
        notes.push(
          "--stateless still answered initialize with a session id: this build serves it statefully.",
        );
      }
      const bare = await HttpMcpDriver.connect(bareHttp.url);
      runs.stateless = await measureMcpPath(
        "legacy",
        ours,
        stateless.child.pid,
        bareOperations(bare, bareHttp.child.pid),
        limit,
      );
      await Promise.all([ours.close(), bare.close()]);
    } finally {
      await stopChild(stateless.child);
    }
  } finally {
    await Promise.all([stopChild(bareHttp.child), stopChild(bareSessions.child)]);
  }
  return runs;
}

const step = (text: string) => process.stderr.write(`bench: ${text}\n`);

async function main(): Promise<void> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
  // Profiles of an earlier run would be summarised with this one's.
  if (profile) rmSync(`${RESULTS_DIR}profiles/`, { recursive: true, force: true });
  const { child: upstreamChild, ready } = await forkBench<{ url: string }>("upstream-child.js");
  children.add(upstreamChild);
  const upstreamUrl = ready.url;
  const notes: string[] = [];
  const loadAtStart = loadavg()[0]!;
  const startedAt = new Date().toISOString();
  try {
    step("limit");
    const limit = limitOperations(upstreamUrl);
    const limitFigures = await measurePath(limit.operations, budget, upstreamChild.pid);

    step("sizes");
    const sizer = await spawnStdio([CLI], upstreamUrl, "legacy");
    await sizer.open();
    const sizes = await measureSizes(sizer);
    await sizer.close();

    step("stdio 2025");
    const runs: Partial<Record<McpPathName, PathRun>> = {};
    runs.stdio = await measureStdio(upstreamUrl, limit.operations, "legacy", "stdio");
    step("stdio 2026-07-28");
    runs.stdioModern = await measureStdio(upstreamUrl, limit.operations, "modern", "stdioModern");
    Object.assign(runs, await measureHttpPaths(upstreamUrl, limit.operations, notes));
    await limit.pool.close();
    step("cold start");
    const coldStart = await measureColdStart(upstreamUrl, 10);
    step("memory");
    const memory = await measureMemory(upstreamUrl, 1000);
    step("sanitize");
    const sanitize = await measureSanitize();

    const paths = { limit: limitFigures } as Record<PathName, PathFigures>;
    const notServed: Results["notServed"] = {};
    const bareAlone: Results["bareAlone"] = {};
    for (const path of MCP_PATHS) {
      const run = runs[path]!;
      paths[path] = run.figures;
      if (run.notServed !== undefined) notServed[path] = run.notServed;
      if (run.bareAlone) bareAlone[path] = run.bareAlone;
    }
    const partial = {
      machine: {
        nproc: availableParallelism(),
        cpu: cpuModel(),
        node: process.version,
        platform: process.platform,
        loadAverage: [loadAtStart, loadavg()[0]!] as [number, number],
      },
      startedAt,
      date: new Date().toISOString(),
      quick,
      notes,
      paths,
      notServed,
      bareAlone,
      coldStart,
      memory,
      sizes,
      sanitize,
    };
    const results: Results = { ...partial, targets: targetRows(partial) };
    mkdirSync(RESULTS_DIR, { recursive: true });
    writeFileSync(`${RESULTS_DIR}latest.json`, `${JSON.stringify(results, null, 2)}\n`);
    process.stdout.write(markdown(results));
    step("written to bench/results/latest.json");
    if (record) {
      writeFileSync(`${ROOT}${RECORD_FILE}`, `${JSON.stringify(results, null, 2)}\n`);
      step(`kept as the run of record in ${RECORD_FILE}: npm run docs writes docs/performance.md from it`);
    }
  } finally {
    upstreamChild.disconnect();
    await Promise.all([...children].map(stopChild));
  }
}

const guard = setTimeout(() => {
  process.stderr.write(`bench: over ${RUN_LIMIT_MS / 60_000} minutes, stopping\n`);
  for (const child of children) child.kill("SIGKILL");
  process.exit(1);
}, RUN_LIMIT_MS);
guard.unref();

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    for (const child of children) child.kill("SIGKILL");
    process.exit(1);
  },
);
