// What every SharedStore must do, as one suite: run against memoryStore in `npm test`
// (test/state/store.test.ts) and against a real Redis in `npm run test:scale` (test/state/redis-store.scale.test.ts).
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { SharedStore } from "../src/state/store.js";
import { eventually } from "./http-helpers.js";

/** Concurrent callers in the race tests: more than a connection pipelines in one write. */
const RACERS = 200;

/** `store()` gives the store under test (opened by the caller's hooks); keys are fresh per test. */
export function storeContract(name: string, store: () => SharedStore): void {
  const fresh = () => `contract:${randomUUID()}`;

  describe(`${name}: the SharedStore contract`, () => {
    it("gets what was set, undefined for a key never set, and set replaces", async () => {
      const key = fresh();
      expect(await store().get(key)).toBeUndefined();
      await store().set(key, "first", 60_000);
      expect(await store().get(key)).toBe("first");
      await store().set(key, "second", 60_000);
      expect(await store().get(key)).toBe("second");
      expect(await store().get(fresh())).toBeUndefined();
    });

    it("keeps values byte for byte: empty, Unicode, JSON, 64 KiB", async () => {
      const values = ["", "grüße 🎉 \u0000 \r\n", JSON.stringify({ a: [1, "b"] }), "x".repeat(65_536)];
      const keys = values.map(() => fresh());
      await Promise.all(keys.map((key, i) => store().set(key, values[i]!, 60_000)));
      expect(await Promise.all(keys.map((key) => store().get(key)))).toEqual(values);
    });

    it("forgets an entry after its TTL, for get, take and setIfAbsent alike", async () => {
      const [a, b, c] = [fresh(), fresh(), fresh()];
      // b and c are set before a with the same TTL: once a is gone, so are they, however slow the
      // moments between the sets (take and setIfAbsent then meet entries expired, not removed by a get).
      await store().set(b, "short", 50);
      await store().setIfAbsent(c, "short", 50);
      await store().set(a, "short", 50);
      await store().set(fresh(), "long", 60_000);
      expect(await store().get(a)).toBe("short");
      expect(await eventually(async () => (await store().get(a)) === undefined)).toBe(true);
      expect(await store().take(b)).toBeUndefined();
      expect(await store().setIfAbsent(c, "again", 60_000)).toBe(true);
      expect(await store().get(c)).toBe("again");
    });

    it("setIfAbsent sets only an absent key, and says whether it did", async () => {
      const key = fresh();
      expect(await store().setIfAbsent(key, "mine", 60_000)).toBe(true);
      expect(await store().setIfAbsent(key, "yours", 60_000)).toBe(false);
      expect(await store().get(key)).toBe("mine");
      await store().delete(key);
      expect(await store().setIfAbsent(key, "yours", 60_000)).toBe(true);
      expect(await store().get(key)).toBe("yours");
    });

    it(`setIfAbsent raced by ${RACERS} callers: exactly one wins, and its value stays`, async () => {
      const key = fresh();
      const results = await Promise.all(
        Array.from({ length: RACERS }, (_, i) => store().setIfAbsent(key, `racer ${i}`, 60_000)),
      );
      const winners = results.flatMap((won, i) => (won ? [i] : []));
      expect(winners).toHaveLength(1);
      expect(await store().get(key)).toBe(`racer ${winners[0]}`);
    });

    it("take reads and removes: a second take, or a get, finds nothing", async () => {
      const key = fresh();
      await store().set(key, "once", 60_000);
      expect(await store().take(key)).toBe("once");
      expect(await store().take(key)).toBeUndefined();
      expect(await store().get(key)).toBeUndefined();
      expect(await store().take(fresh())).toBeUndefined();
    });

    it(`take raced by ${RACERS} callers: exactly one gets the value`, async () => {
      const key = fresh();
      await store().set(key, "the one value", 60_000);
      const results = await Promise.all(Array.from({ length: RACERS }, () => store().take(key)));
      expect(results.filter((value) => value !== undefined)).toEqual(["the one value"]);
    });

    it("swap sets only from the value it expects, and says whether it did", async () => {
      const key = fresh();
      expect(await store().swap(key, "anything", "new", 60_000)).toBe(false);
      expect(await store().get(key)).toBeUndefined();
      await store().set(key, "generation 0", 60_000);
      expect(await store().swap(key, "generation 1", "generation 2", 60_000)).toBe(false);
      expect(await store().get(key)).toBe("generation 0");
      expect(await store().swap(key, "generation 0", "generation 1", 60_000)).toBe(true);
      expect(await store().get(key)).toBe("generation 1");
      expect(await store().swap(key, "generation 0", "generation 1", 60_000)).toBe(false);
    });

    it("swap gives the value the TTL it was given", async () => {
      const key = fresh();
      await store().set(key, "old", 60_000);
      expect(await store().swap(key, "old", "short", 50)).toBe(true);
      expect(await eventually(async () => (await store().get(key)) === undefined)).toBe(true);
      expect(await store().swap(key, "short", "again", 60_000)).toBe(false);
    });

    it(`swap raced by ${RACERS} callers from one value: exactly one wins, and its value stays`, async () => {
      const key = fresh();
      await store().set(key, "the start", 60_000);
      const results = await Promise.all(
        Array.from({ length: RACERS }, (_, i) => store().swap(key, "the start", `racer ${i}`, 60_000)),
      );
      const winners = results.flatMap((won, i) => (won ? [i] : []));
      expect(winners).toHaveLength(1);
      expect(await store().get(key)).toBe(`racer ${winners[0]}`);
    });

    it(`increment counts from 1, ${RACERS} at once each counted once, and the count expires`, async () => {
      const [key, other] = [fresh(), fresh()];
      expect(await store().increment(key, 60_000)).toBe(1);
      const counts = await Promise.all(Array.from({ length: RACERS }, () => store().increment(key, 60_000)));
      expect([...counts].sort((a, b) => a - b)).toEqual(Array.from({ length: RACERS }, (_, i) => i + 2));
      expect(await store().increment(other, 50)).toBe(1);
      expect(await store().increment(other, 50)).toBe(2);
      expect(await eventually(async () => (await store().increment(other, 60_000)) === 1)).toBe(true);
    });

    it("delete removes a key and leaves the others; deleting an absent key is no error", async () => {
      const [gone, kept] = [fresh(), fresh()];
      await store().set(gone, "a", 60_000);
      await store().set(kept, "b", 60_000);
      await store().delete(gone);
      await store().delete(fresh());
      expect(await store().get(gone)).toBeUndefined();
      expect(await store().get(kept)).toBe("b");
    });
  });
}
