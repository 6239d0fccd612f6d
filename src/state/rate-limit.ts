// Fixed-window request counters kept in the shared store: in memory for one process (its counters
// capped apart from the other entries), in Redis for replicas, so every replica counts against one
// budget. A counter lives one window. A store that cannot count never lets a request through uncounted:
// the request is counted in this process instead (the same budget per replica, bounded as in memory),
// since some guarded steps (/register, client metadata fetches) need no store to go on.
import { createHash } from "node:crypto";
import { memoryStore, type SharedStore, StoreUnavailableError } from "./store.js";

/** One window of counting: a limit is "so many per minute". */
export const RATE_WINDOW_MS = 60_000;

/** A request past its limit; the caller answers 429 with Retry-After. */
export class RateLimited extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super(`too many requests; try again in ${retryAfterSeconds} s`);
  }
}

/** The limiter's clock: tests fix it, so that a run never straddles two windows. */
export const rateLimitClock = { now: (): number => Date.now() };

export class RateLimiter {
  /** Where requests are counted while the shared store cannot count them: this process's memory. */
  private readonly local: SharedStore;

  constructor(
    private readonly store: SharedStore,
    private readonly now: () => number = () => rateLimitClock.now(),
  ) {
    this.local = memoryStore(this.now);
  }

  /** Counts one request against `bucket`; RateLimited past `perMinute` in this window (0: no limit). */
  async hit(bucket: string, perMinute: number): Promise<void> {
    if (perMinute <= 0) return;
    const at = this.now();
    const window = Math.floor(at / RATE_WINDOW_MS);
    const key = `ratelimit:${boundedName(bucket)}:${window}`;
    let count: number;
    try {
      count = await this.store.increment(key, RATE_WINDOW_MS);
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) throw error;
      count = await this.local.increment(key, RATE_WINDOW_MS);
    }
    if (count > perMinute) {
      throw new RateLimited(Math.max(1, Math.ceil(((window + 1) * RATE_WINDOW_MS - at) / 1000)));
    }
  }
}

/** A bucket name as a key holds it: short ones as they are, long ones (client ids) by their digest. */
function boundedName(bucket: string): string {
  if (bucket.length <= 80) return bucket;
  return `${bucket.slice(0, 16)}~${createHash("sha256").update(bucket).digest("base64url").slice(0, 22)}`;
}
