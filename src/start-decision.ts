// What the command line and environment decide before anything is served: the help, the version, a
// stop with exit code 2, settings that cannot be used served over stdio, or the settings and tools to
// serve. src/cli.ts acts on it; the tests ask it for the words the built CLI writes. Only the settings'
// own modules load here, and the HTTP guards and the tool selection once the settings get that far.
import { assertOAuthSettings, parseCommandLine } from "./config/parse.js";
import { type Config, ConfigError } from "./config/types.js";
import { everyProblem, problemsForStderr, transportAskedFor } from "./settings-problems.js";

type Env = NodeJS.ProcessEnv;

export type StartDecision =
  | { kind: "help" }
  | { kind: "version" }
  /** stderr written, then exit code 2: over HTTP, or a problem no transport can serve through. */
  | { kind: "stop"; stderr: string }
  /** stderr written, then stdio served with every answer saying what is wrong (src/settings-problems.ts). */
  | { kind: "serve problems"; problems: ConfigError[]; stderr: string }
  | { kind: "serve"; config: Config; tools: ReadonlySet<string> };

export async function decideStart(argv: string[], env: Env): Promise<StartDecision> {
  const command = settingsOrProblem(() => parseCommandLine(argv, env));
  if (command instanceof ConfigError) return unusable(command, argv, env);
  if (command.kind !== "serve") return { kind: command.kind };
  const { config } = command;
  // --oauth's checks and a binding beyond loopback stop any transport, each with its one problem.
  const oauth = settingsOrProblem(() => assertOAuthSettings(config));
  if (oauth instanceof ConfigError) return { kind: "stop", stderr: problemsForStderr([oauth]) };
  if (config.transport === "http") {
    const { assertSafeBinding } = await import("./transports/http/guards.js");
    const binding = settingsOrProblem(() => assertSafeBinding(config.http));
    if (binding instanceof ConfigError) return { kind: "stop", stderr: problemsForStderr([binding]) };
  }
  const { selectTools } = await import("./tools/selection.js");
  const tools = settingsOrProblem(() => selectTools(config.tools));
  if (tools instanceof ConfigError) return unusable(tools, argv, env);
  return { kind: "serve", config, tools };
}

/** Settings read wrong, or a selection that cannot be served: every problem said; only stdio serves on. */
function unusable(first: ConfigError, argv: string[], env: Env): StartDecision {
  const problems = everyProblem(first, argv, env);
  const stderr = problemsForStderr(problems);
  return transportAskedFor(argv, env) === "stdio"
    ? { kind: "serve problems", problems, stderr }
    : { kind: "stop", stderr };
}

/** A step of reading the settings, or the ConfigError that stopped it. */
function settingsOrProblem<T>(read: () => T): T | ConfigError {
  try {
    return read();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
}
