#!/usr/bin/env node
// Entry point: flags and environment -> what to do (src/start-decision.ts) -> serve (src/serve.ts:
// sandbox, store, server factory, transport). Deciding loads only the settings' own modules: --help,
// --version and settings that stop the process answer before the server, its SDK and its schemas load.
import { USAGE } from "./config/help.js";
import type { ConfigError } from "./config/types.js";
import { log, setLogLevel } from "./log.js";
import { problemsText } from "./settings-problems.js";
import { decideStart } from "./start-decision.js";
import { SERVER_VERSION } from "./version.js";

/** Settings that cannot be used, over stdio: the server still connects and says it in every answer. */
function serveProblems(problems: ConfigError[], argv: string[]): void {
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

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const decision = await decideStart(argv, process.env);
  switch (decision.kind) {
    case "help":
      process.stdout.write(USAGE);
      return;
    case "version":
      process.stdout.write(`${SERVER_VERSION}\n`);
      return;
    case "stop":
      process.stderr.write(decision.stderr);
      process.exit(2);
      return;
    case "serve problems":
      process.stderr.write(decision.stderr);
      return serveProblems(decision.problems, argv);
    case "serve": {
      setLogLevel(decision.config.logLevel);
      const { serve } = await import("./serve.js");
      await serve(decision.config, decision.tools);
    }
  }
}

main().catch((error: unknown) => {
  log("error", "fatal", { error: error instanceof Error ? error.message : String(error) });
  process.exit(1);
});
