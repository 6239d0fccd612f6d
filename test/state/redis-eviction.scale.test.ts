// A Redis that may evict keys (any maxmemory-policy but noeviction) could forget a single-use mark
// while keeping the epoch, so such a Redis is refused: the built CLI will not start on one, and a
// policy switched at run time (CONFIG SET) is seen at the next reconnect or periodic check, after which
// single-use steps and /readyz refuse until noeviction is back.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createClient } from "@redis/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { evictionProblem } from "../../src/state/eviction.js";
import { KEY_PREFIX, redisStore } from "../../src/state/redis.js";
import { StoreUnavailableError } from "../../src/state/store.js";
import { CLI, childEnv, logOf, runCli } from "../helpers.js";
import { eventually, rawRequest } from "../http-helpers.js";
import { type RedisServer, startRedisServer } from "../redis-server.js";

const EVICTING = ["--maxmemory", "3mb", "--maxmemory-policy", "volatile-ttl"];
const NOT_EVICTING = ["--maxmemory", "3mb", "--maxmemory-policy", "noeviction"];
const UPSTREAMS = { WORKSPACE_BASE_URL: "http://127.0.0.1:9", ANALYTICS_BASE_URL: "http://127.0.0.1:9" };
const problemFor = (policy: string) => evictionProblem(`maxmemory_policy:${policy}\r\n`)!;

/** The error a call ended with (it must end with one). */
async function failureOf(call: Promise<unknown>): Promise<Error> {
  const outcome = await call.then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!(outcome instanceof Error)) throw new Error("the call succeeded; it was expected to fail");
  return outcome;
}

describe("a Redis that may evict keys", () => {
  let evicting: RedisServer;
  let safe: RedisServer;
  let admin: ReturnType<typeof createClient>;
  beforeAll(async () => {
    [evicting, safe] = await Promise.all([
      startRedisServer({ args: EVICTING }),
      startRedisServer({ args: NOT_EVICTING }),
    ]);
    admin = createClient({ url: safe.url });
    await admin.connect();
  });
  afterAll(async () => {
    admin?.destroy();
    await Promise.all([evicting?.close(), safe?.close()]);
  });

  it("the CLI refuses to start on volatile-ttl, naming the policy and the fix (exit code 2)", async () => {
    const run = await runCli(["--transport", "http", "--port", "0"], {
      MCP_REDIS_URL: evicting.url,
      ...UPSTREAMS,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`agent-workspace-mcp: ${problemFor("volatile-ttl")}\n`);
    expect(run.stderr).not.toContain('"message":"listening"');
  });

  it("the store: its start problem, and every single-use step refused, nothing written", async () => {
    const store = redisStore(evicting.url);
    try {
      expect(await store.startProblem).toBe(problemFor("volatile-ttl"));
      expect(store.evicting).toBe(problemFor("volatile-ttl"));
      for (const step of [
        store.setIfAbsent("confirm-write:n1", "1", 60_000),
        store.take("oauth:consent:c1"),
        store.swap("oauth:code:x", "a", "b", 60_000),
      ]) {
        const error = await failureOf(step);
        expect(error).toBeInstanceOf(StoreUnavailableError);
        expect(error.message).toContain("maxmemory-policy volatile-ttl");
        expect(error.message).toContain("set maxmemory-policy noeviction");
      }
    } finally {
      await store.close();
    }
    const reader = createClient({ url: evicting.url });
    await reader.connect();
    expect(await reader.keys(`${KEY_PREFIX}*`)).toEqual([]);
    reader.destroy();
  });

  it("the store: a policy switched at run time is caught by the periodic check; noeviction again lifts it", async () => {
    const store = redisStore(safe.url, { policyCheckMs: 50 });
    try {
      expect(await store.startProblem).toBeUndefined();
      expect(await store.setIfAbsent("confirm-write:n2", "1", 60_000)).toBe(true);
      await admin.configSet("maxmemory-policy", "allkeys-lru");
      expect(await eventually(() => store.evicting !== undefined)).toBe(true);
      expect(store.evicting).toBe(problemFor("allkeys-lru"));
      const error = await failureOf(store.setIfAbsent("confirm-write:n3", "1", 60_000));
      expect(error.message).toContain("maxmemory-policy allkeys-lru");
      expect(await admin.exists(`${KEY_PREFIX}confirm-write:n3`)).toBe(0);
      // What no single use rests on still works: a grant's read.
      expect(await store.get("confirm-write:n2")).toBe("1");
      await admin.configSet("maxmemory-policy", "noeviction");
      expect(await eventually(() => store.evicting === undefined)).toBe(true);
      expect(await store.setIfAbsent("confirm-write:n3", "1", 60_000)).toBe(true);
    } finally {
      await store.close();
      await admin.configSet("maxmemory-policy", "noeviction");
    }
  });

  it("the CLI starts on noeviction; a switch seen at a reconnect makes /readyz 503 with the problem, and back", async () => {
    const child: ChildProcess = spawn(process.execPath, [CLI, "--transport", "http", "--port", "0"], {
      env: childEnv({ MCP_REDIS_URL: safe.url, ...UPSTREAMS }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    const log = logOf(child);
    try {
      const listening = await log.next("listening");
      const readyz = String(listening.url).replace(/\/mcp$/, "/readyz");
      expect(await eventually(async () => (await rawRequest(readyz)).status === 200)).toBe(true);

      await admin.configSet("maxmemory-policy", "volatile-lru");
      // Ends the server's connection (not the admin's): it reconnects, and reads the policy again.
      await admin.sendCommand(["CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes"]);
      // 503 "unreachable" first, while it reconnects; then the policy it read.
      const saysEvicting = async () =>
        JSON.stringify((await rawRequest(readyz)).body).includes("evicts keys");
      expect(await eventually(saysEvicting)).toBe(true);
      expect((await rawRequest(readyz)).body).toEqual({
        status: "not ready",
        missing: [],
        store: "evicts keys",
        problem: problemFor("volatile-lru"),
      });
      const refused = await log.next("shared state store may evict keys: single-use steps are refused");
      expect(refused.problem).toBe(problemFor("volatile-lru"));

      await admin.configSet("maxmemory-policy", "noeviction");
      await admin.sendCommand(["CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes"]);
      expect(await eventually(async () => (await rawRequest(readyz)).status === 200)).toBe(true);
      expect(child.exitCode).toBeNull();
    } finally {
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      await exited;
      await admin.configSet("maxmemory-policy", "noeviction");
    }
  });
});
