// SharedStore on Redis (--redis-url), for replicas that must see the same grants and single-use marks.
// Loaded only when --redis-url is set (cli.ts imports this module dynamically), so a server without it
// neither loads nor bundles the client into its start. Every failure becomes a StoreUnavailableError,
// and every call ends within a bound, whatever state the connection is in.
import { createClient } from "@redis/client";
import { log } from "../log.js";
import { evictionProblem } from "./eviction.js";
import { EPOCH_SCRIPT, evictedSince, INFO_DENIED, type Incarnation, incarnationOf } from "./incarnation.js";
import { type SharedStore, StoreUnavailableError } from "./store.js";

/** Every key this server writes starts with this, so it can share a Redis database with other programs. */
export const KEY_PREFIX = "agent-workspace-mcp:";

export interface RedisStoreOptions {
  /** A TCP connection attempt that takes longer is abandoned (and retried). Default 2 s. */
  connectTimeoutMs?: number;
  /** A call not answered within this fails with StoreUnavailableError. Default 2 s. */
  commandTimeoutMs?: number;
  /** The longest wait between two reconnection attempts (they back off from 50 ms). Default 2 s. */
  maxReconnectDelayMs?: number;
  /** How often the eviction policy is read again while connected (it is read at every connect too). Default 60 s. */
  policyCheckMs?: number;
}

export interface RedisStore extends SharedStore {
  /** Connected and ready for commands: what /readyz reports. */
  readonly reachable: boolean;
  /** Set while the Redis may evict keys (src/state/eviction.ts): single-use steps are refused, /readyz is 503. */
  readonly evicting: string | undefined;
  /**
   * What the first connection found wrong with the eviction policy, or undefined when it found nothing
   * wrong or no connection was made within connectTimeoutMs + commandTimeoutMs (then it is read when one is).
   */
  readonly startProblem: Promise<string | undefined>;
}

/** docs/hosting.md restates these (test/state/store.test.ts holds it to them). */
export const REDIS_STORE_DEFAULTS: Required<RedisStoreOptions> = {
  connectTimeoutMs: 2_000,
  commandTimeoutMs: 2_000,
  maxReconnectDelayMs: 2_000,
  policyCheckMs: 60_000,
};

/** The first wait before reconnecting; each next one doubles, up to maxReconnectDelayMs. */
export const FIRST_RECONNECT_DELAY_MS = 50;

/** Commands waiting at once, at most: while Redis hangs, more fail at once rather than pile up. */
const MAX_QUEUED_COMMANDS = 10_000;

/** Compare-and-set in one step: Redis runs a script whole, with no other command between its calls. */
const SWAP_SCRIPT = `if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  return 1
end
return 0`;

/** A counter that expires ttl after its first increment (INCR, and PEXPIRE when it starts). */
const INCREMENT_SCRIPT = `local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return count`;

