// Each fault of a misbehaving upstream: the exact result, the exact number of requests, the faulty
// connection closed, and the next call served normally. No unhandled rejection, no socket left open.
import type { Progress } from "@modelcontextprotocol/client";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type FaultHandler, type FaultUpstream, faults, startFaultUpstream } from "../fault-upstream.js";
import { type InMemoryHarness, startInMemory, textOf } from "../helpers.js";
import { type FakeRetryClock, skipRetryWaits } from "../retry-clock.js";

const KEY = "fault-key-0123456789";
const TIMEOUT_MS = 400;
const MAX_BYTES = 64 * 1024;

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

let upstream: FaultUpstream;
let mcp: InMemoryHarness;
let origin: string;
/** The retry waits are counted (by the budget too), not slept through; upstream timeouts stay real. */
let clock: FakeRetryClock;

beforeAll(async () => {
  clock = skipRetryWaits();
  process.on("unhandledRejection", onUnhandled);
  upstream = await startFaultUpstream();
  origin = upstream.url;
  mcp = await startInMemory({
    workspaceBaseUrl: upstream.url,
    workspaceApiKey: KEY,
    timeoutMs: TIMEOUT_MS,
    maxResponseBytes: MAX_BYTES,
  });
});

/** Whatever the fault, the next call is answered normally, with one request; no rejection went unhandled. */
async function expectNextCallAnswered(on: FaultUpstream, harness: InMemoryHarness): Promise<void> {
  const before = on.requests.length;
  on.answerWith(faults.ok({ projects: [] }));
  expect(await harness.call("whoami")).toEqual({
    content: [{ type: "text", text: '{"projects":[]}' }],
    structuredContent: { projects: [] },
  });
  expect(on.requests.length).toBe(before + 1);
  expect(unhandled).toEqual([]);
}

afterAll(async () => {
  await mcp.close(); // closes the dispatcher's keep-alive sockets
  await upstream.allSocketsClosed();
  expect(upstream.openSockets()).toBe(0);
  await upstream.close();
  process.off("unhandledRejection", onUnhandled);
  clock.restore();
});

/** whoami against the given fault, with the progress notifications it sent. */
async function whoamiAgainst(handler: FaultHandler) {
  upstream.answerWith(handler);
  const progress: Progress[] = [];
  const result = await mcp.call("whoami", {}, { onprogress: (update) => progress.push(update) });
  return { result, progress, text: textOf(result) };
}

async function expectSocketsClosed(): Promise<void> {
  await Promise.all(upstream.requests.map((request) => request.socketClosed));
}

/**
 * A server and upstream of its own for a test that waits out timeouts, so that such tests run side by
 * side: the fault's call, then the same checks as for the shared pair (the next call answered, every
 * socket closed).
 */
async function onUpstreamOfItsOwn(test: (own: FaultUpstream, harness: InMemoryHarness) => Promise<void>) {
  const own = await startFaultUpstream();
  const harness = await startInMemory({
    workspaceBaseUrl: own.url,
    workspaceApiKey: KEY,
    timeoutMs: TIMEOUT_MS,
    maxResponseBytes: MAX_BYTES,
  });
  let harnessOpen = true;
  try {
    await test(own, harness);
    await expectNextCallAnswered(own, harness);
    harnessOpen = false;
    await harness.close(); // closes the dispatcher's keep-alive sockets
    await own.allSocketsClosed();
    expect(own.openSockets()).toBe(0);
  } finally {
    if (harnessOpen) await harness.close();
    await own.close();
  }
}

