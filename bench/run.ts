// `npm run bench`: the limit, then the same work through the built server over stdio, stateful HTTP
// and --stateless HTTP; cold start; memory with 1000 sessions; result sizes. Loopback only, bounded.
// Flags: --quick (shorter runs), --profile (servers write CPU profiles to bench/results/profiles/).
// BENCH_DIST=<dir> benches another build (e.g. a checkout of main) with the same harness.
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { measureColdStart } from "./cold-start.js";
import { decode, HttpMcpDriver, type McpDriver } from "./jsonrpc.js";
import { FULL_BUDGET, type Operation, QUICK_BUDGET } from "./measure.js";
import { measureMemory } from "./memory.js";
import { CLI, forkBench, ROOT, serverEnv, startHttpServer, stopChild } from "./processes.js";
import { markdown, type PathName, type Results, type Sizes, targetRows } from "./report.js";
import {
  limitOperations,
  mcpOperations,
  measurePath,
  measurePathAgainstLimit,
  type OperationName,
  TASKS_ARGUMENTS,
} from "./scenarios.js";
import { StdioMcpDriver } from "./stdio-driver.js";
import { TASKS_BODY } from "./upstream.js";

const RUN_LIMIT_MS = 8 * 60_000;
const RESULTS_DIR = `${ROOT}bench/results/`;
const quick = process.argv.includes("--quick");
const profile = process.argv.includes("--profile");
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

async function measureHttp(
  upstreamUrl: string,
  limit: LimitOperations,
  path: "http" | "stateless",
  notes: string[],
) {
  const server = await startHttpServer(
    upstreamUrl,
    path === "stateless" ? ["--stateless"] : [],
    nodeArgsFor(path),
  );
  children.add(server.child);
  const driver = await HttpMcpDriver.connect(server.url);
  if (path === "stateless" && driver.sessionId) {
    notes.push("--stateless still answered initialize with a session id: this build serves it statefully.");
  }
  try {
    return await measurePathAgainstLimit(mcpOperations(driver), limit, budget, server.child.pid);
  } finally {
    await driver.close();
    await stopChild(server.child);
  }
}

async function main(): Promise<void> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
  // Profiles of an earlier run would be summarised with this one's.
  if (profile) rmSync(`${RESULTS_DIR}profiles/`, { recursive: true, force: true });
  const { child: upstreamChild, ready } = await forkBench<{ url: string }>("upstream-child.js");
  children.add(upstreamChild);
  const upstreamUrl = ready.url;
  const notes: string[] = [];
  const loadAtStart = loadavg()[0]!;
  const step = (text: string) => process.stderr.write(`bench: ${text}\n`);
  try {
    step("limit");
    const limit = limitOperations(upstreamUrl);
    const limitFigures = await measurePath(limit.operations, budget, upstreamChild.pid);

    step("stdio");
    const stdio = await StdioMcpDriver.spawn([...nodeArgsFor("stdio"), CLI], serverEnv(upstreamUrl));
    children.add(stdio.child);
    await stdio.initialize();
    const sizes = await measureSizes(stdio);
    const stdioFigures = await measurePathAgainstLimit(
      mcpOperations(stdio),
      limit.operations,
      budget,
      stdio.child.pid,
    );
    await stdio.close();

    step("HTTP stateful");
    const http = await measureHttp(upstreamUrl, limit.operations, "http", notes);
    step("HTTP --stateless");
    const stateless = await measureHttp(upstreamUrl, limit.operations, "stateless", notes);
    await limit.pool.close();
    step("cold start");
    const coldStart = await measureColdStart(upstreamUrl, 10);
    step("memory");
    const memory = await measureMemory(upstreamUrl, 1000);

    const partial = {
      machine: {
        nproc: availableParallelism(),
        cpu: cpuModel(),
        node: process.version,
        platform: process.platform,
        loadAverage: [loadAtStart, loadavg()[0]!] as [number, number],
      },
      date: new Date().toISOString(),
      quick,
      notes,
      paths: { limit: limitFigures, stdio: stdioFigures, http, stateless },
      coldStart,
      memory,
      sizes,
    };
    const results: Results = { ...partial, targets: targetRows(partial) };
    mkdirSync(RESULTS_DIR, { recursive: true });
    writeFileSync(`${RESULTS_DIR}latest.json`, `${JSON.stringify(results, null, 2)}\n`);
    process.stdout.write(markdown(results));
    step("written to bench/results/latest.json");
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
