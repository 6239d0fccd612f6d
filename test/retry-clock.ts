// Retry waits without the waiting: the retry loop's clock (src/clients/retry.ts) replaced for one test
// file, so a wait the server reports ("retrying in 1.0 s") and the budget it counts stay exactly as in
// production while the test does not sleep through it. Upstream timeouts stay real.
import { retryClock } from "../src/clients/retry.js";

const real = { ...retryClock };

export interface FakeRetryClock {
  /** Every wait the retry loop asked for, in ms, in order. */
  readonly waits: number[];
  /** Puts the real clock back. */
  restore(): void;
}

/**
 * Each wait ends at once and moves the loop's clock on by its length, so the retry budget sees the
 * time a real wait would have taken. A wait whose signal is already aborted rejects as the real one does.
 */
export function skipRetryWaits(): FakeRetryClock {
  const waits: number[] = [];
  let skipped = 0;
  retryClock.now = () => real.now() + skipped;
  retryClock.pause = (ms, signal) => {
    waits.push(ms);
    if (signal?.aborted) return Promise.reject(signal.reason);
    skipped += ms;
    return Promise.resolve();
  };
  return { waits, restore: () => Object.assign(retryClock, real) };
}

export interface HeldRetryClock extends FakeRetryClock {
  /** Settles when a wait's signal aborts: the wait then rejects, as the real one does, and no retry follows. */
  readonly abortedWait: Promise<number>;
}

/** Each wait lasts until its call is cancelled (a test that cancels during a wait, without a timer). */
export function holdRetryWaits(): HeldRetryClock {
  const waits: number[] = [];
  let onAborted: (ms: number) => void = () => {};
  const abortedWait = new Promise<number>((resolve) => {
    onAborted = resolve;
  });
  retryClock.pause = (ms, signal) => {
    waits.push(ms);
    return new Promise((_resolve, reject) => {
      const stop = () => {
        onAborted(ms);
        reject(signal?.reason);
      };
      if (signal?.aborted) stop();
      else signal?.addEventListener("abort", stop, { once: true });
    });
  };
  return { waits, abortedWait, restore: () => Object.assign(retryClock, real) };
}

export interface CuedRetryClock extends FakeRetryClock {
  /** Ends the wait under way and every later one at once (a wait already cancelled still rejects). */
  endWaits(): void;
}

/**
 * Each wait lasts until the test calls `endWaits`: a test that acts during a wait (starts its upstream)
 * ends it when done, rather than sleep through a real back-off. The budget's clock is left as it is.
 */
export function cueRetryWaits(): CuedRetryClock {
  const waits: number[] = [];
  let endWaits: () => void = () => {};
  const ended = new Promise<void>((resolve) => {
    endWaits = resolve;
  });
  retryClock.pause = (ms, signal) => {
    waits.push(ms);
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const stop = () => reject(signal?.reason);
      signal?.addEventListener("abort", stop, { once: true });
      void ended.then(() => {
        signal?.removeEventListener("abort", stop);
        resolve();
      });
    });
  };
  return { waits, endWaits, restore: () => Object.assign(retryClock, real) };
}
