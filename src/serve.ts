// Serving, once the settings read: telemetry, the sandbox of --demo, the state store, the upstream
// clients and the transport. The entry (cli.ts) loads this only when it is to serve, so --help,
// --version and settings that stop the process answer without loading the server.
import { hkdfSync, randomBytes } from "node:crypto";
import type { Dispatcher } from "undici";
import { createDispatcher } from "./clients/http.js";
import { createUpstreams } from "./clients/index.js";
import { list } from "./config/kinds.js";
import type { Config, UpstreamSettings } from "./config/types.js";
import { log } from "./log.js";
import { PROMPTS } from "./prompts/definitions.js";
import { buildServer, type ServerOptions } from "./server.js";
import { memoryStore, type SharedStore } from "./state/store.js";
import { startTelemetry, stopTelemetry, TelemetryConfigError } from "./telemetry/index.js";
import { ALL_TOOL_NAMES } from "./tools/register.js";
import type { OAuthFactory } from "./transports/http/server.js";
import type { RunningTransport } from "./transports/running.js";
import { unsetSettingsLine } from "./unset-settings.js";
import { SERVER_NAME } from "./version.js";

/** The authorization server of --oauth, given the store its grants are kept in. */
async function oauthFactoryFor(
  config: Config,
  dispatcher: Dispatcher,
  tools: ReadonlySet<string>,
  store: SharedStore,
): Promise<OAuthFactory | undefined> {
  if (!config.http.oauth) return undefined;
  const { OAuthServer } = await import("./oauth/index.js");
  let secrets = list(config.http.oauthSecret) ?? [];
  if (secrets.length === 0) {
    // Only --demo gets here (the configuration requires a secret otherwise): sign-ins end with the process.
    secrets = [randomBytes(32).toString("base64url")];
    log(
      "notice",
      "--demo --oauth: sign-ins are sealed under a secret made for this process; a restart signs everyone out",
    );
  }
  return (publicUrl) =>
    new OAuthServer({
      secrets,
      publicUrl,
      store,
      upstream: config.upstream,
      dispatcher,
      serverTools: tools,
      allowPrivateMetadata: config.http.oauthAllowPrivateMetadata,
      rateLimitPerMinute: config.http.oauthRateLimit,
      trustedProxies: config.http.trustedProxies,
      demoKey: config.demo ? config.upstream.workspaceApiKey : undefined,
    });
}

/**
 * Keys that seal write confirmations: derived from the operator's secrets when given (so replicas that
 * share MCP_OAUTH_SECRET accept each other's questions, and rotation carries over), else random per process.
 */
function confirmKeysOf(config: Config): Uint8Array[] {
  const secrets = list(config.http.oauthSecret) ?? [];
  if (secrets.length === 0) return [randomBytes(32)];
  return secrets.map(
    (secret) => new Uint8Array(hkdfSync("sha256", secret, "", "agent-workspace-mcp confirm-writes", 32)),
  );
}

interface RunningSandbox {
  /** The upstream settings the sandbox stands in for: its own key, URLs and default projects. */
  upstream: Partial<UpstreamSettings>;
  /** The seeded world's today: its data runs up to this date. */
  today: string;
  close(): Promise<void>;
}

async function startSandboxFor(): Promise<RunningSandbox> {
  const { startSandbox } = await import("./sandbox/index.js");
  const sandbox = await startSandbox();
  log("info", "demo sandbox started", { url: sandbox.url });
  return {
    upstream: {
      workspaceBaseUrl: sandbox.workspaceBaseUrl,
      analyticsBaseUrl: sandbox.analyticsBaseUrl,
      workspaceApiKey: sandbox.apiKey,
      analyticsApiKey: undefined,
      workspaceProjectId: sandbox.workspaceProjectId,
      workspaceId: undefined,
      analyticsProjectId: sandbox.analyticsProjectId,
    },
    today: sandbox.today,
    close: () => sandbox.close(),
  };
}

interface OpenStore {
  store: SharedStore;
  /** Whether it can answer now (the in-memory one always can). */
  reachable(): boolean;
  /** Set while the store may evict keys: /readyz says so (src/state/eviction.ts). */
  evicting(): string | undefined;
}

/**
 * The process's one store: a Redis with --redis-url on HTTP (its client loaded only then), else memory.
 * On stdio the setting is ignored, said once: one process serves one client there, with nothing to share.
 */
async function openStore(config: Config): Promise<OpenStore> {
  const url = config.http.redisUrl;
  if (url && config.transport === "stdio") {
    log(
      "warn",
      "--redis-url is ignored on stdio: one process serves one client, and keeps its state in memory",
    );
  }
  if (!url || config.transport !== "http") {
    return { store: memoryStore(), reachable: () => true, evicting: () => undefined };
  }
  const { describeRedisUrl, redisStore } = await import("./state/redis.js");
  const redis = redisStore(url);
  log("info", "shared state store: redis", { redis: describeRedisUrl(url) });
  // A Redis that may evict keys could forget a single-use mark: no start on it (exit code 2).
  const problem = await redis.startProblem;
  if (problem) {
    await redis.close();
    process.stderr.write(`${SERVER_NAME}: ${problem}\n`);
    process.exit(2);
  }
  return { store: redis, reachable: () => redis.reachable, evicting: () => redis.evicting };
}