/** The URL as it may be shown: scheme, host, port and database, never a user name or password. */
export function describeRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname === "/" ? "" : parsed.pathname}`;
  } catch {
    return "(an unparsable URL)";
  }
}

/** An error's message with anything that looks like URL credentials removed, bounded in length. */
function safeMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/[a-z][a-z0-9+.-]*:\/\/[^\s/@]*@/gi, "redis://***@").slice(0, 200);
}

/**
 * A store on the Redis at `url` (redis:// or rediss://, credentials and database number in the URL).
 * Returns at once: the connection is made, and remade after any loss, in the background; until it is
 * up, calls fail fast with StoreUnavailableError (no command is queued for later).
 */
export function redisStore(url: string, options: RedisStoreOptions = {}): RedisStore {
  const { connectTimeoutMs, commandTimeoutMs, maxReconnectDelayMs, policyCheckMs } = {
    ...REDIS_STORE_DEFAULTS,
    ...options,
  };
  const where = describeRedisUrl(url);
  const client = createClient({
    url,
    socket: {
      connectTimeout: connectTimeoutMs,
      // Forever, backing off to maxReconnectDelayMs: a Redis that comes back is used again.
      reconnectStrategy: (retries) =>
        Math.min(FIRST_RECONNECT_DELAY_MS * 2 ** Math.min(retries, 10), maxReconnectDelayMs),
    },
    disableOfflineQueue: true,
    commandsQueueMaxLength: MAX_QUEUED_COMMANDS,
    // Plain Redis: no CLIENT SETINFO (7.2+) and no Enterprise maintenance notices in the handshake.
    disableClientInfo: true,
    maintNotifications: "disabled",
  });
  let down = false;
  let closing = false;
  let settleStart: (problem: string | undefined) => void = () => {};
  // Without a listener an 'error' event would throw and end the process; one line per outage instead.
  client.on("error", (error: unknown) => {
    // Not reachable at start: the server starts, and the policy is read when Redis is reached.
    settleStart(undefined);
    if (down || closing) return;
    down = true;
    log("warn", "shared state store unreachable", { redis: where, error: safeMessage(error) });
  });
  client.on("ready", () => {
    if (down) log("info", "shared state store reachable again", { redis: where });
    down = false;
    // A reconnect may reach another Redis (a failover) or one reconfigured: its policy is read again.
    recheck();
  });
  const connecting = client.connect().catch((error: unknown) => {
    // Only a closed client or a refused handshake ends the attempts; calls then fail as unavailable.
    if (!closing) log("error", "shared state store: connection given up", { error: safeMessage(error) });
  });

  /** Runs one command within commandTimeoutMs; any failure is a StoreUnavailableError. */
  async function bounded<T>(command: () => Promise<T>): Promise<T> {
    if (!client.isReady) throw new StoreUnavailableError("not connected");
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new StoreUnavailableError(`no answer within ${commandTimeoutMs} ms`)),
        commandTimeoutMs,
      );
    });
    try {
      return await Promise.race([command(), deadline]);
    } catch (error) {
      if (error instanceof StoreUnavailableError) throw error;
      throw new StoreUnavailableError(safeMessage(error), { cause: error });
    } finally {
      clearTimeout(timer);
    }
  }

  // The eviction policy and the Redis process (src/state/incarnation.ts), read with INFO at each
  // connect and every policyCheckMs; a single-use step waits for the reading in flight, and one that
  // failed is read again by the next step.
  let evicting: string | undefined;
  let incarnation: Incarnation | undefined;
  let policy: Promise<string | undefined> | undefined;
  const readInfo = async (): Promise<string> => {
    try {
      return String(await bounded(() => client.info()));
    } catch (error) {
      // A user denied INFO: said once, and every single-use step refused (fail closed), /readyz 503.
      if (!(error instanceof StoreUnavailableError && /\bNOPERM\b/.test(error.message))) throw error;
      if (evicting !== INFO_DENIED)
        log("error", "shared state store: INFO refused", { redis: where, problem: INFO_DENIED });
      evicting = INFO_DENIED;
      return "";
    }
  };
  const readPolicy = async (): Promise<string | undefined> => {
    try {
      const info = await readInfo();
      if (info === "") return INFO_DENIED;
      const now = incarnationOf(info);
      const problem = now
        ? evictionProblem(info)
        : "the Redis at --redis-url reports no run_id in INFO: a restart could not be told apart, so single-use steps are refused";
      if (now && evictedSince(incarnation, now)) {
        log(
          "error",
          "shared state store evicted keys: a new epoch, so sign-ins and pending confirmations start over",
          {
            redis: where,
            evictedKeys: now.evictedKeys,
          },
        );
      } else if (now && incarnation && now.runId !== incarnation.runId) {
        log("warn", "shared state store restarted or failed over: a new epoch, so everyone signs in again", {
          redis: where,
        });
      }
      if (now) incarnation = now;
      if (problem && problem !== evicting) {
        log("error", "shared state store may evict keys: single-use steps are refused", {
          redis: where,
          problem,
        });
      } else if (!problem && evicting)
        log("info", "shared state store evicts no keys again", { redis: where });
      evicting = problem;
      return problem;
    } catch (error) {
      policy = undefined;
      throw error;
    }
  };
  const policyProblem = () => (policy ??= readPolicy());
  const startProblem = new Promise<string | undefined>((resolve) => {
    settleStart = resolve;
  });
  function recheck() {
    policy = undefined;
    // A user denied INFO is no start refusal: /readyz says it (503), and single-use steps are refused.
    policyProblem().then(
      (problem) => settleStart(problem === INFO_DENIED ? undefined : problem),
      () => settleStart(undefined),
    );
  }
  const startWait = setTimeout(() => settleStart(undefined), connectTimeoutMs + commandTimeoutMs);
  startWait.unref();
  const periodic = setInterval(() => {
    if (client.isReady) recheck();
  }, policyCheckMs);
  periodic.unref();

  /** A single-use step: refused while Redis may evict the mark it rests on. */
  async function singleUse<T>(command: () => Promise<T>): Promise<T> {
    const problem = await policyProblem();
    if (problem) throw new StoreUnavailableError(problem);
    return bounded(command);
  }

  const key = (name: string) => `${KEY_PREFIX}${name}`;
  const ms = (ttlMs: number) => String(Math.max(1, Math.ceil(ttlMs)));
  // Redis takes whole milliseconds, at least one.
  const px = (ttlMs: number) => ({ type: "PX" as const, value: Math.max(1, Math.ceil(ttlMs)) });
  const text = (reply: unknown) => (reply === null || reply === undefined ? undefined : String(reply));

  return {
    get reachable() {
      return client.isReady;
    },
    get evicting() {
      return evicting;
    },
    startProblem,
    get: (name) => bounded(async () => text(await client.get(key(name)))),
    set: (name, value, ttlMs) =>
      bounded(async () => {
        await client.set(key(name), value, { expiration: px(ttlMs) });
      }),
    setIfAbsent: (name, value, ttlMs) =>
      singleUse(
        async () => (await client.set(key(name), value, { expiration: px(ttlMs), condition: "NX" })) === "OK",
      ),
    take: (name) => singleUse(async () => text(await client.getDel(key(name)))),
    swap: (name, expected, value, ttlMs) =>
      singleUse(
        async () =>
          (await client.eval(SWAP_SCRIPT, { keys: [key(name)], arguments: [expected, value, ms(ttlMs)] })) ===
          1,
      ),
    increment: (name, ttlMs) =>
      bounded(async () =>
        Number(await client.eval(INCREMENT_SCRIPT, { keys: [key(name)], arguments: [ms(ttlMs)] })),
      ),
    epoch: (fresh, ttlMs) =>
      bounded(async () =>
        String(await client.eval(EPOCH_SCRIPT, { keys: [key("epoch")], arguments: [fresh, ms(ttlMs)] })),
      ),
    delete: (name) =>
      bounded(async () => {
        await client.del(key(name));
      }),
    async close() {
      if (closing) return;
      closing = true;
      clearInterval(periodic);
      clearTimeout(startWait);
      settleStart(undefined);
      // destroy, not quit: it also ends a connection attempt in progress, and waits for nothing.
      client.destroy();
      await connecting;
    },
  };
}
