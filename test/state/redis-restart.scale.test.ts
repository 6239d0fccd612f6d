// A Redis back from an older snapshot (an RDB save point, or an async replica promoted after a
// failover) holds the epoch key but not the marks and revocations made after it. The store's epoch is
// tied to the Redis process (run_id) and to its eviction count: a restart, or a key evicted, starts a
// new one. A Redis user denied INFO makes /readyz 503 with the reason, said once in the log.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createClient } from "@redis/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { storeEpoch } from "../../src/state/epoch.js";
import { INFO_DENIED } from "../../src/state/incarnation.js";
import { KEY_PREFIX, redisStore } from "../../src/state/redis.js";
import { type SharedStore, StoreUnavailableError } from "../../src/state/store.js";
import { CLI, childEnv, logOf } from "../helpers.js";
import { eventually, rawRequest } from "../http-helpers.js";
import { logLines } from "../log-capture.js";
import { type RedisServer, startRedisServer } from "../redis-server.js";

const UPSTREAMS = { WORKSPACE_BASE_URL: "http://127.0.0.1:9", ANALYTICS_BASE_URL: "http://127.0.0.1:9" };
const SNAPSHOT = ["--dbfilename", "snapshot.rdb"];

/** The store's epoch, or undefined while the store is reconnecting. */
const epochNow = (store: SharedStore) =>
  storeEpoch(store).catch((error: unknown) => {
    if (error instanceof StoreUnavailableError) return undefined;
    throw error;
  });

describe("the store's epoch and the Redis process", () => {
  let redis: RedisServer;
  let admin: ReturnType<typeof createClient>;
  beforeAll(async () => {
    redis = await startRedisServer({ args: SNAPSHOT });
  });
  afterAll(async () => {
    admin?.destroy();
    await redis?.close();
  });
  const connectAdmin = async () => {
    admin?.destroy();
    admin = createClient({ url: redis.url });
    // SHUTDOWN ends this connection too: its error is expected, not thrown.
    admin.on("error", () => {});
    await admin.connect();
  };

  it("kept across a reconnect to the same process; new after a restart from a snapshot that holds the old one", async () => {
    const store = redisStore(redis.url);
    try {
      await connectAdmin();
      expect(await eventually(() => store.reachable)).toBe(true);
      const first = await storeEpoch(store);
      expect(await storeEpoch(store)).toBe(first);
      await admin.sendCommand(["CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes"]);
      // The reconnect reads INFO again; the same process keeps the epoch.
      expect(await eventually(async () => (await epochNow(store)) === first)).toBe(true);

      await admin.sendCommand(["SAVE"]);
      // SHUTDOWN NOSAVE answers nothing: the process ends (stop waits for it, or kills it).
      void admin.sendCommand(["SHUTDOWN", "NOSAVE"]).catch(() => undefined);
      await redis.stop();
      await redis.start();
      await connectAdmin();
      // The snapshot brought the old epoch's key back; the store makes a new epoch all the same.
      expect(await admin.get(`${KEY_PREFIX}epoch`)).toContain(`|${first}`);
      expect(await eventually(() => store.reachable)).toBe(true);
      let second: string | undefined;
      const read = async () => {
        second = await epochNow(store);
        return second !== undefined;
      };
      expect(await eventually(read)).toBe(true);
      expect(second).not.toBe(first);
      expect(await storeEpoch(store)).toBe(second);
    } finally {
      await store.close();
    }
  });

  it("new after a full resync from an older copy under the same run_id (a failback), and refused while a policy may evict", async () => {
    const store = redisStore(redis.url);
    const older = await startRedisServer();
    const copy = createClient({ url: older.url });
    await copy.connect();
    const linkUp = (client: { info(section: string): Promise<unknown> }) => async () =>
      /master_link_status:up/.test(String(await client.info("replication")));
    try {
      await connectAdmin();
      expect(await eventually(() => store.reachable)).toBe(true);
      await admin.set("spent-after-copy", "present");
      // The older copy: taken now, then cut loose.
      await copy.sendCommand(["REPLICAOF", "127.0.0.1", String(redis.port)]);
      expect(await eventually(linkUp(copy))).toBe(true);
      await copy.sendCommand(["REPLICAOF", "NO", "ONE"]);
      const first = await storeEpoch(store);
      await admin.del("spent-after-copy");
      // The same process takes the older copy back: its run_id stays, its data set is the copy's.
      await admin.sendCommand(["REPLICAOF", "127.0.0.1", String(older.port)]);
      expect(await eventually(linkUp(admin))).toBe(true);
      await admin.sendCommand(["REPLICAOF", "NO", "ONE"]);
      expect(await admin.get("spent-after-copy")).toBe("present");
      let second: string | undefined;
      expect(
        await eventually(async () => {
          second = await epochNow(store);
          return second !== undefined && second !== first;
        }),
      ).toBe(true);
      // Between two periodic checks, a policy that may evict refuses the epoch, and so every spend.
      await admin.configSet({ "maxmemory-policy": "allkeys-lru" });
      await expect(storeEpoch(store)).rejects.toBeInstanceOf(StoreUnavailableError);
      await admin.configSet({ "maxmemory-policy": "noeviction" });
      expect(await storeEpoch(store)).toBe(second);
    } finally {
      await admin.configSet({ "maxmemory-policy": "noeviction" });
      await admin.del("spent-after-copy");
      copy.destroy();
      await older.close();
      await store.close();
    }
  });

  it("new once a key was evicted, and the periodic check logs it once", async () => {
    const store = redisStore(redis.url, { policyCheckMs: 100 });
    try {
      await connectAdmin();
      expect(await eventually(() => store.reachable)).toBe(true);
      const before = await storeEpoch(store);
      await admin.set("filler", "x".repeat(200_000), { expiration: { type: "PX", value: 60_000 } });
      // An evicting policy for a moment: the filler key goes, then noeviction again.
      const used = Number(/used_memory:(\d+)/.exec(await admin.info("memory"))?.[1]);
      await admin.configSet({ "maxmemory-policy": "volatile-ttl", maxmemory: String(used - 100_000) });
      await admin.set("trigger", "y");
      await admin.configSet({ "maxmemory-policy": "noeviction", maxmemory: "0" });
      expect(await admin.get("filler")).toBeNull();
      const after = await storeEpoch(store);
      expect(after).not.toBe(before);
      expect(await storeEpoch(store)).toBe(after);
      const said = () =>
        logLines().filter((line) => line.includes("shared state store evicted keys: a new epoch"));
      expect(await eventually(() => said().length === 1)).toBe(true);
    } finally {
      await store.close();
      await admin.del("trigger");
    }
  });
});

