// Latency of sequential calls and throughput with N calls in flight, bounded by time and by count.
import { performance } from "node:perf_hooks";

export type Operation = () => Promise<void>;

export interface Latency {
  calls: number;
  p50Ms: number;
  p99Ms: number;
}

export interface Budget {
  /** Longest a sequential run may take. */
  sequentialMs: number;
  /** Most sequential calls measured. */
  sequentialCalls: number;
  /** Length of each throughput run, after a short warm-up. */
  throughputMs: number;
  /**
   * Calls made and not measured before each run: a server process is started for its path, and its
   * hot functions are only optimised after some hundreds of calls (the upstream of the limit has
   * been running all along).
   */
  warmupMs: number;
}

export const FULL_BUDGET: Budget = {
  sequentialMs: 2_000,
  sequentialCalls: 3_000,
  throughputMs: 2_000,
  warmupMs: 1_000,
};
export const QUICK_BUDGET: Budget = {
  sequentialMs: 500,
  sequentialCalls: 500,
  throughputMs: 500,
  warmupMs: 150,
};

function percentile(sorted: Float64Array, fraction: number): number {
  const index = Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1);
  return sorted[Math.max(0, index)] ?? Number.NaN;
}

async function runFor(ms: number, operation: Operation): Promise<void> {
  const end = performance.now() + ms;
  while (performance.now() < end) await operation();
}

export async function sequentialLatency(operation: Operation, budget: Budget): Promise<Latency> {
  await runFor(budget.warmupMs, operation);
  const samples = new Float64Array(budget.sequentialCalls);
  const end = performance.now() + budget.sequentialMs;
  let calls = 0;
  while (calls < samples.length && performance.now() < end) {
    const start = performance.now();
    await operation();
    samples[calls++] = performance.now() - start;
  }
  const sorted = samples.subarray(0, calls).sort();
  return { calls, p50Ms: percentile(sorted, 0.5), p99Ms: percentile(sorted, 0.99) };
}

export interface Throughput {
  perSecond: number;
  calls: number;
}

/** Calls completed per second with `inFlight` callers, each starting its next call when one ends. */
export async function throughput(
  operation: Operation,
  inFlight: number,
  budget: Budget,
): Promise<Throughput> {
  const loop = async (ms: number, counter: { done: number }) => {
    const end = performance.now() + ms;
    while (performance.now() < end) {
      await operation();
      counter.done++;
    }
  };
  const warm = { done: 0 };
  await Promise.all(Array.from({ length: inFlight }, () => loop(budget.warmupMs, warm)));
  const measured = { done: 0 };
  const start = performance.now();
  await Promise.all(Array.from({ length: inFlight }, () => loop(budget.throughputMs, measured)));
  return { perSecond: measured.done / ((performance.now() - start) / 1000), calls: measured.done };
}

export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
