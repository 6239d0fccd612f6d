#!/usr/bin/env node
// Entry point: flags and environment -> config -> (sandbox) -> server factory -> transport.
import type { IncomingHttpHeaders } from "node:http";
import { createDispatcher } from "./clients/http.js";
import { createUpstreams } from "./clients/index.js";
import { type Config, ConfigError, parseCommandLine, USAGE } from "./config.js";
import { log, setLogLevel } from "./log.js";
import { buildServer } from "./server.js";
import { selectTools, sessionTools } from "./tools/selection.js";
import type { RunningTransport } from "./transports/stdio.js";
import { SERVER_NAME, SERVER_VERSION } from "./version.js";

async function startSandboxFor(config: Config): Promise<{ close(): Promise<void> }> {
  const { startSandbox } = await import("./sandbox/index.js");
  const sandbox = await startSandbox();
  // The sandbox replaces every upstream setting: its own key, URLs and default projects.
  config.upstream = {
    ...config.upstream,
    workspaceBaseUrl: sandbox.workspaceBaseUrl,
    analyticsBaseUrl: sandbox.analyticsBaseUrl,
    workspaceApiKey: sandbox.apiKey,
    analyticsApiKey: undefined,
    workspaceProjectId: sandbox.workspaceProjectId,
    workspaceId: undefined,
    analyticsProjectId: sandbox.analyticsProjectId,
  };
  log("info", "demo sandbox started", { url: sandbox.url });
  return sandbox;
}

async function serve(config: Config, tools: ReadonlySet<string>): Promise<void> {
  const sandbox = config.demo ? await startSandboxFor(config) : undefined;
  const dispatcher = createDispatcher(config.upstream);
  const upstreams = createUpstreams(config.upstream, dispatcher);

  let running: RunningTransport;
  if (config.transport === "stdio") {
    const { serveStdio } = await import("./transports/stdio.js");
    running = await serveStdio(buildServer(upstreams, { tools }));
    log("info", "ready", { transport: "stdio", demo: config.demo });
  } else {
    const { serveHttp } = await import("./transports/http.js");
    // A session's X-MCP-* headers narrow the server's tools, never widen them (ConfigError -> 400).
    const createMcpServer = (headers: IncomingHttpHeaders) =>
      buildServer(upstreams, { tools: sessionTools(headers, tools) });
    const http = await serveHttp(createMcpServer, config.http);
    running = http;
    log("info", "listening", { url: http.url });
    if (config.demo) {
      process.stderr.write(
        `\nDemo server ready at ${http.url}\nConnect the MCP Inspector: npx @modelcontextprotocol/inspector\n  then choose Transport "Streamable HTTP" and URL ${http.url}\n\n`,
      );
    }
  }

  let stopping = false;
  const stop = async (reason: string) => {
    if (stopping) return;
    stopping = true;
    log("info", "shutting down", { reason });
    // Whatever hangs during shutdown must not keep the process alive.
    setTimeout(() => process.exit(0), 5_000).unref();
    await running.close().catch(() => {});
    await sandbox?.close().catch(() => {});
    await dispatcher.close().catch(() => {});
    process.exit(0);
  };
  process.once("SIGINT", () => void stop("SIGINT"));
  process.once("SIGTERM", () => void stop("SIGTERM"));
  void running.closed.then(() => stop("transport closed"));
}

/** Runs a step of reading the configuration; a ConfigError stops the process with exit code 2. */
function orExitOnConfigError<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${SERVER_NAME}: ${error.message}\n\n${USAGE}`);
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
  const tools = orExitOnConfigError(() => selectTools(command.config.tools));
  setLogLevel(command.config.logLevel);
  await serve(command.config, tools);
}

main().catch((error: unknown) => {
  log("error", "fatal", { error: error instanceof Error ? error.message : String(error) });
  process.exit(1);
});
