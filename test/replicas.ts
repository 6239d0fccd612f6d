// Replicas of the built CLI behind nginx, configured by deploy/nginx.conf (the documented example, with
// loopback addresses), optionally sharing a Redis: the scale-out tier's fixture. A test reaches the set
// through nginx (`mcpUrl`, round-robin) or one replica directly (`replicas[i].mcpUrl`), to do one step
// on one replica and the next on another.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { type Sandbox, type SandboxOptions, startSandbox } from "../src/sandbox/index.js";
import { CLI, freePort } from "./helpers.js";
import { eventually, rawRequest } from "./http-helpers.js";
import { type RedisServer, startRedisServer } from "./redis-server.js";

const EXAMPLE = new URL("../deploy/nginx.conf", import.meta.url).pathname;

export const NGINX_MISSING =
  "nginx is not installed, and this test needs it: install it (Debian: apt-get install -y nginx; .ci/run does this)";

export function findNginx(): string | undefined {
  const dirs = [...(process.env.PATH ?? "").split(delimiter), "/usr/sbin", "/usr/local/sbin"];
  return dirs.map((dir) => join(dir, "nginx")).find((path) => existsSync(path));
}

export interface Replica {
  child: ChildProcess;
  port: number;
  /** This replica's own /mcp, bypassing nginx. */
  mcpUrl: string;
  /** Its JSON log lines so far, parsed. */
  lines: Record<string, unknown>[];
  /** Its request log lines so far. */
  requests: Record<string, unknown>[];
  /** Everything it wrote to stderr so far, as text (to check what never appears in it). */
  stderr(): string;
}

export interface ReplicaOptions {
  /** Each replica's upstreams: the sandbox's base URLs (no key: users bring theirs in X-API-KEY). */
  sandbox: Sandbox;
  /** More flags, after --transport http --port 0. */
  args?: string[];
  /** More environment variables (MCP_REDIS_URL, secrets). */
  env?: Record<string, string>;
}

