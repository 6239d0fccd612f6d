// The processes a run starts: the upstream, the server under test (built dist/cli.js), the memory
// child. Every one is ended by whoever started it; none outlives the run.
import { type ChildProcess, fork, spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { API_KEY, PROJECT_ID } from "./upstream.js";

/** The repository root: compiled bench files run from bench/.out/bench/. */
export const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
/** The build under test: dist/ of this checkout, or BENCH_DIST to compare another build. */
export const DIST = process.env.BENCH_DIST ? `${resolve(process.env.BENCH_DIST)}/` : `${ROOT}dist/`;
export const CLI = `${DIST}cli.js`;
const HERE = fileURLToPath(new URL(".", import.meta.url));
/** The bare SDK v2 server the bench compares ours with (sdk-bare-child.ts), compiled beside this file. */
export const BARE = `${HERE}sdk-bare-child.js`;

/** Environment that points the server at the bench upstream, with a default project (no whoami). */
export function serverEnv(upstreamUrl: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    WORKSPACE_BASE_URL: upstreamUrl,
    ANALYTICS_BASE_URL: upstreamUrl,
    WORKSPACE_API_KEY: API_KEY,
    WORKSPACE_PROJECT_ID: PROJECT_ID,
    LOG_LEVEL: "error",
    // The per-key cap on upstream requests in flight (default 8): the bench drives one key.
    ...(process.env.UPSTREAM_CONCURRENCY ? { UPSTREAM_CONCURRENCY: process.env.UPSTREAM_CONCURRENCY } : {}),
    // Bench children that import the build (memory, HTTP variants) must load the one under test.
    ...(process.env.BENCH_DIST ? { BENCH_DIST: process.env.BENCH_DIST } : {}),
    // Telemetry's variables, for measuring the server with tracing on (docs/observability.md).
    ...Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith("OTEL_"))),
  };
}

export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 3_000);
  await exited;
  clearTimeout(timer);
}

/** A bench module forked with IPC; resolves with the child and the first message it sends. */
export async function forkBench<T>(
  file: string,
  { args = [], ...options }: { args?: string[]; execArgv?: string[]; env?: NodeJS.ProcessEnv } = {},
): Promise<{ child: ChildProcess; ready: T }> {
  const child = fork(`${HERE}${file}`, args, { ...options, stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const [ready] = (await Promise.race([
    once(child, "message"),
    once(child, "exit").then(() => Promise.reject(new Error(`${file} exited before it was ready`))),
  ])) as [T];
  return { child, ready };
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === "string") throw new Error("no port");
  return address.port;
}

async function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

export interface HttpServerUnderTest {
  url: string;
  child: ChildProcess;
}

/** dist/cli.js over streamable HTTP on a free loopback port; `extraArgs` e.g. --stateless. */
export function startHttpServer(
  upstreamUrl: string,
  extraArgs: string[],
  nodeArgs: string[] = [],
): Promise<HttpServerUnderTest> {
  return startListening(upstreamUrl, (port) => [
    ...nodeArgs,
    CLI,
    "--transport",
    "http",
    "--port",
    port,
    ...extraArgs,
  ]);
}

/**
 * The bare SDK v2 server over HTTP: `http` is createMcpHandler (both eras, 2025 stateless),
 * `sessions` the docs' sessionful 2025 recipe.
 */
export function startBareHttpServer(
  upstreamUrl: string,
  mode: "http" | "sessions",
  nodeArgs: string[] = [],
): Promise<HttpServerUnderTest> {
  return startListening(upstreamUrl, (port) => [...nodeArgs, BARE, "--transport", mode, "--port", port]);
}

export async function startListening(
  upstreamUrl: string,
  argsFor: (port: string) => string[],
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<HttpServerUnderTest> {
  const port = await freePort();
  const args = argsFor(String(port));
  const child = spawn(process.execPath, args, {
    env: { ...serverEnv(upstreamUrl), ...extraEnv },
    stdio: "ignore",
  });
  const deadline = Date.now() + 10_000;
  while (!(await portOpen(port))) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    if (Date.now() > deadline) {
      await stopChild(child);
      throw new Error("server did not listen within 10 s");
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { url: `http://127.0.0.1:${port}/mcp`, child };
}

/** Clock ticks per second of /proc/<pid>/stat times: 100 on every common Linux build. */
const CLOCK_TICKS = 100;

/** User + system CPU time of a process in microseconds, from /proc (undefined where there is none). */
export function cpuMicros(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the parenthesised command name; utime and stime are the 14th and 15th overall.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}
