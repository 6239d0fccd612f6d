// Runs the built HTTP server in this process (started with --expose-gc), so the parent can open and
// close sessions over real sockets and ask, over IPC, for the heap after a full collection.
// It wires the built modules the way dist/cli.js does; nothing in the server exists for the bench.
import { DIST } from "./processes.js";

type Cli = typeof import("../src/config/parse.js");
type Http = typeof import("../src/clients/http.js");
type HttpTransport = typeof import("../src/transports/http/server.js");
type UserServers = typeof import("../src/transports/http/user-servers.js");
type Register = typeof import("../src/tools/register.js");
type Log = typeof import("../src/log.js");

const load = <T>(path: string) => import(`${DIST}${path}`) as Promise<T>;
const [
  { parseCommandLine },
  { createDispatcher },
  { serveHttp },
  { perUserServers },
  { ALL_TOOL_NAMES },
  { setLogLevel },
] = await Promise.all([
  load<Cli>("config/parse.js"),
  load<Http>("clients/http.js"),
  load<HttpTransport>("transports/http/server.js"),
  load<UserServers>("transports/http/user-servers.js"),
  load<Register>("tools/register.js"),
  load<Log>("log.js"),
]);

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("start the memory child with --expose-gc");

// One key opens every session here: the per-key bound is lifted to the whole cap.
const command = parseCommandLine(
  ["--transport", "http", "--port", "0", "--max-sessions-per-key", "1000"],
  process.env,
);
if (command.kind !== "serve") throw new Error("unexpected command");
const { config } = command;
// As cli.js does: LOG_LEVEL=error from serverEnv, else every request of 1000 sessions is logged.
setLogLevel(config.logLevel);
const dispatcher = createDispatcher(config.upstream);
const http = await serveHttp(perUserServers(config.upstream, dispatcher, ALL_TOOL_NAMES), config.http);

/** Heap after collections: several rounds, since closures freed in one round release more in the next. */
async function settledMemory(): Promise<NodeJS.MemoryUsage & { sessions: number }> {
  for (let round = 0; round < 4; round++) {
    gc!();
    await new Promise((resolve) => setImmediate(resolve));
  }
  return { ...process.memoryUsage(), sessions: http.sessionCount() };
}

process.on("message", (message) => {
  if (message === "measure") void settledMemory().then((usage) => process.send?.(usage));
});
process.once("disconnect", () => void http.close().then(() => process.exit(0)));
process.send?.({ url: http.url });
