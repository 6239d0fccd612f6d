// The Redis store (--redis-url) against Debian's redis-server: the SharedStore contract, the key prefix
// and TTLs as Redis holds them, a Redis down at start, killed mid-run and hung, each a clear error and
// a recovery; a password that appears in no message or log line; the built CLI's /readyz following it.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createClient } from "@redis/client";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { KEY_PREFIX, type RedisStore, redisStore } from "../../src/state/redis.js";
import { StoreUnavailableError } from "../../src/state/store.js";
import { CLI, childEnv, logOf, runCli } from "../helpers.js";
import { eventually, rawRequest } from "../http-helpers.js";
import { logLines } from "../log-capture.js";
import { type RedisServer, startRedisServer } from "../redis-server.js";
import { storeContract } from "../store-contract.js";

const PASSWORD = "s3cret-redis-pass-5b1f";

/** The error a call ended with (it must end with one). */
async function failureOf(call: Promise<unknown>): Promise<Error> {
  const outcome = await call.then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!(outcome instanceof Error)) throw new Error("the call succeeded; it was expected to fail");
  return outcome;
}

describe("redisStore on a real Redis", () => {
  let redis: RedisServer;
  let store: RedisStore;

  beforeAll(async () => {
    redis = await startRedisServer();
    store = redisStore(redis.url);
    expect(await eventually(() => store.reachable)).toBe(true);
  });
  afterAll(async () => {
    await store?.close();
    await redis?.close();
  });

  storeContract("redisStore", () => store);

  it(`keeps every key under ${KEY_PREFIX}, with the TTL it was given`, async () => {
    const raw = createClient({ url: redis.url });
    await raw.connect();
    try {
      await store.set("prefix-check", "v", 60_000);
      expect(await store.setIfAbsent("prefix-check-nx", "w", 5_000)).toBe(true);
      expect(await raw.get(`${KEY_PREFIX}prefix-check`)).toBe("v");
      expect(await raw.get("prefix-check")).toBeNull();
      const ttl = await raw.pTTL(`${KEY_PREFIX}prefix-check`);
      expect(ttl).toBeGreaterThan(50_000);
      expect(ttl).toBeLessThanOrEqual(60_000);
      const ttlNx = await raw.pTTL(`${KEY_PREFIX}prefix-check-nx`);
      expect(ttlNx).toBeGreaterThan(0);
      expect(ttlNx).toBeLessThanOrEqual(5_000);
      // Every key the contract and this test wrote carries the prefix, and an expiry.
      const keys = await raw.keys("*");
      expect(keys.length).toBeGreaterThan(0);
      for (const key of keys) {
        expect(key.startsWith(KEY_PREFIX), key).toBe(true);
        expect(await raw.pTTL(key), key).toBeGreaterThan(0);
      }
    } finally {
      raw.destroy();
    }
  });
});

describe("a Redis that is down, goes away, or hangs", () => {
  let redis: RedisServer;
  let store: RedisStore | undefined;

  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterEach(async () => {
    redis.resume();
    await store?.close();
    store = undefined;
  });
  afterAll(() => redis?.close());

  it("down at start: calls fail at once with StoreUnavailableError; once it is up, they succeed", async () => {
    await redis.stop();
    store = redisStore(redis.url, { maxReconnectDelayMs: 100 });
    expect(store.reachable).toBe(false);
    const error = await failureOf(store.get("k"));
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(error.message).toBe(
      "the shared state store (Redis) is unavailable: not connected; try again shortly",
    );
    await expect(store.setIfAbsent("k", "v", 1_000)).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.take("k")).rejects.toBeInstanceOf(StoreUnavailableError);
    await redis.start();
    expect(await eventually(() => store!.reachable)).toBe(true);
    await store.set("k", "v", 60_000);
    expect(await store.take("k")).toBe("v");
    // One warning for the outage and one line for the recovery, however many attempts it took.
    const lines = logLines().map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.filter((line) => line.message === "shared state store unreachable")).toHaveLength(1);
    expect(lines.filter((line) => line.message === "shared state store reachable again")).toHaveLength(1);
  });

  it("killed mid-run: calls fail with StoreUnavailableError, none hangs; restarted, it serves again", async () => {
    store = redisStore(redis.url, { maxReconnectDelayMs: 100 });
    expect(await eventually(() => store!.reachable)).toBe(true);
    await store.set("before", "v", 60_000);
    await redis.stop();
    // Calls made as the loss is noticed, and after: each ends with the typed error.
    const during = await Promise.all(Array.from({ length: 20 }, () => failureOf(store!.get("before"))));
    for (const error of during) expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(await eventually(() => !store!.reachable)).toBe(true);
    await redis.start();
    expect(await eventually(() => store!.reachable)).toBe(true);
    // This Redis keeps nothing on disk: what was set before the crash is gone, and new writes work.
    expect(await store.get("before")).toBeUndefined();
    expect(await store.setIfAbsent("after", "w", 60_000)).toBe(true);
    expect(await store.get("after")).toBe("w");
  });

  it("hung (accepts, never answers): a call fails when its bound is over; resumed, calls succeed", async () => {
    store = redisStore(redis.url, { commandTimeoutMs: 300 });
    expect(await eventually(() => store!.reachable)).toBe(true);
    redis.pause();
    const error = await failureOf(store.setIfAbsent("hung", "v", 60_000));
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(error.message).toBe(
      "the shared state store (Redis) is unavailable: no answer within 300 ms; try again shortly",
    );
    redis.resume();
    expect(await eventually(async () => (await store!.get("hung").catch(() => "failed")) !== "failed")).toBe(
      true,
    );
    await store.set("resumed", "r", 60_000);
    expect(await store.take("resumed")).toBe("r");
  });
});

