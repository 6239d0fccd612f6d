// A real Redis for the tests that need one: Debian's redis-server on a free loopback port, nothing
// written to disk but by a SAVE (into its own folder), stopped (and restarted on the same port) as a test needs.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { freePort } from "./helpers.js";

export const REDIS_MISSING =
  "redis-server is not installed, and this test needs it: install it (Debian: apt-get install -y redis-server; .ci/run does this)";

export function findRedisServer(): string | undefined {
  const dirs = [...(process.env.PATH ?? "").split(delimiter), "/usr/bin", "/usr/sbin", "/usr/local/bin"];
  return dirs.map((dir) => join(dir, "redis-server")).find((path) => existsSync(path));
}

export interface RedisServer {
  port: number;
  /** redis://127.0.0.1:<port>, with the password when one is required. */
  url: string;
  /** Starts it again on the same port (after stop): empty, or from the snapshot a SAVE wrote. */
  start(): Promise<void>;
  /** Ends it (SIGKILL: as a crash would), and waits for the exit. */
  stop(): Promise<void>;
  /** Stops it for good and removes its folder. */
  close(): Promise<void>;
  /** SIGSTOP / SIGCONT: a Redis that accepts and hangs, then answers again. */
  pause(): void;
  resume(): void;
}

/** Starts redis-server on a port nobody listens on (a port 0 listener's, closed), optionally with a password. */
export async function startRedisServer(
  options: { password?: string; args?: string[] } = {},
): Promise<RedisServer> {
  const binary = findRedisServer();
  if (!binary) throw new Error(REDIS_MISSING);
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "mcp-redis-"));
  const args = [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--save",
    "",
    "--appendonly",
    "no",
    "--dir",
    dir,
    // notice: the level of the "Ready to accept connections" line start() waits for.
    "--loglevel",
    "notice",
    ...(options.password ? ["--requirepass", options.password] : []),
    ...(options.args ?? []),
  ];
  let child: ChildProcess | undefined;

  const start = async () => {
    const started = spawn(binary, args, { stdio: ["ignore", "pipe", "pipe"] });
    child = started;
    let output = "";
    await new Promise<void>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        output += chunk;
        if (output.includes("Ready to accept connections")) resolve();
      };
      started.stdout!.on("data", onData);
      started.stderr!.on("data", onData);
      started.once("exit", (code) => reject(new Error(`redis-server exited with ${code}: ${output}`)));
    });
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = once(running, "exit");
    running.kill("SIGKILL");
    await exited;
  };

  await start();
  const auth = options.password ? `:${encodeURIComponent(options.password)}@` : "";
  return {
    port,
    url: `redis://${auth}127.0.0.1:${port}`,
    start,
    stop,
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
    pause: () => child?.kill("SIGSTOP"),
    resume: () => child?.kill("SIGCONT"),
  };
}
