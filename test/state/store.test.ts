// The in-memory store (the default, one process) against the SharedStore contract; the same suite
// runs against a real Redis in test/state/redis-store.scale.test.ts. And what docs/hosting.md says of both.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIRST_RECONNECT_DELAY_MS, KEY_PREFIX, REDIS_STORE_DEFAULTS } from "../../src/state/redis.js";
import {
  CONFIRMATION_MARK_PREFIX,
  MEMORY_STORE_MAX_COUNTERS,
  MEMORY_STORE_MAX_ENTRIES,
  MEMORY_STORE_MAX_MARKS,
  memoryStore,
  type SharedStore,
  StoreFullError,
} from "../../src/state/store.js";
import { storeContract } from "../store-contract.js";

let store: SharedStore;
beforeAll(() => {
  store = memoryStore();
});
afterAll(() => store.close());

storeContract("memoryStore", () => store);

describe("memoryStore's counters", () => {
  it(`track at most ${MEMORY_STORE_MAX_COUNTERS} keys: past that the oldest is forgotten, and no call fails`, async () => {
    const counters = memoryStore();
    expect(await counters.increment("first", 60_000)).toBe(1);
    expect(await counters.increment("first", 60_000)).toBe(2);
    for (let i = 1; i < MEMORY_STORE_MAX_COUNTERS; i++) await counters.increment(`flood ${i}`, 60_000);
    // Full now: the next new key pushes out the oldest, "first", which starts again at 1.
    expect(await counters.increment("one more", 60_000)).toBe(1);
    expect(await counters.increment(`flood ${MEMORY_STORE_MAX_COUNTERS - 1}`, 60_000)).toBe(2);
    expect(await counters.increment("first", 60_000)).toBe(1);
    // Counters take no room from the entries: a value is still written.
    await counters.set("entry", "kept", 60_000);
    expect(await counters.get("entry")).toBe("kept");
    await counters.close();
  });
});

describe("memoryStore's bounds", () => {
  it("keeps sign-in entries and confirmation marks apart: neither, full, refuses the other", async () => {
    const bounded = memoryStore(Date.now, { entries: 3, marks: 2 });
    const mark = (n: number) => bounded.setIfAbsent(`${CONFIRMATION_MARK_PREFIX}${n}`, "used", 60_000);
    expect([await mark(1), await mark(2)]).toEqual([true, true]);
    await expect(mark(3)).rejects.toThrow(StoreFullError);
    // Marks full: sign-in state is still written, up to its own bound.
    for (const n of [1, 2, 3]) await bounded.set(`oauth:grant:${n}`, "grant", 60_000);
    await expect(bounded.set("oauth:grant:4", "grant", 60_000)).rejects.toThrow(StoreFullError);
    expect(await bounded.get("oauth:grant:3")).toBe("grant");
    // A taken mark frees its own bound's room, not the other's.
    expect(await bounded.take(`${CONFIRMATION_MARK_PREFIX}1`)).toBe("used");
    expect(await mark(3)).toBe(true);
    await expect(bounded.set("oauth:grant:4", "grant", 60_000)).rejects.toThrow(StoreFullError);
    await bounded.close();
  });
});

describe("docs/hosting.md", () => {
  const hosting = readFileSync(new URL("../../docs/hosting.md", import.meta.url), "utf8").replace(
    /\s+/g,
    " ",
  );
  const seconds = (ms: number) => `${ms / 1000} s`;

  it("states the in-memory store's bound and the Redis store's timeouts as the code has them", () => {
    expect(hosting).toContain(`At most ${MEMORY_STORE_MAX_ENTRIES.toLocaleString("en-US")} live entries`);
    expect(hosting).toContain(`at most ${MEMORY_STORE_MAX_MARKS.toLocaleString("en-US")} confirmation marks`);
    expect(hosting).toContain(`${MEMORY_STORE_MAX_COUNTERS.toLocaleString("en-US")} rate-limit counters`);
    const { connectTimeoutMs, commandTimeoutMs, maxReconnectDelayMs } = REDIS_STORE_DEFAULTS;
    expect(hosting).toContain(
      `waiting from ${FIRST_RECONNECT_DELAY_MS} ms up to ${seconds(maxReconnectDelayMs)} between attempts`,
    );
    expect(hosting).toContain(`A connection attempt is given up after ${seconds(connectTimeoutMs)}`);
    expect(hosting).toContain(`a command after ${seconds(commandTimeoutMs)} without an answer`);
    expect(hosting).toContain(`Keys start with \`${KEY_PREFIX}\``);
    expect(REDIS_STORE_DEFAULTS.policyCheckMs).toBe(60_000);
    expect(hosting).toContain("at every reconnect and once a minute");
  });
});
