// At most N upstream requests in flight per API key, the rest queued first come, first served, so a
// burst from one assistant does not set off a storm of 429s. Keys are held only as sha256 digests,
// and a key's lane is dropped as soon as it is idle, so memory follows the keys in use.
import { createHash } from "node:crypto";

interface Lane {
  active: number;
  /** Callers waiting for a slot; each is handed the slot of a finishing request. */
  waiting: (() => void)[];
}

export class KeyedLimiter {
  private readonly lanes = new Map<string, Lane>();

  /** Lanes in use (busy or queued): 0 when nothing is in flight. */
  get size(): number {
    return this.lanes.size;
  }

  async run<T>(
    key: string,
    limit: number,
    signal: AbortSignal | undefined,
    task: () => Promise<T>,
  ): Promise<T> {
    const id = createHash("sha256").update(key).digest("base64");
    let lane = this.lanes.get(id);
    if (!lane) {
      lane = { active: 0, waiting: [] };
      this.lanes.set(id, lane);
    }
    if (lane.active < limit) lane.active++;
    else await this.queue(id, lane, signal);
    try {
      return await task();
    } finally {
      this.release(id, lane);
    }
  }

  private queue(id: string, lane: Lane, signal: AbortSignal | undefined): Promise<void> {
    signal?.throwIfAborted();
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        lane.waiting.splice(lane.waiting.indexOf(granted), 1);
        if (lane.active === 0 && lane.waiting.length === 0) this.lanes.delete(id);
        reject(signal?.reason);
      };
      const granted = () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      };
      lane.waiting.push(granted);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  private release(id: string, lane: Lane): void {
    const next = lane.waiting.shift();
    if (next) {
      next(); // the slot passes straight on: `active` stays the same
      return;
    }
    lane.active--;
    if (lane.active === 0) this.lanes.delete(id);
  }
}
