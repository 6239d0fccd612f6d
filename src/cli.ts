#!/usr/bin/env node
// Entry point: flags and environment -> config -> (sandbox) -> server factory -> transport.
import type { Dispatcher } from "undici";
import { createDispatcher } from "./clients/http.js";
import { createUpstreams } from "./clients/index.js";
import { helpLinesOf, USAGE } from "./config/help.js";
import { parseCommandLine } from "./config/parse.js";
import { type Config, ConfigError, type UpstreamSettings } from "./config/types.js";
import { log, setLogLevel } from "./log.js";
import { buildServer, type ServerOptions } from "./server.js";
import { selectTools } from "./tools/selection.js";
import { assertSafeBinding } from "./transports/http/guards.js";
import type { RunningTransport } from "./transports/running.js";
import { SERVER_NAME, SERVER_VERSION } from "./version.js";

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

async function startHttp(
  config: Config,
  dispatcher: Dispatcher,
  tools: ReadonlySet<string>,
  options: Omit<ServerOptions, "tools">,
): Promise<RunningTransport> {
  const { serveHttp } = await import("./transports/http/server.js");
  const { missingSettings, perUserServers } = await import("./transports/http/user-servers.js");
  const servers = perUserServers(config.upstream, dispatcher, tools, options);
  const http = await serveHttp(servers, config.http, () => missingSettings(config.upstream));
  log("info", "listening", { url: http.url, stateless: config.http.stateless });
  if (config.demo) {
    process.stderr.write(
      `\nDemo server ready at ${http.url}\nConnect the MCP Inspector: npx @modelcontextprotocol/inspector (on Node 20: @modelcontextprotocol/inspector@1.0.3)\n  then choose Transport "Streamable HTTP" and URL ${http.url}\n\n`,
    );
  }
  return http;
}

async function serve(given: Config, tools: ReadonlySet<string>): Promise<void> {
  const sandbox = given.demo ? await startSandboxFor() : undefined;
  // With --demo, the sandbox's settings replace every upstream setting of the configuration.
  const config = sandbox ? { ...given, upstream: { ...given.upstream, ...sandbox.upstream } } : given;
  const options = { reportView: !config.tools.noReportView, sandboxToday: sandbox?.today };
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
    // Calls still waiting upstream were given their grace and have been abandoned: do not wait for them.
    await dispatcher.destroy().catch(() => {});
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
    running = await startHttp(config, dispatcher, tools, options);
  }
  void running.closed.then(() => stop("transport closed"));
}

/** Runs a step of reading the configuration; a ConfigError stops the process with exit code 2. */
function orExitOnConfigError<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    // What is wrong and the help line of each setting it concerns; --help lists them all.
    const lines = [
      `${SERVER_NAME}: ${error.message}`,
      ...helpLinesOf(error),
      `(${SERVER_NAME} --help lists every setting)`,
    ];
    process.stderr.write(`${lines.join("\n")}\n`);
    process.exit(2);
  }
}

async function main(): Promise<void> {
  const command = orExitOnConfigError(() => parseCommandLine(process.argv.slice(2), process.env));
  if (command.kind === "help") {
    process.stdout.write(USAGE);
    return;
  }
  if (command.kind === "version") {
    process.stdout.write(`${SERVER_VERSION}\n`);
    return;
  }
  const { config } = command;
  if (config.transport === "http") orExitOnConfigError(() => assertSafeBinding(config.http));
  const tools = orExitOnConfigError(() => selectTools(config.tools));
  setLogLevel(config.logLevel);
  await serve(config, tools);
}

main().catch((error: unknown) => {
  log("error", "fatal", { error: error instanceof Error ? error.message : String(error) });
  process.exit(1);
});
