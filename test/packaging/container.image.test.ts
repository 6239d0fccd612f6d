// The container image, built from this checkout's Containerfile and run as a host would: non-root, read-only
// root filesystem, all capabilities dropped. No image registry is reachable here, so the base images are
// assembled locally (scripts/image-base.sh: debootstrap'd bookworm minbase plus Node from the npm registry)
// and passed as the build arguments. Podman as these machines allow it: vfs storage, chroot isolation for
// the build, runc with cgroupfs and the host's network for the containers, no default ulimits.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { delimiter, join } from "node:path";
import { promisify } from "node:util";
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttpTransport,
} from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { exerciseEveryTool } from "../every-tool.js";
import { logOf } from "../helpers.js";
import { startGatedUpstream } from "../http-helpers.js";

const run = promisify(execFile);
const ROOT = new URL("../..", import.meta.url).pathname;
const IMAGE = "localhost/agent-workspace-mcp:image-test";
const USER = "65532:65532";
// The bundled server (zod, the SDK, OpenTelemetry, the Redis client, the Public Suffix List) and LICENSE.
const APP_LAYER_LIMIT = 2.25 * 1024 * 1024;
const TOKEN = "image-test-token-0123456789";
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
const listing = JSON.parse(readFileSync(join(ROOT, "server.json"), "utf8"));

// Storage outside the checkout: the build context is the checkout, and vfs keeps whole root filesystems.
const STATE = "/var/tmp/agent-workspace-mcp-image-test";
const PODMAN = [
  "--root",
  `${STATE}/storage`,
  "--runroot",
  `${STATE}/run`,
  "--storage-driver",
  "vfs",
  "--cgroup-manager",
  "cgroupfs",
  "--runtime",
  "runc",
];
const ENV = { ...process.env, CONTAINERS_CONF: `${STATE}/containers.conf` };
const MISSING = (tool: string) =>
  `${tool} is not installed, and this test needs it: install it (Debian: apt-get install -y podman runc debootstrap; .ci/run does this)`;

const onPath = (tool: string) =>
  [...(process.env.PATH ?? "").split(delimiter), "/usr/sbin", "/sbin"].some((dir) =>
    existsSync(join(dir, tool)),
  );