async function startHttp(
  config: Config,
  dispatcher: Dispatcher,
  tools: ReadonlySet<string>,
  options: Omit<ServerOptions, "tools">,
  shared: OpenStore,
): Promise<RunningTransport> {
  const { serveHttp } = await import("./transports/http/server.js");
  const { missingSettings, perUserServers } = await import("./transports/http/user-servers.js");
  const servers = perUserServers(config.upstream, dispatcher, tools, options);
  // Sign-ins live in the process's one store, the same the servers' confirmations use.
  const oauth = await oauthFactoryFor(config, dispatcher, tools, shared.store);
  const http = await serveHttp(servers, config.http, () => missingSettings(config.upstream), {
    oauth,
    storeReachable: shared.reachable,
    storeEvicting: shared.evicting,
  }).catch((error: NodeJS.ErrnoException) => exitIfPortTaken(config, error));
  log("info", "listening", { url: http.url, stateless: config.http.stateless, oauth: config.http.oauth });
  if (config.demo) {
    process.stderr.write(
      `\nDemo server ready at ${http.url}\nConnect the MCP Inspector: npx @modelcontextprotocol/inspector (before Node 22.19: @modelcontextprotocol/inspector@1.0.3)\n  then choose Transport "Streamable HTTP" and URL ${http.url}\n\n`,
    );
  }
  return http;
}

/** A port in use or not ours to take: one line naming it and the setting to change, exit code 2. */
function exitIfPortTaken(config: Config, error: NodeJS.ErrnoException): never {
  const { host, port } = config.http;
  const why = { EADDRINUSE: "is in use", EACCES: "needs privileges this process lacks" }[error.code ?? ""];
  if (!why) throw error;
  process.stderr.write(
    `${SERVER_NAME}: port ${port} on ${host} ${why}: choose another with --port or MCP_PORT (0 picks a free one)\n`,
  );
  process.exit(2);
}

/** Starts telemetry when asked for (before any server is built); a variable it cannot use stops with exit code 2. */
async function startTelemetryOrExit(config: Config): Promise<void> {
  const names = { tools: ALL_TOOL_NAMES, prompts: new Set(PROMPTS.map((prompt) => prompt.name)) };
  try {
    await startTelemetry(config.telemetry, process.env, names);
  } catch (error) {
    if (!(error instanceof TelemetryConfigError)) throw error;
    process.stderr.write(`${SERVER_NAME}: ${error.message}\n`);
    process.exit(2);
  }
}

export async function serve(given: Config, tools: ReadonlySet<string>): Promise<void> {
  await startTelemetryOrExit(given);
  const sandbox = given.demo ? await startSandboxFor() : undefined;
  // With --demo, the sandbox's settings replace every upstream setting of the configuration.
  const config = sandbox ? { ...given, upstream: { ...given.upstream, ...sandbox.upstream } } : given;
  const shared = await openStore(config);
  const { store } = shared;
  const options: Omit<ServerOptions, "tools"> = {
    reportView: !config.tools.noReportView,
    sandboxToday: sandbox?.today,
    // Replicas need the same keys and the same store (docs/confirm-writes.md): keys from the OAuth secret when given.
    confirmKeys: confirmKeysOf(config),
    store,
  };
  const unset = unsetSettingsLine(config.upstream, tools, config.transport);
  if (unset) log("warning", unset);
  // One connection pool for every user and session.
  const dispatcher = createDispatcher(config.upstream);
  let running: RunningTransport | undefined;

  let stopping = false;
  const stop = async (reason: string) => {
    if (stopping) return;
    stopping = true;
    log("info", "shutting down", { reason });
    // In-flight calls get shutdownGraceMs (on stdio too); whatever hangs after that must not keep the process alive.
    const graceMs = config.http.shutdownGraceMs;
    setTimeout(() => process.exit(0), graceMs + 5_000).unref();
    await running?.close(graceMs).catch(() => {});
    await sandbox?.close().catch(() => {});
    // After the drain: the calls it let finish may still have written to the store.
    await store.close().catch(() => {});
    // Calls still waiting upstream were given their grace and have been abandoned: do not wait for them.
    await dispatcher.destroy().catch(() => {});
    // What telemetry still holds (spans of the last calls) is sent before the process ends.
    await stopTelemetry().catch(() => {});
    log("info", "stopped", { reason });
    process.exit(0);
  };
  // Before the transport starts: a signal right after "listening" must find its handler.
  process.once("SIGINT", () => void stop("SIGINT"));
  process.once("SIGTERM", () => void stop("SIGTERM"));

  if (config.transport === "stdio") {
    const { serveStdio } = await import("./transports/stdio.js");
    const upstreams = createUpstreams(config.upstream, dispatcher);
    running = serveStdio(() => buildServer(upstreams, { ...options, tools }));
    log("info", "ready", { transport: "stdio", demo: config.demo });
  } else {
    running = await startHttp(config, dispatcher, tools, options, shared);
  }
  void running.closed.then(() => stop("transport closed"));
}
