// `npm run bench:http`: where the time of an HTTP tool call goes. The same tasks_query through each
// way of serving HTTP (see http-variant-child.ts), beside the limit. Every variant runs in its own
// process for the whole run and is measured in several rounds, round-robin, so that other work on the
// machine hits all of them alike; the table keeps each one's best round (least CPU per call).
import type { ChildProcess } from "node:child_process";
import { HttpMcpDriver } from "./jsonrpc.js";
import { type Budget, type Operation, sequentialLatency, throughput } from "./measure.js";
import { cpuMicros, forkBench, serverEnv, stopChild } from "./processes.js";
import { limitOperations, mcpOperations } from "./scenarios.js";

const VARIANTS: Record<string, string> = {
  "as-built": "this build's transports/http.ts (stateful, SSE answers)",
  "stateful-sse": "SDK transport, session per initialize, SSE answers",
  "stateful-json": "SDK transport, session per initialize, enableJsonResponse",
  "web-standard-json": "SDK web-standard transport, no @hono/node-server, JSON answers",
  "per-request-sse": "SDK stateless example: server + transport per request, SSE",
  "per-request-json": "server + transport per request, enableJsonResponse",
  direct: "floor: node:http + JSON-RPC straight to callTool, no SDK transport",
};
const ROUNDS = 3;
const BUDGET: Budget = { sequentialMs: 700, sequentialCalls: 1_000, throughputMs: 1_000, warmupMs: 200 };

interface Round {
  p50Ms: number;
  perSecond: number;
  cpuMicrosPerCall: number;
}

interface Subject {
  label: string;
  operation: Operation;
  pid: number | undefined;
  rounds: Round[];
}

async function measureRound(subject: Subject): Promise<void> {
  const { p50Ms } = await sequentialLatency(subject.operation, BUDGET);
  const before = cpuMicros(subject.pid) ?? Number.NaN;
  const { perSecond, calls } = await throughput(subject.operation, 16, BUDGET);
  const cpuMicrosPerCall = ((cpuMicros(subject.pid) ?? Number.NaN) - before) / calls;
  subject.rounds.push({ p50Ms, perSecond, cpuMicrosPerCall });
}

const best = (subject: Subject) =>
  subject.rounds.reduce((a, b) => (b.cpuMicrosPerCall < a.cpuMicrosPerCall ? b : a));

function table(subjects: Subject[]): string {
  const limit = best(subjects[0]!);
  const lines = [
    "| variant | p50 | p50 ratio | 16 in flight | ratio | server CPU/call |",
    "|---|---:|---:|---:|---:|---:|",
  ];
  for (const subject of subjects) {
    const round = best(subject);
    lines.push(
      `| ${subject.label} | ${round.p50Ms.toFixed(3)} ms | ${(round.p50Ms / limit.p50Ms).toFixed(2)}× | ${Math.round(round.perSecond)}/s | 1/${(limit.perSecond / round.perSecond).toFixed(1)} | ${Math.round(round.cpuMicrosPerCall)} µs |`,
    );
  }
  return lines.join("\n");
}

async function main(): Promise<void> {
  const upstream = await forkBench<{ url: string }>("upstream-child.js");
  const children: ChildProcess[] = [upstream.child];
  const drivers: HttpMcpDriver[] = [];
  const limit = limitOperations(upstream.ready.url);
  const subjects: Subject[] = [
    {
      label: "limit (its CPU: the upstream's)",
      operation: limit.operations.get("tasks_query")!,
      pid: upstream.child.pid,
      rounds: [],
    },
  ];
  try {
    for (const [variant, label] of Object.entries(VARIANTS)) {
      const server = await forkBench<{ url: string }>("http-variant-child.js", {
        env: serverEnv(upstream.ready.url),
        args: [variant],
      });
      children.push(server.child);
      const driver = await HttpMcpDriver.connect(server.ready.url);
      drivers.push(driver);
      subjects.push({
        label,
        operation: mcpOperations(driver).get("tasks_query")!,
        pid: server.child.pid,
        rounds: [],
      });
    }
    for (let round = 1; round <= ROUNDS; round++) {
      process.stderr.write(`bench: round ${round} of ${ROUNDS}\n`);
      for (const subject of subjects) await measureRound(subject);
    }
  } finally {
    await Promise.all(drivers.map((driver) => driver.close().catch(() => {})));
    await limit.pool.close();
    for (const child of children) child.disconnect();
    await Promise.all(children.map(stopChild));
  }
  process.stdout.write(
    `tasks_query over HTTP, by way of serving it (best of ${ROUNDS} rounds):\n\n${table(subjects)}\n`,
  );
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