// Each attempt waits out its timeout, so the two run side by side. Their retry waits are skipped, and
// each skip moves the one clock of both calls on: far within the retry budget (20 s) either keeps.
describe("a read tool against an upstream that never finishes its answer", () => {
  it.concurrent("a hung upstream: timed out on each of 3 attempts, every socket closed", async ({
    expect,
  }) => {
    await onUpstreamOfItsOwn(async (own, harness) => {
      own.answerWith(faults.hang());
      const result = await harness.call("whoami");
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe(
        `whoami: the workspace API did not answer within ${TIMEOUT_MS} ms (UPSTREAM_TIMEOUT_MS) after 3 attempts. Retry in a moment; if it keeps happening the service is slow or down.`,
      );
      expect(own.requests).toHaveLength(3);
      await Promise.all(own.requests.map((request) => request.socketClosed));
      expect(own.requests.map((request) => request.answered)).toEqual([false, false, false]);
    });
  });

  it.concurrent("a slow drip of bytes is bounded from connect to last byte, not per byte", async ({
    expect,
  }) => {
    await onUpstreamOfItsOwn(async (own, harness) => {
      own.answerWith(faults.drip(20));
      expect(textOf(await harness.call("whoami"))).toBe(
        `whoami: the workspace API did not answer within ${TIMEOUT_MS} ms (UPSTREAM_TIMEOUT_MS) after 3 attempts. Retry in a moment; if it keeps happening the service is slow or down.`,
      );
      expect(own.requests).toHaveLength(3);
      await Promise.all(own.requests.map((request) => request.socketClosed));
    });
  });
});

describe("a read tool against a faulty upstream", () => {
  beforeAll(() => {
    clock.waits.length = 0; // the waits of the calls above
  });
  afterEach(async () => {
    await expectNextCallAnswered(upstream, mcp);
    upstream.requests.length = 0;
    clock.waits.length = 0;
  });

  it("a connection reset mid-body is retried, then reported", async () => {
    const { text, progress } = await whoamiAgainst(faults.resetMidBody());
    expect(text).toBe(
      `whoami: lost the connection to the workspace API at ${origin} (ECONNRESET) after 3 attempts. Retry in a moment.`,
    );
    expect(upstream.requests).toHaveLength(3);
    expect(progress.map(({ progress, total }) => [progress, total])).toEqual([
      [1, 3],
      [2, 3],
    ]);
    expect(progress[0]?.message).toMatch(
      /^connection lost \(ECONNRESET\); retrying in 0\.\d s \(attempt 2 of 3\)$/,
    );
  });

  it("a 200 with truncated JSON names the status, the content type and a short excerpt", async () => {
    const { text } = await whoamiAgainst(faults.truncatedJson());
    expect(text).toBe(
      'whoami: the workspace API answered 200 with a body that is not JSON (content type application/json): "{"items": [{"id": "a"}, {"id"". Retry later; the service may be misconfigured.',
    );
    expect(upstream.requests).toHaveLength(1);
  });

  it("an HTML 502 page is retried, then shown as a short excerpt without markup", async () => {
    const { text } = await whoamiAgainst(faults.html502());
    const excerpt = `502 Bad Gateway The upstream server did not respond. ${"padding text ".repeat(5)}pa…`;
    expect(text).toBe(
      `whoami: the workspace API failed with 502 after 3 attempts. The API said: ${excerpt}. This is on the service's side: retry in a little while.`,
    );
    expect(upstream.requests).toHaveLength(3);
  });

  it("a body over UPSTREAM_MAX_BYTES is cut off, its connection closed, and not retried", async () => {
    const { text } = await whoamiAgainst(faults.huge(10 * MAX_BYTES));
    expect(text).toBe(
      `whoami: the workspace API sent more than ${MAX_BYTES} bytes (UPSTREAM_MAX_BYTES), so the answer was cut off. Ask for less (a smaller page or fewer metrics), or raise UPSTREAM_MAX_BYTES.`,
    );
    expect(upstream.requests).toHaveLength(1);
    await expectSocketsClosed();
  });

  it("503 then success: the call succeeds, with a progress notification about the wait", async () => {
    const { result, progress } = await whoamiAgainst(
      faults.sequence(
        faults.status(503, { detail: "warming up" }, { "retry-after": "1" }),
        faults.ok({ projects: [{ id: "p1" }] }),
      ),
    );
    expect(result.structuredContent).toEqual({ projects: [{ id: "p1" }] });
    expect(upstream.requests).toHaveLength(2);
    expect(progress).toEqual([
      { progress: 1, total: 3, message: "upstream answered 503; retrying in 1.0 s (attempt 2 of 3)" },
    ]);
    expect(clock.waits).toEqual([1000]);
  });

  it("429 with Retry-After in seconds within the budget: waits, then succeeds", async () => {
    const { result, progress } = await whoamiAgainst(
      faults.sequence(faults.status(429, {}, { "retry-after": "1" }), faults.ok({ projects: [] })),
    );
    expect(result.isError).toBeUndefined();
    expect(upstream.requests).toHaveLength(2);
    expect(progress.map((update) => update.message)).toEqual([
      "upstream answered 429; retrying in 1.0 s (attempt 2 of 3)",
    ]);
  });

  it("429 with Retry-After as an HTTP date within the budget: waits until then, then succeeds", async () => {
    const soon = new Date(Date.now() + 2_000).toUTCString();
    const { result, progress } = await whoamiAgainst(
      faults.sequence(faults.status(429, {}, { "retry-after": soon }), faults.ok({ projects: [] })),
    );
    expect(result.isError).toBeUndefined();
    expect(upstream.requests).toHaveLength(2);
    expect(progress[0]?.message).toMatch(
      /^upstream answered 429; retrying in [0-2]\.\d s \(attempt 2 of 3\)$/,
    );
  });

  it("429 with Retry-After beyond UPSTREAM_RETRY_BUDGET_MS: no wait, the result says when", async () => {
    const { text, progress } = await whoamiAgainst(faults.status(429, {}, { "retry-after": "120" }));
    expect(text).toBe("whoami: 429 Too Many Requests: rate limited. Retry after 120 s.");
    expect(upstream.requests).toHaveLength(1);
    expect(progress).toEqual([]);
    expect(clock.waits).toEqual([]);
  });

  it("429 with an HTTP date beyond the budget: the result gives that date", async () => {
    const later = new Date(Date.now() + 3_600_000).toUTCString();
    const { text } = await whoamiAgainst(faults.status(429, {}, { "retry-after": later }));
    expect(text).toBe(`whoami: 429 Too Many Requests: rate limited. Retry after ${later}.`);
    expect(upstream.requests).toHaveLength(1);
  });
});

