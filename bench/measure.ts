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

/** The path under test, the limit, and optionally the bare SDK v2 server on the same path. */
export type Side = "subject" | "bare" | "limit";
export type Sides<T> = Partial<Record<Side, T>> & Paired<T>;

/**
 * Which side runs in each slot: the sides in order then in reverse (subject, limit, limit, subject;
 * with the bare server, subject, bare, limit, limit, bare, subject), four times over. A machine that
 * speeds up or slows down during a measurement (other tenants, frequency changes) moves every side
 * alike, so their ratios hold still even when each figure alone drifts by a quarter.
 */
function slotsOf(sides: Side[]): Side[] {
  return Array.from({ length: 4 }, () => [...sides, ...[...sides].reverse()]).flat();
}
const SLOTS_PER_SIDE = 8;

const sidesOf = <T>(operations: Sides<T>): Side[] =>
  (["subject", "bare", "limit"] as const).filter((side) => operations[side] !== undefined);

function bySide<T>(sides: Side[], figure: (side: Side) => T): Sides<T> {
  const bare = sides.includes("bare") ? { bare: figure("bare") } : {};
  return { subject: figure("subject"), limit: figure("limit"), ...bare };
}

/** p50 and p99 of sequential calls of every side, in alternating slots. */
export async function pairedLatency(operations: Sides<Operation>, budget: Budget): Promise<Sides<Latency>> {
  const sides = sidesOf(operations);
  for (const side of sides) await runFor(budget.warmupMs, operations[side]!);
  const perSlot = Math.ceil(budget.sequentialCalls / SLOTS_PER_SIDE);
  const samples = new Map(sides.map((side) => [side, new Float64Array(perSlot * SLOTS_PER_SIDE)]));
  const calls = new Map(sides.map((side) => [side, 0]));
  for (const side of slotsOf(sides)) {
    const operation = operations[side]!;
    const own = samples.get(side)!;
    let count = calls.get(side)!;
    const end = performance.now() + budget.sequentialMs / SLOTS_PER_SIDE;
    for (let slotCalls = 0; slotCalls < perSlot && performance.now() < end; slotCalls++) {
      const start = performance.now();
      await operation();
      own[count++] = performance.now() - start;
    }
    calls.set(side, count);
  }
  const latency = (side: Side): Latency => {
    const count = calls.get(side)!;
    const sorted = samples.get(side)!.subarray(0, count).sort();
    return { calls: count, p50Ms: percentile(sorted, 0.5), p99Ms: percentile(sorted, 0.99) };
  };
  return bySide(sides, latency);
}

export interface SideThroughput extends Throughput {
  /** CPU time the side's serving process spent in the side's slots, in microseconds. */
  cpuMicros?: number;
}

/**
 * Throughput of every side with `inFlight` callers each, in alternating slots that add up to
 * `budget.throughputMs` per side. `cpuMicros` reads the CPU time of the process serving a side.
 */
export async function pairedThroughput(
  operations: Sides<Operation>,
  inFlight: number,
  budget: Budget,
  cpuMicros: Partial<Record<Side, () => number | undefined>> = {},
): Promise<Sides<SideThroughput>> {
  const sides = sidesOf(operations);
  for (const side of sides) await throughputRun(operations[side]!, inFlight, budget.warmupMs);
  const totals = new Map(sides.map((side) => [side, { calls: 0, ms: 0, cpu: 0 as number | undefined }]));
  for (const side of slotsOf(sides)) {
    const total = totals.get(side)!;
    const read = cpuMicros[side];
    const cpuBefore = read?.();
    const { calls, ms } = await throughputRun(
      operations[side]!,
      inFlight,
      budget.throughputMs / SLOTS_PER_SIDE,
    );
    const cpuAfter = read?.();
    total.calls += calls;
    total.ms += ms;
    total.cpu =
      total.cpu === undefined || cpuBefore === undefined || cpuAfter === undefined
        ? undefined
        : total.cpu + cpuAfter - cpuBefore;
  }
  const result = (side: Side): SideThroughput => {
    const { calls, ms, cpu } = totals.get(side)!;
    return { perSecond: calls / (ms / 1000), calls, cpuMicros: cpu };
  };
  return bySide(sides, result);
}

export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
