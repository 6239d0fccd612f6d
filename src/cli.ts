#!/usr/bin/env node
// Entry point: flags and environment -> config -> serve (src/serve.ts: sandbox, store, server factory,
// transport). Reading the settings loads only the settings' own modules: --help, --version and settings
// that stop the process answer before the server, its SDK and its schemas are loaded.
import { helpLinesOf, USAGE } from "./config/help.js";
import { assertOAuthSettings, parseCommandLine } from "./config/parse.js";
import { ConfigError } from "./config/types.js";
import { log, setLogLevel } from "./log.js";
import { everyProblem, problemsForStderr, problemsText, transportAskedFor } from "./settings-problems.js";
import { SERVER_NAME, SERVER_VERSION } from "./version.js";

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

/**
 * Settings that cannot be used: stderr says what is wrong; over HTTP that ends the process (exit 2),
 * over stdio the server still connects and says it in every answer (src/settings-problems.ts).
 */
function serveProblems(first: ConfigError, argv: string[]): void {
  const problems = everyProblem(first, argv, process.env);
  process.stderr.write(problemsForStderr(problems));
  if (transportAskedFor(argv, process.env) !== "stdio") process.exit(2);
  log("warning", "settings cannot be used: serving stdio, every call answers with what is wrong");
  const text = problemsText(problems, argv, process.env);
  void Promise.all([import("./transports/stdio.js"), import("./problem-server.js")]).then(
    ([{ serveStdio }, { buildProblemServer }]) => {
      const running = serveStdio(() => buildProblemServer(text));
      void running.closed.then(() => process.exit(0));
      process.once("SIGTERM", () => void running.close().then(() => process.exit(0)));
      process.once("SIGINT", () => void running.close().then(() => process.exit(0)));
    },
  );
}

/** A step of reading the configuration, or the ConfigError that stopped it. */
function settingsOrProblem<T>(read: () => T): T | ConfigError {
  try {
    return read();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const command = settingsOrProblem(() => parseCommandLine(argv, process.env));
  if (command instanceof ConfigError) return serveProblems(command, argv);
  if (command.kind === "help") {
    process.stdout.write(USAGE);
    return;
  }
  if (command.kind === "version") {
    process.stdout.write(`${SERVER_VERSION}\n`);
    return;
  }
  const { config } = command;
  orExitOnConfigError(() => assertOAuthSettings(config));
  if (config.transport === "http") {
    const { assertSafeBinding } = await import("./transports/http/guards.js");
    orExitOnConfigError(() => assertSafeBinding(config.http));
  }
  const { selectTools } = await import("./tools/selection.js");
  const tools = settingsOrProblem(() => selectTools(config.tools));
  if (tools instanceof ConfigError) return serveProblems(tools, argv);
  setLogLevel(config.logLevel);
  const { serve } = await import("./serve.js");
  await serve(config, tools);
}

main().catch((error: unknown) => {
  log("error", "fatal", { error: error instanceof Error ? error.message : String(error) });
  process.exit(1);
});