describe("a Redis user denied INFO", () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
    const admin = createClient({ url: redis.url });
    await admin.connect();
    await admin.sendCommand(["ACL", "SETUSER", "noinfo", "on", ">pw-noinfo-9f3a", "~*", "+@all", "-info"]);
    admin.destroy();
  });
  afterAll(async () => {
    await redis?.close();
  });

  it("the CLI starts, /readyz answers 503 with the reason, one log line names NOPERM and no password", async () => {
    const url = `redis://noinfo:pw-noinfo-9f3a@127.0.0.1:${redis.port}`;
    const child: ChildProcess = spawn(process.execPath, [CLI, "--transport", "http", "--port", "0"], {
      env: childEnv({ MCP_REDIS_URL: url, ...UPSTREAMS }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    const log = logOf(child);
    try {
      const listening = await log.next("listening");
      const readyz = String(listening.url).replace(/\/mcp$/, "/readyz");
      expect(await eventually(async () => (await rawRequest(readyz)).status === 503)).toBe(true);
      expect((await rawRequest(readyz)).body).toEqual({
        status: "not ready",
        missing: [],
        store: "may not run INFO",
        problem: INFO_DENIED,
      });
      const refused = await log.next("shared state store: INFO refused");
      expect(refused.problem).toBe(INFO_DENIED);
      expect(log.lines.filter((line) => line.message === "shared state store: INFO refused")).toHaveLength(1);
      expect(JSON.stringify(log.lines)).not.toContain("pw-noinfo-9f3a");
    } finally {
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      await exited;
    }
  });
});