describe("a Redis with a password", () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer({ password: PASSWORD });
  });
  afterAll(() => redis?.close());

  it("is used with the URL's password, and a wrong one is a clear error quoting neither", async () => {
    const store = redisStore(redis.url);
    const wrong = redisStore(redis.url.replace(PASSWORD, "not-the-password-9c2e"), {
      maxReconnectDelayMs: 100,
    });
    try {
      expect(await eventually(() => store.reachable)).toBe(true);
      await store.set("k", "v", 60_000);
      expect(await store.get("k")).toBe("v");
      const error = await failureOf(wrong.get("k"));
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect(error.message).not.toContain("not-the-password-9c2e");
      // Let the refused handshake be retried and logged a few times.
      await new Promise((resolve) => setTimeout(resolve, 300));
    } finally {
      await Promise.all([store.close(), wrong.close()]);
    }
    const logged = logLines().join("");
    expect(logged).toContain("shared state store unreachable");
    expect(logged).not.toContain(PASSWORD);
    expect(logged).not.toContain("not-the-password-9c2e");
  });

  it("the CLI: /readyz follows Redis down and back, the process lives on, no output shows the password", async () => {
    const child: ChildProcess = spawn(process.execPath, [CLI, "--transport", "http", "--port", "0"], {
      env: childEnv({
        MCP_REDIS_URL: redis.url,
        WORKSPACE_BASE_URL: "http://127.0.0.1:9",
        ANALYTICS_BASE_URL: "http://127.0.0.1:9",
      }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout!.on("data", (chunk) => {
      output += chunk;
    });
    child.stderr!.on("data", (chunk) => {
      output += chunk;
    });
    const log = logOf(child);
    try {
      const listening = await log.next("listening");
      const readyz = String(listening.url).replace(/\/mcp$/, "/readyz");
      const status = async () => (await rawRequest(readyz)).status;
      const store = await log.next("shared state store: redis");
      expect(store.redis).toBe(`redis://127.0.0.1:${redis.port}`);
      expect(await eventually(async () => (await status()) === 200)).toBe(true);

      await redis.stop();
      expect(await eventually(async () => (await status()) === 503)).toBe(true);
      const down = await rawRequest(readyz);
      expect(down.body).toEqual({ status: "not ready", missing: [], store: "unreachable" });
      await redis.start();
      expect(await eventually(async () => (await status()) === 200)).toBe(true);
      expect(child.exitCode).toBeNull();
    } finally {
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      const [code] = await exited;
      expect(code).toBe(0);
    }
    expect(output).toContain("shared state store unreachable");
    expect(output).not.toContain(PASSWORD);
  });

  it("the CLI: a malformed MCP_REDIS_URL, or a password in --redis-url, stops it without quoting the password", async () => {
    const malformed = await runCli(["--transport", "http"], {
      MCP_REDIS_URL: `http://:${PASSWORD}@cache.example`,
    });
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain(
      'MCP_REDIS_URL must be a redis:// or rediss:// URL with a host, got "http://***@cache.example"',
    );
    const flagged = await runCli(["--transport", "http", "--redis-url", redis.url]);
    expect(flagged.code).toBe(2);
    expect(flagged.stderr).toContain("--redis-url must not carry a user name or password");
    for (const run of [malformed, flagged]) expect(run.stdout + run.stderr).not.toContain(PASSWORD);
  });
});
