// The eviction policy check on `INFO memory` text: only noeviction passes; any other policy, or none
// said, is a problem that names the policy and the setting that fixes it.
import { describe, expect, it } from "vitest";
import { evictionPolicyOf, evictionProblem } from "../../src/state/eviction.js";

/** An `INFO memory` reply as Redis 7 writes it (CRLF lines), with the given policy line. */
const info = (policyLine: string) =>
  `# Memory\r\nused_memory:1013456\r\nmaxmemory:3145728\r\nmaxmemory_human:3.00M\r\n${policyLine}\r\nallocator_frag_ratio:1.10\r\n`;

describe("the eviction policy check", () => {
  it("passes noeviction", () => {
    expect(evictionPolicyOf(info("maxmemory_policy:noeviction"))).toBe("noeviction");
    expect(evictionProblem(info("maxmemory_policy:noeviction"))).toBeUndefined();
  });

  it.each([
    "volatile-ttl",
    "volatile-lru",
    "allkeys-lru",
    "volatile-lfu",
    "allkeys-lfu",
    "allkeys-random",
    "volatile-random",
  ])("refuses %s, naming it and the fix", (policy) => {
    expect(evictionPolicyOf(info(`maxmemory_policy:${policy}`))).toBe(policy);
    expect(evictionProblem(info(`maxmemory_policy:${policy}`))).toBe(
      `the Redis at --redis-url has maxmemory-policy ${policy}: it may evict a single-use mark before it expires, so a write confirmation or a sign-in step could be accepted twice; set maxmemory-policy noeviction (redis.conf, or CONFIG SET maxmemory-policy noeviction)`,
    );
  });

  it("refuses a reply that names no policy, or an empty one", () => {
    for (const text of [info("maxmemory_policy:"), "# Memory\r\nused_memory:1\r\n", ""]) {
      expect(evictionPolicyOf(text)).toBeUndefined();
      expect(evictionProblem(text)).toMatch(
        /^the Redis at --redis-url reports no maxmemory-policy: .* set maxmemory-policy noeviction/,
      );
    }
  });

  it("reads the policy line only, not a field that ends with its name", () => {
    const text = "x_maxmemory_policy:noeviction\r\nmaxmemory_policy:allkeys-lru\r\n";
    expect(evictionPolicyOf(text)).toBe("allkeys-lru");
    expect(evictionProblem("x_maxmemory_policy:noeviction\r\n")).toContain("reports no maxmemory-policy");
  });
});
