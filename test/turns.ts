// A bound on work started at once, for test files that start several processes together.

/**
 * Runs what it is given at most `limit` at a time, in the order given: for a file that starts several
 * processes at once, so that it overlaps their waits without crowding the cores its neighbours share.
 */
export function takingTurns(limit: number): <T>(run: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (run) => {
    // A finishing run hands its place straight to the next in line.
    if (running < limit) running++;
    else await new Promise<void>((turn) => waiting.push(turn));
    try {
      return await run();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}
