// Whether a Redis may evict keys. A single-use mark that Redis evicts before it expires is forgotten
// while the epoch key (read often, so rarely the one chosen) stays: the step could then be taken twice.
// Only `maxmemory-policy noeviction` keeps every key until it expires, so any other policy is refused.
// The policy is read from `INFO memory`, which works where CONFIG is renamed or disabled.

/** The one policy under which Redis never drops a key before its expiry. */
export const SAFE_POLICY = "noeviction";

/** The value of `maxmemory_policy` in an `INFO memory` reply, or undefined when the line is absent. */
export function evictionPolicyOf(info: string): string | undefined {
  const line = /^maxmemory_policy:(.*)$/m.exec(info);
  return line?.[1]?.trim().slice(0, 40) || undefined;
}

/**
 * What is wrong with a Redis whose `INFO memory` reads `info`, in words for an operator; undefined
 * when it evicts nothing. A reply that names no policy is refused too: nothing says keys are kept.
 */
export function evictionProblem(info: string): string | undefined {
  const policy = evictionPolicyOf(info);
  if (policy === SAFE_POLICY) return undefined;
  const said = policy === undefined ? "reports no maxmemory-policy" : `has maxmemory-policy ${policy}`;
  return `the Redis at --redis-url ${said}: it may evict a single-use mark before it expires, so a write confirmation or a sign-in step could be accepted twice; set maxmemory-policy noeviction (redis.conf, or CONFIG SET maxmemory-policy noeviction)`;
}
