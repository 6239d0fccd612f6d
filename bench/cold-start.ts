// Cold start: spawn the built server until its first tools/list answer, against spawning `node -e 0`.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { performance } from "node:perf_hooks";
import { excerpt, succeeded } from "./jsonrpc.js";
import { median } from "./measure.js";
import { CLI, serverEnv } from "./processes.js";
import { openOutputChannel, StdioMcpDriver } from "./stdio-driver.js";

export interface ColdStart {
  runs: number;
  serverMs: number;
  nodeMs: number;
  ratio: number;
}

async function spawnNodeOnly(): Promise<number> {
  const start = performance.now();
  const child = spawn(process.execPath, ["-e", "0"], { stdio: "ignore" });
  await once(child, "exit");
  return performance.now() - start;
}

async function spawnServerUntilToolList(upstreamUrl: string): Promise<number> {
  const output = await openOutputChannel();
  const start = performance.now();
  const driver = StdioMcpDriver.spawnOn(output, [CLI], serverEnv(upstreamUrl));
  const answer = await driver.initialize("tools/list");
  const elapsed = performance.now() - start;
  await driver.close();
  if (!succeeded(answer)) throw new Error(`tools/list failed: ${excerpt(answer)}`);
  return elapsed;
}

/** Alternates the two spawns so that drift on the machine affects both alike. */
export async function measureColdStart(upstreamUrl: string, runs = 10): Promise<ColdStart> {
  const server: number[] = [];
  const node: number[] = [];
  await spawnNodeOnly();
  for (let run = 0; run < runs; run++) {
    node.push(await spawnNodeOnly());
    server.push(await spawnServerUntilToolList(upstreamUrl));
  }
  const serverMs = median(server);
  const nodeMs = median(node);
  return { runs, serverMs, nodeMs, ratio: serverMs / nodeMs };
}
