// Scale-out, for real: three replicas of the built server in --stateless mode behind nginx, configured by
// deploy/nginx.conf (the documented example, with loopback addresses), several SDK clients of both
// protocol eras (2025-11-25 and 2026-07-28), each with its own key header, against the sandbox.
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttpTransport,
} from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { eventually } from "../http-helpers.js";
import { findNginx, NGINX_MISSING, type Replica, type ReplicaSet, startReplicaSet } from "../replicas.js";

const REPLICAS = 3;
const CLIENTS = 6;
const CALLS_PER_CLIENT = 50;

/** The calls a client makes, in turn: workspace and analytics tools, with the user's project headers. */
function callFor(sandbox: Sandbox, i: number): [string, Record<string, unknown>] {
  const calls: [string, Record<string, unknown>][] = [
    ["whoami", {}],
    ["tasks_query", { view: "list", query: { pagination: { page_size: 2 } } }],
    ["geo_projects", {}],
    ["geo_models", { project_id: sandbox.analyticsProjectId, pagination: { limit: 2 } }],
  ];
  return calls[i % calls.length]!;
}

describe("three stateless replicas behind nginx", () => {
  let sandbox: Sandbox;
  let set: ReplicaSet | undefined;
  let replicas: Replica[] = [];
  let url: string;
  const nginxBinary = findNginx();

  beforeAll(async () => {
    // Without nginx the test below fails, saying so: it is not skipped.
    if (!nginxBinary) return;
    sandbox = await startSandbox();
    set = await startReplicaSet({ count: REPLICAS, sandbox, args: () => ["--stateless"] });
    replicas = set.replicas;
    url = set.mcpUrl;
  });

  afterAll(async () => {
    await set?.close();
    await sandbox?.close();
  });

  it(`${CLIENTS} SDK clients make ${CLIENTS * CALLS_PER_CLIENT} tool calls: all succeed, every replica serves some`, async () => {
    if (!nginxBinary) throw new Error(NGINX_MISSING);
    const clients = await Promise.all(
      Array.from({ length: CLIENTS }, async (_, index) => {
        const headers = { "X-API-KEY": sandbox.apiKey, "X-Project-Id": sandbox.workspaceProjectId };
        const requestInit = { headers };
        // Half speak 2025-11-25, half 2026-07-28 (every request of theirs stands alone).
        if (index % 2 === 0) {
          const client = new Client({ name: "scale-test-2025", version: "1.0.0" });
          await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit }));
          await client.listTools();
          return client;
        }
        const client = new ModernClient(
          { name: "scale-test-2026", version: "1.0.0" },
          { versionNegotiation: { mode: { pin: "2026-07-28" } } },
        );
        await client.connect(new ModernHttpTransport(new URL(url), { requestInit }));
        await client.listTools();
        return client;
      }),
    );
    const failures: string[] = [];
    await Promise.all(
      clients.map(async (client) => {
        for (let i = 0; i < CALLS_PER_CLIENT; i++) {
          const [name, args] = callFor(sandbox, i);
          const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
          if (result.isError || result.structuredContent === undefined) {
            failures.push(`${name}: ${JSON.stringify(result.content)}`);
          }
        }
      }),
    );
    await Promise.all(clients.map((client) => client.close()));
    expect(failures).toEqual([]);

    const served = () =>
      replicas.map(
        (replica) =>
          replica.requests.filter((line) => line.rpc === "tools/call" && line.status === 200).length,
      );
    const total = () => served().reduce((sum, count) => sum + count, 0);
    // A replica logs a request when its answer has gone out: the last lines may still be on their way.
    await eventually(() => total() >= CLIENTS * CALLS_PER_CLIENT);
    expect(total()).toBe(CLIENTS * CALLS_PER_CLIENT);
    for (const count of served()) expect(count).toBeGreaterThan(0);
    const modernCalls = replicas.flatMap((replica) =>
      replica.requests.filter((line) => line.rpc === "tools/call" && line.revision === "2026-07-28"),
    );
    expect(modernCalls).toHaveLength((CLIENTS / 2) * CALLS_PER_CLIENT);
    // Every upstream request carried the users' key, and no replica logged it.
    const logged = JSON.stringify(replicas.map((replica) => replica.requests));
    expect(logged).not.toContain(sandbox.apiKey);
  }, 120_000);
});
