// The in-memory store (the default, one process) against the SharedStore contract; the same suite
// runs against a real Redis in test/redis-store.scale.test.ts.
import { afterAll, beforeAll } from "vitest";
import { memoryStore, type SharedStore } from "../src/state/store.js";
import { storeContract } from "./store-contract.js";

let store: SharedStore;
beforeAll(() => {
  store = memoryStore();
});
afterAll(() => store.close());

storeContract("memoryStore", () => store);
