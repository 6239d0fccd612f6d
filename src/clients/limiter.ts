// At most N upstream requests in flight per API key, the rest queued first come, first served, so a
// burst from one assistant does not set off a storm of 429s. Keys arrive as sha256 digests (keyDigest,
// computed once per client, not per request), and a key's lane is dropped as soon as it is idle, so
// memory follows the keys in use.
import { createHash } from "node:crypto";

/** An API key as the limiter and the implied-project cache hold it: they never see the key itself. */
export function keyDigest(apiKey: string): string {
  return createHash("sha256").update(apiKey).digest("base64");
}

interface Lane {
  active: number;
  /** Calls waiting for a slot, first come first served; each starts in the slot of a finishing one. */
  waiting: Waiting[];
}

interface Waiting {
  start: () => void;
  cancel: () => void;
}

/**
 * A call with a free slot starts at once, and a finishing call starts the next waiting one in the
 * same turn: no promise hop or await between a slot coming free and the next request being sent.
 */
export class KeyedLimiter {
  private readonly lanes = new Map<string, Lane>();

  /** Lanes in use (busy or queued): 0 when nothing is in flight. */
  get size(): number {
    return this.lanes.size;
  }

  /** `id` names the lane: a key's digest (keyDigest). */
  run<T>(id: string, limit: number, signal: AbortSignal | undefined, task: () => Promise<T>): Promise<T> {
    let lane = this.lanes.get(id);
    if (!lane) {
      lane = { active: 0, waiting: [] };
      this.lanes.set(id, lane);
    }
    if (lane.active < limit) {
      lane.active++;
      return this.start(id, lane, task);
    }
    return this.queue(id, lane, signal, task);
  }

  /** Runs `task` in a slot already counted in `lane.active`, and frees the slot when it settles. */
  private start<T>(id: string, lane: Lane, task: () => Promise<T>): Promise<T> {
    const release = () => this.release(id, lane);
    let running: Promise<T>;
    try {
      running = task();
    } catch (error) {
      release();
      return Promise.reject(error);
    }
    running.then(release, release);
    return running;
  }

  private queue<T>(
    id: string,
    lane: Lane,
    signal: AbortSignal | undefined,
    task: () => Promise<T>,
  ): Promise<T> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<T>((resolve, reject) => {
      const waiting: Waiting = {
        start: () => {
          signal?.removeEventListener("abort", waiting.cancel);
          this.start(id, lane, task).then(resolve, reject);
        },
        cancel: () => {
          lane.waiting.splice(lane.waiting.indexOf(waiting), 1);
          if (lane.active === 0 && lane.waiting.length === 0) this.lanes.delete(id);
          reject(signal?.reason);
        },
      };
      lane.waiting.push(waiting);
      signal?.addEventListener("abort", waiting.cancel, { once: true });
    });
  }

  private release(id: string, lane: Lane): void {
    const next = lane.waiting.shift();
    if (next) {
      next.start(); // the slot passes straight on: `active` stays the same
      return;
    }
    lane.active--;
    if (lane.active === 0) this.lanes.delete(id);
  }
}