/** One replica of the built CLI on a free loopback port, resolved once it listens. */
export async function startReplica({ sandbox, args = [], env = {} }: ReplicaOptions): Promise<Replica> {
  const child = spawn(process.execPath, [CLI, "--transport", "http", "--port", "0", ...args], {
    env: {
      PATH: process.env.PATH ?? "",
      WORKSPACE_BASE_URL: sandbox.workspaceBaseUrl,
      ANALYTICS_BASE_URL: sandbox.analyticsBaseUrl,
      ...env,
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  const lines: Record<string, unknown>[] = [];
  const requests: Record<string, unknown>[] = [];
  let text = "";
  let buffered = "";
  const listening = new Promise<number>((resolve, reject) => {
    child.stderr!.on("data", (chunk) => {
      text += chunk;
      buffered += chunk;
      const complete = buffered.split("\n");
      buffered = complete.pop() ?? "";
      for (const line of complete.filter((part) => part.startsWith("{")).map((part) => JSON.parse(part))) {
        lines.push(line);
        if (line.message === "listening") resolve(Number(new URL(line.url).port));
        if (line.message === "request") requests.push(line);
      }
    });
    child.once("exit", (code) => reject(new Error(`replica exited with ${code} before listening: ${text}`)));
  });
  const port = await listening;
  return { child, port, mcpUrl: `http://127.0.0.1:${port}/mcp`, lines, requests, stderr: () => text };
}

/** deploy/nginx.conf with one server line per replica port, inside a main config of its own. */
function writeNginxConfig(dir: string, listenPort: number, replicaPorts: number[]): string {
  const example = readFileSync(EXAMPLE, "utf8");
  const servers = example.match(/^ *server 10\.0\.0\.\d+:3000.*\n/gm) ?? [];
  if (servers.length === 0) throw new Error("deploy/nginx.conf lists no upstream server lines");
  const lines = replicaPorts.map((port) => servers[0]!.replace(/10\.0\.0\.\d+:3000/, `127.0.0.1:${port}`));
  let site = example.replace(/^ *listen 8080;$/m, `    listen 127.0.0.1:${listenPort};`);
  site = site.replace(servers.join(""), lines.join(""));
  if (!site.includes(lines.join(""))) throw new Error("deploy/nginx.conf's server lines are not together");
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

export interface ReplicaSet {
  replicas: Replica[];
  /** nginx's origin, http://127.0.0.1:<port>: what clients of the set (and a --public-url) name. */
  front: string;
  /** nginx's /mcp, round-robin over the replicas. */
  mcpUrl: string;
  close(): Promise<void>;
}

export interface ReplicaSetOptions extends Omit<ReplicaOptions, "args"> {
  count: number;
  /** The Redis the replicas share (--redis-url's value, given as MCP_REDIS_URL); none: each its own memory. */
  redisUrl?: string;
  /** Flags of every replica; given the front's origin, for settings that must name it (a public URL). */
  args?: (front: string) => string[];
}

/** `count` replicas behind nginx; throws NGINX_MISSING without nginx (a test that needs it fails, saying so). */
export async function startReplicaSet(options: ReplicaSetOptions): Promise<ReplicaSet> {
  const nginxBinary = findNginx();
  if (!nginxBinary) throw new Error(NGINX_MISSING);
  const frontPort = await freePort();
  const front = `http://127.0.0.1:${frontPort}`;
  const env = { ...options.env, ...(options.redisUrl && { MCP_REDIS_URL: options.redisUrl }) };
  const args = options.args?.(front) ?? [];
  const replicas: Replica[] = [];
  let nginx: ChildProcess | undefined;
  const dir = mkdtempSync(join(tmpdir(), "mcp-nginx-"));

  const close = async () => {
    for (const child of [nginx, ...replicas.map((replica) => replica.child)]) {
      if (!child || child.exitCode !== null || child.signalCode !== null) continue;
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    const started = await Promise.allSettled(
      Array.from({ length: options.count }, () => startReplica({ sandbox: options.sandbox, args, env })),
    );
    for (const outcome of started) if (outcome.status === "fulfilled") replicas.push(outcome.value);
    const failed = started.find((outcome) => outcome.status === "rejected");
    if (failed) throw failed.reason;
    const config = writeNginxConfig(
      dir,
      frontPort,
      replicas.map((replica) => replica.port),
    );
    nginx = spawn(nginxBinary, ["-p", dir, "-c", config, "-e", join(dir, "error.log")], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    let nginxErrors = "";
    nginx.stderr!.on("data", (chunk) => {
      nginxErrors += chunk;
    });
    const up = await eventually(() =>
      rawRequest(`${front}/`).then(
        () => true,
        () => false,
      ),
    );
    if (!up) throw new Error(`nginx did not start: ${nginxErrors}`);
  } catch (error) {
    await close();
    throw error;
  }
  return { replicas, front, mcpUrl: `${front}/mcp`, close };
}

export interface SharedReplicas {
  sandbox: Sandbox;
  redis: RedisServer;
  set: ReplicaSet;
  /** Stops the set, then Redis, then the sandbox. */
  close(): Promise<void>;
}

export interface SharedReplicasOptions extends Omit<ReplicaSetOptions, "sandbox" | "redisUrl"> {
  sandbox?: SandboxOptions;
  redis?: { password?: string; args?: string[] };
}

/** A sandbox, one Redis and `count` replicas sharing it behind nginx; what started is stopped on a failure. */
export async function startSharedReplicas(options: SharedReplicasOptions): Promise<SharedReplicas> {
  const { sandbox: sandboxOptions, redis: redisOptions, ...setOptions } = options;
  const sandbox = await startSandbox(sandboxOptions);
  let redis: RedisServer | undefined;
  try {
    redis = await startRedisServer(redisOptions);
    const set = await startReplicaSet({ ...setOptions, sandbox, redisUrl: redis.url });
    const started = redis;
    const close = async () => {
      await set.close();
      await started.close();
      await sandbox.close();
    };
    return { sandbox, redis, set, close };
  } catch (error) {
    await redis?.close();
    await sandbox.close();
    throw error;
  }
}

/** A replica's arguments to sign in by OAuth behind `front`: stateless, so any replica answers any request. */
export const oauthReplicaArgs = (front: string, rateLimit: number, ...more: string[]) => [
  "--stateless",
  "--oauth",
  "--public-url",
  front,
  "--oauth-rate-limit",
  String(rateLimit),
  ...more,
];

/** A 2026-07-28 client of `mcpUrl` sending `headers`, which declares forms and leaves input requests to the test. */
export async function confirmingClient(
  name: string,
  mcpUrl: string,
  headers: Record<string, string>,
): Promise<Client> {
  const client = new Client(
    { name, version: "1.0.0" },
    {
      versionNegotiation: { mode: { pin: "2026-07-28" } },
      capabilities: { elicitation: { form: {} } },
      inputRequired: { autoFulfill: false },
    },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers } }));
  return client;
}

/** GET a replica's /readyz: its status and body. */
export async function readiness(replica: Replica): Promise<{ status: number; body: unknown }> {
  const { status, body } = await rawRequest(replica.mcpUrl.replace(/\/mcp$/, "/readyz"));
  return { status, body };
}
