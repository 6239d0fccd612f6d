// A burst of calls is queued to UPSTREAM_CONCURRENCY requests in flight per API key; the queue is
// first come, first served, forgets idle keys, and lets a cancelled caller leave.
import type { ServerResponse } from "node:http";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { KeyedLimiter } from "../../src/clients/limiter.js";
import { type FaultRequest, type FaultUpstream, faults, startFaultUpstream } from "../fault-upstream.js";
import { type InMemoryHarness, startInMemory } from "../helpers.js";

const CONCURRENCY = 8;

describe("UPSTREAM_CONCURRENCY through the server", () => {
  let upstream: FaultUpstream;
  let mcp: InMemoryHarness;
  const held: [ServerResponse, FaultRequest][] = [];
  let peak = 0;

  beforeEach(async () => {
    upstream = await startFaultUpstream();
    mcp = await startInMemory({
      workspaceBaseUrl: upstream.url,
      analyticsBaseUrl: upstream.url,
      workspaceApiKey: "workspace-key-0123",
      analyticsApiKey: "analytics-key-4567",
      analyticsProjectId: "44444444-4444-4444-8444-444444444444",
      concurrency: CONCURRENCY,
    });
    held.length = 0;
    peak = 0;
  });
  afterEach(async () => {
    await mcp.close();
    await upstream.close();
  });

  const answerHeld = () => {
    for (const [res, request] of held.splice(0)) faults.ok({ projects: [] })(res, request, 0);
  };

  it("30 calls at once: at most 8 reach the upstream together, and all 30 succeed", async () => {
    const total = 30;
    let answered = 0;
    // Hold requests until as many are in flight as the cap allows (fewer at the tail), then answer them
    // a moment later: a cap that let more through shows in `peak`, one that let fewer through would
    // never be released.
    let releasing = false;
    upstream.answerWith((res, request) => {
      held.push([res, request]);
      peak = Math.max(peak, held.length);
      if (!releasing && held.length >= Math.min(CONCURRENCY, total - answered)) {
        releasing = true;
        setTimeout(() => {
          answered += held.length;
          answerHeld();
          releasing = false;
        }, 50);
      }
    });
    const results = await Promise.all(Array.from({ length: total }, () => mcp.call("whoami")));
    expect(results.filter((result) => !result.isError)).toHaveLength(total);
    expect(upstream.requests).toHaveLength(total);
    expect(peak).toBe(CONCURRENCY);
  });

  it("another API key is not queued behind a busy one", async () => {
    const eightArrived = new Promise<void>((resolve) => {
      upstream.answerWith((res, request) => {
        if (request.path.endsWith("/projects")) return faults.ok({ data: [] })(res, request, 0);
        held.push([res, request]);
        if (held.length === CONCURRENCY) resolve();
      });
    });
    const workspaceCalls = Array.from({ length: CONCURRENCY + 2 }, () => mcp.call("whoami"));
    await eightArrived;
    expect((await mcp.call("geo_projects")).structuredContent).toEqual({ data: [] });
    expect(upstream.requests.map((request) => request.path.split("/").pop())).toEqual([
      ...Array(CONCURRENCY).fill("whoami"),
      "projects",
    ]);
    upstream.answerWith(faults.ok({ projects: [] }));
    answerHeld();
    expect((await Promise.all(workspaceCalls)).every((result) => !result.isError)).toBe(true);
  });
});

describe("KeyedLimiter", () => {
  const gate = () => {
    let open!: () => void;
    const opened = new Promise<void>((resolve) => {
      open = resolve;
    });
    return { open, opened };
  };

  it("serves a key's queue in arrival order and forgets the key once idle", async () => {
    const limiter = new KeyedLimiter();
    const first = gate();
    const order: string[] = [];
    const running = limiter.run("k", 1, undefined, async () => {
      await first.opened;
      order.push("first");
    });
    const queued = ["second", "third"].map((name) =>
      limiter.run("k", 1, undefined, async () => {
        order.push(name);
      }),
    );
    expect(limiter.size).toBe(1);
    first.open();
    await Promise.all([running, ...queued]);
    expect(order).toEqual(["first", "second", "third"]);
    expect(limiter.size).toBe(0);
  });

  it("a caller cancelled while queued leaves the queue, and the next one gets the slot", async () => {
    const limiter = new KeyedLimiter();
    const first = gate();
    const running = limiter.run("k", 1, undefined, () => first.opened);
    const controller = new AbortController();
    const cancelled = limiter.run("k", 1, controller.signal, async () => "ran");
    const next = limiter.run("k", 1, undefined, async () => "next ran");
    controller.abort(new Error("cancelled"));
    await expect(cancelled).rejects.toThrow("cancelled");
    first.open();
    await running;
    expect(await next).toBe("next ran");
    expect(limiter.size).toBe(0);
  });

  it("a task that fails still frees its slot", async () => {
    const limiter = new KeyedLimiter();
    await expect(limiter.run("k", 1, undefined, () => Promise.reject(new Error("boom")))).rejects.toThrow(
      "boom",
    );
    expect(await limiter.run("k", 1, undefined, async () => "after")).toBe("after");
    expect(limiter.size).toBe(0);
  });
});
