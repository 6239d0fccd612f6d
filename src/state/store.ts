// State that every replica must see the same: OAuth grants and codes, the single-use marks of write
// confirmations, and the rate limits' counters. One process keeps it in memory (memoryStore); replicas
// share a Redis (--redis-url). Values are opaque strings; every key expires, so nothing grows without bound.
// Every single-use step is one store call (take, setIfAbsent, swap), never a read and then a write.

export interface SharedStore {
  /** The value under `key`, or undefined when absent or expired. */
  get(key: string): Promise<string | undefined>;
  /** Sets `key` to `value` for `ttlMs` milliseconds, replacing what was there. */
  set(key: string, value: string, ttlMs: number): Promise<void>;
  /** Sets `key` only when it is absent; true when this call set it (Redis SET NX PX). */
  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean>;
  /** Reads and removes `key` in one step: of two takes of one key, at most one gets the value (Redis GETDEL). */
  take(key: string): Promise<string | undefined>;
  /**
   * Sets `key` to `value` for `ttlMs` only when it holds exactly `expected` now, in one step
   * (compare-and-set); true when this call set it. Of two swaps from one value, at most one succeeds.
   */
  swap(key: string, expected: string, value: string, ttlMs: number): Promise<boolean>;
  /**
   * Adds one to the counter `key` and gives the new count; a counter that is absent starts at 1 and
   * expires `ttlMs` later (a later increment does not move its expiry). Counter keys are used by
   * increment only. In memory, counters are capped apart from the entries (the oldest goes first).
   */
  increment(key: string, ttlMs: number): Promise<number>;
  delete(key: string): Promise<void>;
  close(): Promise<void>;
  /**
   * The store's epoch when the store keeps it itself (Redis: tied to the Redis process), made from
   * `fresh` for `ttlMs` when there is none current; absent: src/state/epoch.ts keeps it under a key.
   */
  epoch?(fresh: string, ttlMs: number): Promise<string>;
}

/** Refused when the in-memory store holds this many live entries: a bound, not a cache to evict from. */
export const MEMORY_STORE_MAX_ENTRIES = 200_000;
/** Keys of write confirmations' single-use marks (tools/confirm-state.ts). */
export const CONFIRMATION_MARK_PREFIX = "confirm-write:";
/** Confirmation marks the in-memory store holds at most, apart from the sign-in entries: neither fills the other. */
export const MEMORY_STORE_MAX_MARKS = 100_000;
/** Counters (rate limits) the in-memory store tracks at most; past it the oldest is forgotten, never a refusal. */
export const MEMORY_STORE_MAX_COUNTERS = 20_000;

export class StoreFullError extends Error {
  constructor() {
    super("the in-memory state store is full; try again later");
  }
}

/**
 * One process's store; entries past their expiry are dropped on read and by a sweep when a map fills.
 * Sign-in entries and confirmation marks are bounded apart (`limits` for tests), so one never fills the other.
 */
export function memoryStore(
  now: () => number = Date.now,
  limits = { entries: MEMORY_STORE_MAX_ENTRIES, marks: MEMORY_STORE_MAX_MARKS },
): SharedStore {
  type Entries = Map<string, { value: string; expiresAt: number }>;
  const signIn: Entries = new Map();
  const marks: Entries = new Map();
  const counters = new Map<string, { count: number; expiresAt: number }>();
  const poolOf = (key: string): [Entries, number] =>
    key.startsWith(CONFIRMATION_MARK_PREFIX) ? [marks, limits.marks] : [signIn, limits.entries];
  const live = (key: string) => {
    const [entries] = poolOf(key);
    const entry = entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= now()) {
      entries.delete(key);
      return undefined;
    }
    return entry;
  };
  const room = (entries: Entries, max: number) => {
    if (entries.size < max) return;
    const at = now();
    for (const [key, entry] of entries) if (entry.expiresAt <= at) entries.delete(key);
    if (entries.size >= max) throw new StoreFullError();
  };
  const put = (key: string, value: string, ttlMs: number) => {
    const [entries, max] = poolOf(key);
    if (!entries.has(key)) room(entries, max);
    entries.set(key, { value, expiresAt: now() + ttlMs });
  };
  return {
    async get(key) {
      return live(key)?.value;
    },
    async set(key, value, ttlMs) {
      put(key, value, ttlMs);
    },
    async setIfAbsent(key, value, ttlMs) {
      if (live(key) !== undefined) return false;
      put(key, value, ttlMs);
      return true;
    },
    async take(key) {
      const entry = live(key);
      poolOf(key)[0].delete(key);
      return entry?.value;
    },
    async swap(key, expected, value, ttlMs) {
      if (live(key)?.value !== expected) return false;
      put(key, value, ttlMs);
      return true;
    },
    async increment(key, ttlMs) {
      const at = now();
      const counter = counters.get(key);
      if (counter !== undefined && counter.expiresAt > at) return ++counter.count;
      counters.delete(key);
      if (counters.size >= MEMORY_STORE_MAX_COUNTERS) {
        for (const [name, old] of counters) if (old.expiresAt <= at) counters.delete(name);
        // Still full: the oldest counter goes (Map order is insertion order), so a flood of new keys
        // resets old counts rather than refusing anyone.
        if (counters.size >= MEMORY_STORE_MAX_COUNTERS)
          counters.delete(counters.keys().next().value as string);
      }
      counters.set(key, { count: 1, expiresAt: at + ttlMs });
      return 1;
    },
    async delete(key) {
      poolOf(key)[0].delete(key);
    },
    async close() {
      signIn.clear();
      marks.clear();
      counters.clear();
    },
  };
}

/**
 * The shared store (Redis) could not answer: unreachable, refused our credentials, or slower than its
 * bound. Callers answer it as a temporary failure ("try again shortly"); the message names no address.
 */
export class StoreUnavailableError extends Error {
  constructor(reason: string, options?: { cause?: unknown }) {
    super(`the shared state store (Redis) is unavailable: ${reason}; try again shortly`, options);
  }
}
