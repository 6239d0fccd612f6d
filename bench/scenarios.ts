// The work every path does, as operations the measurer can repeat: the same two upstream requests
// sent straight to the upstream (the limit) or as MCP calls through the server.
import { Pool } from "undici";
import { excerpt, exchange, type McpDriver, succeeded } from "./jsonrpc.js";
import {
  type Budget,
  type Latency,
  type Operation,
  pairedLatency,
  pairedThroughput,
  sequentialLatency,
  throughput,
} from "./measure.js";
import { cpuMicros } from "./processes.js";
import { API_KEY, PROJECT_ID, TASKS_PATH, WHOAMI_PATH } from "./upstream.js";

export const TASKS_ARGUMENTS = { view: "list", query: { pagination: { page_size: 10 } } };
export const IN_FLIGHT = [16, 64] as const;

export type OperationName = "tasks_query" | "whoami" | "tools/list";

export interface OperationFigures extends Latency {
  /** Calls per second by calls in flight. */
  throughput: Record<string, number>;
  /**
   * CPU time the serving process (the server; for the limit, the upstream) spent per call with 16 in
   * flight: unlike wall time, barely moved by other work on the machine.
   */
  cpuMicrosPerCall?: number;
  /**
   * On an MCP path: the limit (its tasks_query for tools/list), measured in slots that alternated with
   * this operation's. Ratios to the limit are to these figures.
   */
  limit?: Latency & { throughput: Record<string, number> };
  /** The bare SDK v2 server on the same path, measured in the same alternating slots (tasks_query). */
  bare?: Latency & { throughput: Record<string, number>; cpuMicrosPerCall?: number };
}

export type PathFigures = Partial<Record<OperationName, OperationFigures>>;

function ensure(condition: boolean, what: string): void {
  if (!condition) throw new Error(what);
}

/** The upstream alone: the requests the server would send, over an undici keep-alive pool. */
export function limitOperations(upstreamUrl: string): {
  operations: Map<OperationName, Operation>;
  pool: Pool;
} {
  const pool = new Pool(upstreamUrl, { connections: 64, pipelining: 1 });
  const headers = { "x-api-key": API_KEY, accept: "application/json" };
  const tasksBody = JSON.stringify(TASKS_ARGUMENTS);
  const send = async (method: "GET" | "POST", path: string, extra: Record<string, string>, body?: string) => {
    // Read whole as bytes, not decoded: the same client work as the MCP paths do on their answers.
    const { statusCode } = await exchange(pool, { method, path, headers: { ...headers, ...extra }, body });
    ensure(statusCode === 200, `upstream answered ${statusCode}`);
  };
  const projectHeaders = { "x-project-id": PROJECT_ID, "content-type": "application/json" };
  const operations = new Map<OperationName, Operation>([
    ["tasks_query", () => send("POST", TASKS_PATH, projectHeaders, tasksBody)],
    ["whoami", () => send("GET", WHOAMI_PATH, {})],
  ]);
  return { operations, pool };
}

const TOOL_LIST_START = '{"result":{"tools":[';

/** The same work as MCP requests through a driver; any error or isError result stops the run. */
export function mcpOperations(driver: McpDriver): Map<OperationName, Operation> {
  const callTool = async (name: string, args: Record<string, unknown>) => {
    const answer = await driver.request("tools/call", { name, arguments: args });
    ensure(succeeded(answer), `${name} failed: ${excerpt(answer)}`);
  };
  return new Map<OperationName, Operation>([
    ["tasks_query", () => callTool("tasks_query", TASKS_ARGUMENTS)],
    ["whoami", () => callTool("whoami", {})],
    [
      "tools/list",
      async () => {
        const answer = await driver.request("tools/list");
        ensure(answer.head.startsWith(TOOL_LIST_START), `tools/list failed: ${excerpt(answer)}`);
      },
    ],
  ]);
}

/** `servingPid`: the process whose CPU time per call is reported. */
export async function measurePath(
  operations: Map<OperationName, Operation>,
  budget: Budget,
  servingPid: number | undefined,
): Promise<PathFigures> {
  const figures: PathFigures = {};
  for (const [name, operation] of operations) {
    const latency = await sequentialLatency(operation, budget);
    const rates: Record<string, number> = {};
    let cpuMicrosPerCall: number | undefined;
    for (const inFlight of IN_FLIGHT) {
      const cpuBefore = cpuMicros(servingPid);
      const { perSecond, calls } = await throughput(operation, inFlight, budget);
      const cpuAfter = cpuMicros(servingPid);
      rates[inFlight] = perSecond;
      if (inFlight === 16 && cpuBefore !== undefined && cpuAfter !== undefined) {
        cpuMicrosPerCall = (cpuAfter - cpuBefore) / calls;
      }
    }
    figures[name] = { ...latency, throughput: rates, cpuMicrosPerCall };
  }
  return figures;
}

/** A server measured on a path: its operations and the process whose CPU time is read. */
export interface Served {
  operations: Map<OperationName, Operation>;
  pid: number | undefined;
}

/**
 * An MCP path, each operation measured in slots alternating with the limit's matching operation
 * (tasks_query for tools/list) and, for the operations it has, the bare SDK v2 server's on the same
 * path: a ratio compares runs made seconds apart, not minutes.
 */
export async function measurePathAgainstLimit(
  subject: Served,
  limitOperations: Map<OperationName, Operation>,
  budget: Budget,
  bare?: Served,
): Promise<PathFigures> {
  const figures: PathFigures = {};
  for (const [name, operation] of subject.operations) {
    const operations = {
      subject: operation,
      limit: limitOperations.get(name === "tools/list" ? "tasks_query" : name)!,
      bare: bare?.operations.get(name),
    };
    const latency = await pairedLatency(operations, budget);
    const rates: Record<string, number> = {};
    const limitRates: Record<string, number> = {};
    const bareRates: Record<string, number> = {};
    let cpuMicrosPerCall: number | undefined;
    let bareCpuMicrosPerCall: number | undefined;
    for (const inFlight of IN_FLIGHT) {
      const paired = await pairedThroughput(operations, inFlight, budget, {
        subject: () => cpuMicros(subject.pid),
        bare: () => cpuMicros(bare?.pid),
      });
      rates[inFlight] = paired.subject.perSecond;
      limitRates[inFlight] = paired.limit.perSecond;
      if (paired.bare) bareRates[inFlight] = paired.bare.perSecond;
      if (inFlight === 16) {
        cpuMicrosPerCall = perCall(paired.subject);
        bareCpuMicrosPerCall = paired.bare && perCall(paired.bare);
      }
    }
    figures[name] = {
      ...latency.subject,
      throughput: rates,
      cpuMicrosPerCall,
      limit: { ...latency.limit, throughput: limitRates },
      ...(latency.bare && {
        bare: { ...latency.bare, throughput: bareRates, cpuMicrosPerCall: bareCpuMicrosPerCall },
      }),
    };
  }
  return figures;
}

const perCall = ({ cpuMicros, calls }: { cpuMicros?: number; calls: number }) =>
  cpuMicros === undefined ? undefined : cpuMicros / calls;
