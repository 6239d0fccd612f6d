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

/** `inFlight` callers for `ms`, each starting its next call when one ends: calls completed, time taken. */
async function throughputRun(
  operation: Operation,
  inFlight: number,
  ms: number,
): Promise<{ calls: number; ms: number }> {
  let calls = 0;
  const start = performance.now();
  const end = start + ms;
  const loop = async () => {
    while (performance.now() < end) {
      await operation();
      calls++;
    }
  };
  await Promise.all(Array.from({ length: inFlight }, loop));
  return { calls, ms: performance.now() - start };
}

/** Calls completed per second with `inFlight` callers, after a warm-up. */
export async function throughput(
  operation: Operation,
  inFlight: number,
  budget: Budget,
): Promise<Throughput> {
  await throughputRun(operation, inFlight, budget.warmupMs);
  const { calls, ms } = await throughputRun(operation, inFlight, budget.throughputMs);
  return { perSecond: calls / (ms / 1000), calls };
}

/** A measure of the path under test and of the limit, taken in alternating slots. */
export interface Paired<T> {
  subject: T;
  limit: T;
}

/**
 * Which side runs in each slot: subject, limit, limit, subject, four times over. A machine that speeds
 * up or slows down during a measurement (other tenants, frequency changes) moves both sides alike, so
 * their ratio holds still even when each figure alone drifts by a quarter.
 */
const SLOTS = Array.from({ length: 4 }, () => ["subject", "limit", "limit", "subject"] as const).flat();
const SLOTS_PER_SIDE = SLOTS.length / 2;

/** p50 and p99 of sequential calls of both sides, in alternating slots. */
export async function pairedLatency(operations: Paired<Operation>, budget: Budget): Promise<Paired<Latency>> {
  await runFor(budget.warmupMs, operations.subject);
  await runFor(budget.warmupMs, operations.limit);
  const perSlot = Math.ceil(budget.sequentialCalls / SLOTS_PER_SIDE);
  const samples = {
    subject: new Float64Array(perSlot * SLOTS_PER_SIDE),
    limit: new Float64Array(perSlot * SLOTS_PER_SIDE),
  };
  const calls = { subject: 0, limit: 0 };
  for (const side of SLOTS) {
    const operation = operations[side];
    const end = performance.now() + budget.sequentialMs / SLOTS_PER_SIDE;
    for (let slotCalls = 0; slotCalls < perSlot && performance.now() < end; slotCalls++) {
      const start = performance.now();
      await operation();
      samples[side][calls[side]++] = performance.now() - start;
    }
  }
  const latency = (side: "subject" | "limit"): Latency => {
    const sorted = samples[side].subarray(0, calls[side]).sort();
    return { calls: calls[side], p50Ms: percentile(sorted, 0.5), p99Ms: percentile(sorted, 0.99) };
  };
  return { subject: latency("subject"), limit: latency("limit") };
}

export interface PairedThroughput extends Paired<Throughput> {
  /** CPU time the subject's serving process spent in the subject's slots, in microseconds. */
  subjectCpuMicros?: number;
}

/**
 * Throughput of both sides with `inFlight` callers each, in alternating slots that add up to
 * `budget.throughputMs` per side. `cpuMicros` reads the CPU time of the process serving the subject.
 */
export async function pairedThroughput(
  operations: Paired<Operation>,
  inFlight: number,
  budget: Budget,
  cpuMicros: () => number | undefined,
): Promise<PairedThroughput> {
  await throughputRun(operations.subject, inFlight, budget.warmupMs);
  await throughputRun(operations.limit, inFlight, budget.warmupMs);
  const totals = { subject: { calls: 0, ms: 0 }, limit: { calls: 0, ms: 0 } };
  let subjectCpuMicros: number | undefined = 0;
  for (const side of SLOTS) {
    const cpuBefore = side === "subject" ? cpuMicros() : undefined;
    const { calls, ms } = await throughputRun(
      operations[side],
      inFlight,
      budget.throughputMs / SLOTS_PER_SIDE,
    );
    totals[side].calls += calls;
    totals[side].ms += ms;
    if (side === "subject") {
      const cpuAfter = cpuMicros();
      subjectCpuMicros =
        subjectCpuMicros === undefined || cpuBefore === undefined || cpuAfter === undefined
          ? undefined
          : subjectCpuMicros + cpuAfter - cpuBefore;
    }
  }
  const result = (side: "subject" | "limit"): Throughput => ({
    perSecond: totals[side].calls / (totals[side].ms / 1000),
    calls: totals[side].calls,
  });
  return { subject: result("subject"), limit: result("limit"), subjectCpuMicros };
}

export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
