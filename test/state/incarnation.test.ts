// The Redis process the store reads from INFO (run_id, evicted_keys): what makes a new epoch, on the
// text of a fake INFO reply as Redis 7 writes it.
import { describe, expect, it } from "vitest";
import { evictedSince, incarnationOf, infoField } from "../../src/state/incarnation.js";

/** A default `INFO` reply (CRLF lines), with the given run_id and evicted_keys lines. */
const info = (runLine: string, evictedLine = "evicted_keys:0") =>
  `# Server\r\nredis_version:7.0.15\r\n${runLine}\r\ntcp_port:6379\r\n\r\n# Memory\r\nmaxmemory_policy:noeviction\r\n\r\n# Stats\r\nexpired_keys:3\r\n${evictedLine}\r\nevicted_clients:0\r\n`;
const RUN_A = "f8687b32d19137be100b75c3dc6e4d9346dc6a1b";
const RUN_B = "00c7a2f0be1de4e1a3a0dd2f1a5c0e8d6f4b9e21";

describe("the Redis process read from INFO", () => {
  it("reads run_id and evicted_keys, each its own line", () => {
    expect(incarnationOf(info(`run_id:${RUN_A}`, "evicted_keys:17"))).toEqual({
      runId: RUN_A,
      evictedKeys: 17,
    });
    expect(infoField(info(`run_id:${RUN_A}`), "evicted_keys")).toBe("0");
    // evicted_clients is another field: only the exact name counts.
    expect(infoField(info(`run_id:${RUN_A}`, "x:1"), "evicted_keys")).toBeUndefined();
  });

  it("names no process when run_id is absent, empty or not an id", () => {
    for (const text of [info("run_idx:1"), info("run_id:"), info("run_id:a b"), ""])
      expect(incarnationOf(text), text).toBeUndefined();
  });

  it("a reply without evicted_keys counts none", () => {
    expect(incarnationOf(`run_id:${RUN_A}\r\n`)).toEqual({ runId: RUN_A, evictedKeys: 0 });
  });

  it("a new epoch for keys evicted since the last reading of the same process only", () => {
    const at = (runId: string, evictedKeys: number) => ({ runId, evictedKeys });
    expect(evictedSince(at(RUN_A, 0), at(RUN_A, 1))).toBe(true);
    expect(evictedSince(at(RUN_A, 4), at(RUN_A, 4))).toBe(false);
    // CONFIG RESETSTAT set it back: nothing seen (best effort).
    expect(evictedSince(at(RUN_A, 4), at(RUN_A, 0))).toBe(false);
    // Another process, or the first reading: a restart, not an eviction (the run_id makes the new epoch).
    expect(evictedSince(at(RUN_A, 0), at(RUN_B, 9))).toBe(false);
    expect(evictedSince(undefined, at(RUN_A, 9))).toBe(false);
  });
});
