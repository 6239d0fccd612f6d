// Scale-out, for real: three replicas of the built server in --stateless mode behind nginx, configured by
// deploy/nginx.conf (the documented example, with loopback addresses), several SDK clients of both
// protocol eras (2025-11-25 and 2026-07-28), each with its own key header, against the sandbox.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttpTransport,
} from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { freePort } from "../helpers.js";
import { eventually, rawRequest } from "../http-helpers.js";

const CLI = new URL("../../dist/cli.js", import.meta.url).pathname;
const EXAMPLE = new URL("../../deploy/nginx.conf", import.meta.url).pathname;
const REPLICAS = 3;
const CLIENTS = 6;
const CALLS_PER_CLIENT = 50;

const NGINX_MISSING =
  "nginx is not installed, and this test needs it: install it (Debian: apt-get install -y nginx; .ci/run does this)";

function findNginx(): string | undefined {
  const dirs = [...(process.env.PATH ?? "").split(delimiter), "/usr/sbin", "/usr/local/sbin"];
  return dirs.map((dir) => join(dir, "nginx")).find((path) => existsSync(path));
}

interface Replica {
  child: ChildProcess;
  port: number;
  /** Its request log lines so far, parsed. */
  requests: Record<string, unknown>[];
}

async function startReplica(sandbox: Sandbox): Promise<Replica> {
  // No key in the environment: every user brings their own in X-API-KEY.
  const child = spawn(process.execPath, [CLI, "--transport", "http", "--stateless", "--port", "0"], {
    env: {
      PATH: process.env.PATH ?? "",
      WORKSPACE_BASE_URL: sandbox.workspaceBaseUrl,
      ANALYTICS_BASE_URL: sandbox.analyticsBaseUrl,
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  const requests: Record<string, unknown>[] = [];
  let buffered = "";
  const listening = new Promise<number>((resolve, reject) => {
    child.stderr!.on("data", (chunk) => {
      buffered += chunk;
      const lines = buffered.split("\n");
      buffered = lines.pop() ?? "";
      for (const line of lines.filter((text) => text.startsWith("{")).map((text) => JSON.parse(text))) {
        if (line.message === "listening") resolve(Number(new URL(line.url).port));
        if (line.message === "request") requests.push(line);
      }
    });
    child.once("exit", (code) => reject(new Error(`replica exited with ${code} before listening`)));
  });
  return { child, port: await listening, requests };
}

/** deploy/nginx.conf with the replicas' loopback ports, inside a main config of its own. */
function writeNginxConfig(dir: string, listenPort: number, replicaPorts: number[]): string {
  const example = readFileSync(EXAMPLE, "utf8");
  const servers = example.match(/^ *server 10\.0\.0\.\d+:3000.*$/gm) ?? [];
  expect(servers).toHaveLength(REPLICAS);
  let site = example.replace(/^ *listen 8080;$/m, `    listen 127.0.0.1:${listenPort};`);
  servers.forEach((line, i) => {
    site = site.replace(line, line.replace(/10\.0\.0\.\d+:3000/, `127.0.0.1:${replicaPorts[i]}`));
  });
  writeFileSync(join(dir, "site.conf"), site);
  const temp = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"]
    .map((kind) => `  ${kind}_temp_path ${join(dir, kind)};`)
    .join("\n");
  const main = `daemon off;
master_process off;
pid ${join(dir, "nginx.pid")};
error_log ${join(dir, "error.log")} warn;
events { worker_connections 256; }
http {
  access_log off;
${temp}
  include ${join(dir, "site.conf")};
}
`;
  const path = join(dir, "nginx.conf");
  writeFileSync(path, main);
  return path;
}

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
  let replicas: Replica[] = [];
  let nginx: ChildProcess | undefined;
  let dir: string;
  let url: string;
  const nginxBinary = findNginx();

  beforeAll(async () => {
    // Without nginx the test below fails, saying so: it is not skipped.
    if (!nginxBinary) return;
    sandbox = await startSandbox();
    replicas = await Promise.all(Array.from({ length: REPLICAS }, () => startReplica(sandbox)));
    dir = mkdtempSync(join(tmpdir(), "mcp-nginx-"));
    const port = await freePort();
    const config = writeNginxConfig(
      dir,
      port,
      replicas.map((replica) => replica.port),
    );
    nginx = spawn(nginxBinary, ["-p", dir, "-c", config, "-e", join(dir, "error.log")], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    let nginxErrors = "";
    nginx.stderr!.on("data", (chunk) => {
      nginxErrors += chunk;
    });
    url = `http://127.0.0.1:${port}/mcp`;
    const up = await eventually(() =>
      rawRequest(`http://127.0.0.1:${port}/`).then(
        () => true,
        () => false,
      ),
    );
    if (!up) throw new Error(`nginx did not start: ${nginxErrors}`);
  });

  afterAll(async () => {
    for (const child of [nginx, ...replicas.map((replica) => replica.child)]) {
      if (!child || child.exitCode !== null) continue;
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      await exited;
    }
    await sandbox?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
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
