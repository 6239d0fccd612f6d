// Replicas sharing a Redis (--redis-url, here as MCP_REDIS_URL with a password) behind nginx: each
// connects to it and is ready; clients of both eras are served through nginx by both; while Redis is
// down each replica says it is not ready and keeps answering the calls that need no shared state; none
// logs the password. Tests of state shared across replicas build on startSharedReplicas the same way.
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttpTransport,
} from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "../../src/sandbox/index.js";
import { eventually } from "../http-helpers.js";
import type { RedisServer } from "../redis-server.js";
import { type ReplicaSet, readiness, type SharedReplicas, startSharedReplicas } from "../replicas.js";

const PASSWORD = "replica-shared-redis-pass-81d0";

describe("two replicas sharing a Redis behind nginx", () => {
  let sandbox: Sandbox;
  let redis: RedisServer;
  let set: ReplicaSet;
  let shared: SharedReplicas;

  beforeAll(async () => {
    shared = await startSharedReplicas({
      count: 2,
      redis: { password: PASSWORD },
      args: () => ["--stateless"],
    });
    ({ sandbox, redis, set } = shared);
  });

  afterAll(() => shared?.close());

  /** Both eras' clients, through nginx, with the sandbox's key; `calls` rounds of whoami and geo_projects. */
  async function callThroughNginx(calls: number): Promise<string[]> {
    const requestInit = { headers: { "X-API-KEY": sandbox.apiKey } };
    const legacy = new Client({ name: "redis-scale-2025", version: "1.0.0" });
    await legacy.connect(new StreamableHTTPClientTransport(new URL(set.mcpUrl), { requestInit }));
    const modern = new ModernClient(
      { name: "redis-scale-2026", version: "1.0.0" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    await modern.connect(new ModernHttpTransport(new URL(set.mcpUrl), { requestInit }));
    const failures: string[] = [];
    for (let i = 0; i < calls; i++) {
      for (const client of [legacy, modern]) {
        for (const name of ["whoami", "geo_projects"]) {
          const result = (await client.callTool({ name, arguments: {} })) as CallToolResult;
          if (result.isError || result.structuredContent === undefined) {
            failures.push(`${name}: ${JSON.stringify(result.content)}`);
          }
        }
      }
    }
    await Promise.all([legacy.close(), modern.close()]);
    return failures;
  }

  const toolCalls = () =>
    set.replicas.map(
      (replica) => replica.requests.filter((line) => line.rpc === "tools/call" && line.status === 200).length,
    );

  it("each replica connects to the Redis and is ready; both serve calls of both eras", async () => {
    for (const replica of set.replicas) {
      expect(replica.lines.find((line) => line.message === "shared state store: redis")?.redis).toBe(
        `redis://127.0.0.1:${redis.port}`,
      );
      expect(await eventually(async () => (await readiness(replica)).status === 200)).toBe(true);
    }
    expect(await callThroughNginx(10)).toEqual([]);
    await eventually(() => toolCalls().reduce((sum, count) => sum + count, 0) >= 40);
    expect(toolCalls().reduce((sum, count) => sum + count, 0)).toBe(40);
    for (const count of toolCalls()) expect(count).toBeGreaterThan(0);
  });

  it("Redis down: every replica is not ready but answers calls that need no shared state; back: ready", async () => {
    await redis.stop();
    for (const replica of set.replicas) {
      expect(await eventually(async () => (await readiness(replica)).status === 503)).toBe(true);
      expect((await readiness(replica)).body).toEqual({
        status: "not ready",
        missing: [],
        store: "unreachable",
      });
    }
    expect(await callThroughNginx(3)).toEqual([]);
    await redis.start();
    for (const replica of set.replicas) {
      expect(await eventually(async () => (await readiness(replica)).status === 200)).toBe(true);
      expect(replica.child.exitCode).toBeNull();
    }
  });

  it("no replica logged the Redis password or the users' key", () => {
    for (const replica of set.replicas) {
      expect(replica.stderr()).toContain("shared state store unreachable");
      expect(replica.stderr()).not.toContain(PASSWORD);
      expect(replica.stderr()).not.toContain(sandbox.apiKey);
    }
  });
});
