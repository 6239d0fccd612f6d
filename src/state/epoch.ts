// The store's epoch: a random value kept under one store key, made when the key is missing. A sealed
// value whose single use rests on a mark in the store (a write confirmation, a consent form) carries the
// epoch it was issued under and is spent only under the same one. A store that lost all its keys (Redis
// restarted empty or flushed, a new process's memory store) has lost the epoch key too: a new epoch is
// made, and every value sealed before is refused rather than accepted a second time. It does not cover
// a Redis that evicts single keys (one mark gone, the epoch kept): src/state/eviction.ts refuses those.
// A Redis back from an older snapshot keeps the epoch key but not the later marks: the Redis store keeps
// its epoch itself, tied to the Redis process (src/state/incarnation.ts), so a restart starts a new one.
import { randomBytes } from "node:crypto";
import type { SharedStore } from "./store.js";

/** The key the epoch is kept under. */
export const EPOCH_KEY = "epoch";
/**
 * How long an epoch lives: every key expires; when this one does, values issued just before (minutes'
 * worth, at most a consent form's life) are refused, once a month.
 */
export const EPOCH_TTL_MS = 30 * 24 * 3600_000;

/**
 * The store's epoch now: one read, and when the key is missing one SET NX (of two replicas making one
 * at once, one wins and both then use its value).
 */
export async function storeEpoch(store: SharedStore): Promise<string> {
  if (store.epoch) return store.epoch(randomBytes(16).toString("base64url"), EPOCH_TTL_MS);
  const current = await store.get(EPOCH_KEY);
  if (current !== undefined) return current;
  const made = randomBytes(16).toString("base64url");
  if (await store.setIfAbsent(EPOCH_KEY, made, EPOCH_TTL_MS)) return made;
  return (await store.get(EPOCH_KEY)) ?? made;
}