// The two run side by side: the second call skips no wait, so it cannot move the first one's clock.
describe("the retry budget bounds the whole call", () => {
  afterEach(() => {
    expect(unhandled).toEqual([]);
  });

  async function hungWhoami(retryBudgetMs: number) {
    const hung = await startFaultUpstream();
    const bounded = await startInMemory({
      workspaceBaseUrl: hung.url,
      workspaceApiKey: KEY,
      timeoutMs: TIMEOUT_MS,
      retryBudgetMs,
    });
    try {
      hung.answerWith(faults.hang());
      return { text: textOf(await bounded.call("whoami")), requests: hung.requests.length };
    } finally {
      await bounded.close();
      await hung.close();
    }
  }

  it.concurrent("no attempt starts once the budget, counted from the start of the call, would be passed", async ({
    expect,
  }) => {
    // Attempt 1 ends at ~400 ms and its wait is at most 500 ms: a second attempt fits in 1200 ms. It ends
    // at 1050 ms at the earliest, and the next wait (at least 500 ms) would pass the budget.
    expect(await hungWhoami(1200)).toEqual({
      text: `whoami: the workspace API did not answer within ${TIMEOUT_MS} ms (UPSTREAM_TIMEOUT_MS) after 2 attempts. Retry in a moment; if it keeps happening the service is slow or down.`,
      requests: 2,
    });
  });

  it.concurrent("a timed-out read is not tried again when no attempt could start within the budget", async ({
    expect,
  }) => {
    expect(await hungWhoami(TIMEOUT_MS / 2)).toEqual({
      text: `whoami: the workspace API did not answer within ${TIMEOUT_MS} ms (UPSTREAM_TIMEOUT_MS). Retry in a moment; if it keeps happening the service is slow or down.`,
      requests: 1,
    });
  });
});
