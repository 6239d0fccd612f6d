// Memory of the HTTP server with many open sessions: the built server runs in a child with
// --expose-gc; sessions are opened and ended over real sockets; the child reports its heap after gc.
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { Pool } from "undici";
import { HttpMcpDriver } from "./jsonrpc.js";
import { forkBench, serverEnv, stopChild } from "./processes.js";

export interface MemoryFigures {
  sessions: number;
  baseline: { heapUsed: number; rss: number };
  open: { heapUsed: number; rss: number; sessions: number };
  closed: { heapUsed: number; rss: number; sessions: number };
  heapPerSessionBytes: number;
  /** Heap after closing, as a fraction above the baseline (0.05 = 5 % more). */
  heapAfterCloseGrowth: number;
}

type Usage = NodeJS.MemoryUsage & { sessions: number };

async function measure(child: ChildProcess): Promise<Usage> {
  const answer = once(child, "message");
  child.send("measure");
  return (await answer)[0] as Usage;
}

/** Opens `count` sessions, `parallel` at a time, over one shared pool. */
async function openSessions(url: string, pool: Pool, count: number, parallel = 16): Promise<HttpMcpDriver[]> {
  const sessions: HttpMcpDriver[] = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      sessions.push(await HttpMcpDriver.connect(url, 16, pool));
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return sessions;
}

async function endSessions(sessions: HttpMcpDriver[]): Promise<void> {
  for (let i = 0; i < sessions.length; i += 32) {
    await Promise.all(sessions.slice(i, i + 32).map((session) => session.endSession()));
  }
}

export async function measureMemory(upstreamUrl: string, count = 1000): Promise<MemoryFigures> {
  const { child, ready } = await forkBench<{ url: string }>("memory-child.js", {
    execArgv: ["--expose-gc"],
    env: serverEnv(upstreamUrl),
  });
  const pool = new Pool(new URL(ready.url).origin, { connections: 16 });
  try {
    // A few sessions first, so lazily loaded code and caches are part of the baseline, not of the sessions.
    await endSessions(await openSessions(ready.url, pool, 20));
    const baseline = await measure(child);
    const sessions = await openSessions(ready.url, pool, count);
    const open = await measure(child);
    await endSessions(sessions);
    const closed = await measure(child);
    const pick = ({ heapUsed, rss }: Usage) => ({ heapUsed, rss });
    return {
      sessions: count,
      baseline: pick(baseline),
      open: { ...pick(open), sessions: open.sessions },
      closed: { ...pick(closed), sessions: closed.sessions },
      heapPerSessionBytes: (open.heapUsed - baseline.heapUsed) / count,
      heapAfterCloseGrowth: (closed.heapUsed - baseline.heapUsed) / baseline.heapUsed,
    };
  } finally {
    await pool.close();
    child.disconnect();
    await stopChild(child);
  }
}
