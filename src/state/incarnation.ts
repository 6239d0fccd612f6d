// Which Redis process the store talks to, read from `INFO` at every connect and periodic check. A Redis
// restarted from an older snapshot (RDB, or an async replica promoted after a failover) holds the epoch
// key but not the single-use marks and revocations made after it: the epoch is tied to the process's
// `run_id` (new at every start) and its data set's `master_replid` (new at a full resync) so that such
// a Redis starts a new epoch. `evicted_keys` growing means a
// mark may be gone too (best effort: CONFIG RESETSTAT or a restart sets it back to 0).

/** One INFO field's value, or undefined when the line is absent. */
export function infoField(info: string, name: string): string | undefined {
  const line = new RegExp(`^${name}:(.*)$`, "m").exec(info);
  return line?.[1]?.trim().slice(0, 64) || undefined;
}

export interface Incarnation {
  /** `run_id`: a random id Redis makes at every start. */
  runId: string;
  /** `evicted_keys` since start (or the last CONFIG RESETSTAT). */
  evictedKeys: number;
}

/** The incarnation an `INFO` reply names, or undefined when it names no usable run_id. */
export function incarnationOf(info: string): Incarnation | undefined {
  const runId = infoField(info, "run_id");
  if (runId === undefined || !/^[0-9a-zA-Z]{1,64}$/.test(runId)) return undefined;
  const evicted = Number(infoField(info, "evicted_keys") ?? "0");
  return { runId, evictedKeys: Number.isSafeInteger(evicted) && evicted >= 0 ? evicted : 0 };
}

/** Whether the store must start a new epoch: keys were evicted since the last reading of the same process. */
export function evictedSince(before: Incarnation | undefined, now: Incarnation): boolean {
  return before !== undefined && before.runId === now.runId && now.evictedKeys > before.evictedKeys;
}

/** What a Redis user that may not run INFO means for the store, in words for an operator (no secret). */
export const INFO_DENIED =
  "the Redis user at --redis-url may not run INFO (NOPERM): the store cannot see its eviction policy or a restart, so single-use steps are refused; allow it +info (ACL SETUSER <user> +info)";

/**
 * Returns the epoch in one step, reading the Redis process's own INFO inside the script (no stale
 * reading from before a reconnect): kept while it was made by this process (run_id) over this data set
 * (master_replid, new at a full resync: a Redis that took an older copy from another under the same
 * run_id) and no key was evicted since (evicted_keys); else replaced by ARGV[1] for ARGV[2] ms. A
 * policy that may evict fails it, so a single-use step refuses between two periodic checks too. Two replicas agree: the first
 * to find it stale replaces it, the other then finds it current.
 */
export const EPOCH_SCRIPT = `local process = string.match(redis.call('INFO', 'server'), 'run_id:(%w+)')
if not process then return redis.error_reply('ERR no run_id in INFO') end
local policy = string.match(redis.call('INFO', 'memory'), 'maxmemory_policy:(%S+)')
if policy ~= 'noeviction' then return redis.error_reply('ERR maxmemory-policy is not noeviction') end
local run = process .. (string.match(redis.call('INFO', 'replication'), 'master_replid:(%w+)') or '')
local evicted = tonumber(string.match(redis.call('INFO', 'stats'), 'evicted_keys:(%d+)') or '0')
local stored = redis.call('GET', KEYS[1])
if stored then
  local madeBy, evictedThen, value = string.match(stored, '^(%w+)|(%d+)|(.+)$')
  if madeBy == run and tonumber(evictedThen) >= evicted then return value end
end
redis.call('SET', KEYS[1], run .. '|' .. evicted .. '|' .. ARGV[1], 'PX', ARGV[2])
return ARGV[1]`;