async function podman(args: string[], timeout = 60_000): Promise<string> {
  const { stdout } = await run("podman", [...PODMAN, ...args], {
    env: ENV,
    timeout,
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}

/** Runs the image in the foreground (podman run exits with the container's code); stderr is its log. */
function startContainer(name: string, env: Record<string, string>, args: string[] = []): ChildProcess {
  const settings = Object.entries(env).flatMap(([key, value]) => ["--env", `${key}=${value}`]);
  return spawn(
    "podman",
    [
      ...PODMAN,
      "run",
      "--rm",
      "--name",
      name,
      "--network",
      "host",
      "--user",
      USER,
      "--read-only",
      "--cap-drop",
      "ALL",
      "--security-opt",
      "no-new-privileges",
      ...settings,
      IMAGE,
      ...args,
    ],
    { env: ENV, stdio: ["ignore", "ignore", "pipe"] },
  );
}

/** GET on the container's port: status and parsed body. */
function get(port: number, path: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    request({ host: "127.0.0.1", port, path }, (res) => {
      let text = "";
      res.on("data", (chunk) => {
        text += chunk;
      });
      res.once("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    })
      .once("error", reject)
      .end();
  });
}

/** The settings a container behind a proxy that terminates TLS would get; port 0 on the host's network. */
const serving = (upstream: { workspace: string; analytics: string }, key: string, more = {}) => ({
  ...more,
  MCP_PORT: "0",
  MCP_ALLOWED_HOSTS: "mcp.example.test",
  MCP_AUTH_TOKEN: TOKEN,
  WORKSPACE_BASE_URL: upstream.workspace,
  ANALYTICS_BASE_URL: upstream.analytics,
  WORKSPACE_API_KEY: key,
  MCP_RESPONSE_FORMAT: "full",
});

const auth = { headers: { Authorization: `Bearer ${TOKEN}` } };
const modernClient = () =>
  new ModernClient(
    { name: "image-2026", version: "1.0.0" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
const olderClient = () =>
  new ModernClient({ name: "image-2025", version: "1.0.0" }, { supportedProtocolVersions: ["2025-11-25"] });

const installed = ["podman", "runc", "debootstrap"].find((tool) => !onPath(tool));
const names: string[] = [];
let sandbox: Sandbox;
let runtimeBase = "";

beforeAll(async () => {
  // Without the tools the tests below fail, saying so: they are not skipped.
  if (installed) return;
  mkdirSync(STATE, { recursive: true });
  // crun's and runc's rlimits are refused on these machines; journald may be absent.
  writeFileSync(
    ENV.CONTAINERS_CONF,
    '[containers]\ndefault_ulimits = []\n[engine]\nevents_logger = "file"\n',
  );
  const { stdout } = await run("bash", ["scripts/image-base.sh", ...PODMAN], {
    cwd: ROOT,
    env: ENV,
    timeout: 1_200_000,
  });
  const bases = Object.fromEntries(
    stdout
      .trim()
      .split("\n")
      .map((line) => line.split("=", 2)),
  );
  runtimeBase = bases.RUNTIME_BASE;
  // npm trusts an extra CA bundle on these machines: the build takes it as a proxy's CA, mounted read-only.
  const { stdout: cafile } = await run("npm", ["config", "get", "cafile"]);
  const ca = cafile.trim();
  const caArgs =
    ca && ca !== "null" && existsSync(ca)
      ? [
          "--build-arg",
          "NODE_EXTRA_CA_CERTS=/run/build-extra-ca.crt",
          "--volume",
          `${ca}:/run/build-extra-ca.crt:ro`,
        ]
      : [];
  // npm's cache, shared with the host's npm, so that npm ci in the build stage fetches little.
  const { stdout: npmCache } = await run("npm", ["config", "get", "cache"]);
  await podman(
    [
      "build",
      "--isolation",
      "chroot",
      // One layer per stage: with vfs every layer is a full copy of the root filesystem.
      "--layers=false",
      "--build-arg",
      `BUILD_BASE=${bases.BUILD_BASE}`,
      "--build-arg",
      `RUNTIME_BASE=${bases.RUNTIME_BASE}`,
      ...caArgs,
      "--volume",
      `${npmCache.trim()}:/root/.npm`,
      "--file",
      "Containerfile",
      "--tag",
      IMAGE,
      ROOT,
    ],
    1_200_000,
  );
  // The image this tag named before, if any: vfs would keep its whole root filesystem.
  await podman(["image", "prune", "--force"]);
  sandbox = await startSandbox();
}, 1_500_000);

afterAll(async () => {
  for (const name of names) await podman(["rm", "--force", "--ignore", name]).catch(() => undefined);
  await sandbox?.close();
});

/** A container name of this run, removed after the tests. */
function containerName(purpose: string): string {
  const name = `agent-workspace-mcp-test-${purpose}-${process.pid}`;
  names.push(name);
  return name;
}

async function listeningPort(child: ChildProcess): Promise<{ port: number; log: ReturnType<typeof logOf> }> {
  const log = logOf(child);
  const exited = once(child, "exit").then(([code]) => {
    throw new Error(`the container exited (${code}) before listening: ${JSON.stringify(log.lines)}`);
  });
  const line = await Promise.race([log.next("listening"), exited]);
  return { port: Number(new URL(String(line.url)).port), log };
}

describe("the image built from the Containerfile", () => {
  it("carries the registry's name label, the OCI labels, the non-root user and SIGTERM as stop signal", async () => {
    if (installed) throw new Error(MISSING(installed));
    const [image] = JSON.parse(await podman(["image", "inspect", IMAGE]));
    expect(image.Labels).toMatchObject({
      "io.modelcontextprotocol.server.name": listing.name,
      "org.opencontainers.image.version": pkg.version,
      "org.opencontainers.image.licenses": pkg.license,
      "org.opencontainers.image.source": listing.repository.url,
    });
    expect(image.Config.User).toBe(USER);
    expect(image.Config.StopSignal).toBe("SIGTERM");
    expect(image.Config.Entrypoint).toEqual(["node", "/app/server.mjs"]);
    expect(image.Config.Env).toEqual(
      expect.arrayContaining(["MCP_TRANSPORT=http", "MCP_HOST=0.0.0.0", "MCP_PORT=3000"]),
    );
    expect(Object.keys(image.Config.ExposedPorts)).toEqual(["3000/tcp"]);
  });

  it("the runtime stage adds one layer to its base, the application, within 2.25 MiB", async () => {
    if (installed) throw new Error(MISSING(installed));
    const layers = (ref: string) => podman(["image", "inspect", "--format", "{{json .RootFS.Layers}}", ref]);
    const base: string[] = JSON.parse(await layers(runtimeBase));
    const own: string[] = JSON.parse(await layers(IMAGE));
    expect(own.slice(0, base.length)).toEqual(base);
    expect(own).toHaveLength(base.length + 1);
    // History is newest first; the entries past the base's are the runtime stage's own.
    const history = (ref: string) => podman(["history", "--format", "json", ref]).then(JSON.parse);
    const entries: { size: number; CreatedBy: string }[] = await history(IMAGE);
    const baseEntries: unknown[] = await history(runtimeBase);
    const added = entries.slice(0, entries.length - baseEntries.length);
    const bytes = added.reduce((sum, entry) => sum + entry.size, 0);
    console.log(`runtime stage: ${added.length} steps, ${bytes} bytes of layers on the runtime base`);
    expect(bytes).toBeGreaterThan(0);
    expect(bytes).toBeLessThanOrEqual(APP_LAYER_LIMIT);
  });

  it("with no settings, refuses to listen beyond loopback unguarded, naming what to set (exit 2)", async () => {
    if (installed) throw new Error(MISSING(installed));
    const child = startContainer(containerName("unset"), {});
    let stderr = "";
    child.stderr!.on("data", (chunk) => {
      stderr += chunk;
    });
    const [code] = await once(child, "exit");
    expect(code).toBe(2);
    expect(stderr).toContain("--host 0.0.0.0 is beyond loopback: give --allowed-hosts");
    expect(stderr).toContain("env MCP_ALLOWED_HOSTS");
  });

  it("as user 65532 on a read-only root: healthz, readyz, and every tool for clients of 2026-07-28 and 2025", async () => {
    if (installed) throw new Error(MISSING(installed));
    const name = containerName("serve");
    const child = startContainer(
      name,
      serving({ workspace: sandbox.workspaceBaseUrl, analytics: sandbox.analyticsBaseUrl }, sandbox.apiKey, {
        WORKSPACE_PROJECT_ID: sandbox.workspaceProjectId,
        ANALYTICS_PROJECT_ID: sandbox.analyticsProjectId,
      }),
    );
    const exited = once(child, "exit");
    try {
      const { port } = await listeningPort(child);
      // The server's process, seen from the host: its real user, not root.
      const pid = (await podman(["inspect", "--format", "{{.State.Pid}}", name])).trim();
      const status = readFileSync(`/proc/${pid}/status`, "utf8");
      expect(status).toMatch(/^Uid:\s+65532\s+65532\s+65532\s+65532$/m);
      expect(await get(port, "/healthz")).toMatchObject({ status: 200, body: { status: "ok" } });
      expect(await get(port, "/readyz")).toEqual({ status: 200, body: { status: "ready" } });

      const url = new URL(`http://127.0.0.1:${port}/mcp`);
      const modern = modernClient();
      await modern.connect(new ModernHttpTransport(url, { requestInit: auth }));
      expect(modern.getNegotiatedProtocolVersion()).toBe("2026-07-28");
      await exerciseEveryTool(modern, sandbox);
      await modern.close();

      const older = olderClient();
      await older.connect(new ModernHttpTransport(url, { requestInit: auth }));
      expect([older.getProtocolEra(), older.getNegotiatedProtocolVersion()]).toEqual([
        "legacy",
        "2025-11-25",
      ]);
      await exerciseEveryTool(older, sandbox);
      await older.close();
    } finally {
      child.kill("SIGTERM");
    }
    const [code] = await exited;
    expect(code).toBe(0);
  });

  it("podman stop during a call: the call is answered, then the container exits 0", async () => {
    if (installed) throw new Error(MISSING(installed));
    const upstream = await startGatedUpstream({ projects: [] });
    const name = containerName("drain");
    const child = startContainer(
      name,
      serving({ workspace: upstream.url, analytics: upstream.url }, "drain-key-0123456789"),
    );
    const exited = once(child, "exit");
    try {
      const { port, log } = await listeningPort(child);
      const client = modernClient();
      await client.connect(
        new ModernHttpTransport(new URL(`http://127.0.0.1:${port}/mcp`), { requestInit: auth }),
      );
      const call = client.callTool({ name: "whoami", arguments: {} });
      await upstream.arrived(1);
      // podman stop sends the image's STOPSIGNAL and waits up to --time before killing.
      const stopped = podman(["stop", "--time", "30", name]);
      await log.next("shutting down");
      upstream.release();
      const result = await call;
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({ projects: [] });
      expect(upstream.keys).toEqual(["drain-key-0123456789"]);
      await stopped;
      const [code] = await exited;
      expect(code).toBe(0);
      await client.close().catch(() => undefined);
    } finally {
      await upstream.close();
    }
  });
});
