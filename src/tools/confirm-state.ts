// The state a write confirmation travels with (requestState): sealed with a keyed MAC (the SDK's
// HMAC-SHA256 requestState codec) under the server's keys, bound to the tool, the arguments in
// canonical form and the default project, valid for a few minutes, and good for one answer only (its
// nonce is marked used in the shared store), under the store's epoch (state/epoch.ts): a store that
// lost its marks refuses every state sealed before. A client can read it but not forge, alter or reuse it.
// Questions and answers count against their key's budget per minute, so the marks one person can
// leave in the store are bounded (CONFIRMATIONS_PER_MINUTE times a mark's life); over HTTP first
// against the request's address, since a key is anyone's to make up: junk keys from one address share
// its budget, and a refused call writes no key's counter and no mark.
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { createRequestStateCodec, type RequestStateCodec } from "@modelcontextprotocol/server";
import { storeEpoch } from "../state/epoch.js";
import { RateLimited, RateLimiter } from "../state/rate-limit.js";
import { CONFIRMATION_MARK_PREFIX, memoryStore, type SharedStore } from "../state/store.js";

/** How long a question stays answerable: long enough to read 8000 characters, short enough to go stale. */
export const CONFIRMATION_TTL_SECONDS = 600;
/** Questions asked plus answers spent per key and minute: a person confirms far fewer writes than this. */
export const CONFIRMATIONS_PER_MINUTE = 30;
/**
 * Questions and answers per client address and minute over HTTP: two keys' worth, since an office
 * behind one address shares it (a proxy in front must be named in --trusted-proxies, or every client
 * shares the proxy's).
 */
export const CONFIRMATIONS_PER_ADDRESS = 2 * CONFIRMATIONS_PER_MINUTE;
/** How long a used answer's mark is kept: its question's life and a minute of clock skew. */
const MARK_TTL_MS = (CONFIRMATION_TTL_SECONDS + 60) * 1000;

/** What a sealed state says: which call it is for, and its one-use nonce. */
interface ConfirmationPayload {
  tool: string;
  /** SHA-256 of the canonical JSON of [tool, arguments, default project]. */
  call: string;
  nonce: string;
  /** The store's epoch when it was sealed: the nonce's mark is good only in that epoch. */
  epoch: string;
}

/** Past a budget: whose (the key's, or the request's address's), and when to try again. */
export class TooManyConfirmations extends RateLimited {
  constructor(
    readonly per: "key" | "address",
    retryAfterSeconds: number,
  ) {
    super(retryAfterSeconds);
  }
}

/**
 * Why an echoed state does not count: not ours (or altered), past its time, for another call, sealed
 * before the store lost its marks (a Redis restarted empty, a new process), used.
 */
export type StateProblem = "forged" | "expired" | "other call" | "stale" | "used";

/** JSON with every object's keys in code-point order, so equal arguments give equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

function callDigest(tool: string, args: Record<string, unknown>, defaultProject: string | undefined): string {
  return createHash("sha256")
    .update(canonicalJson([tool, args, defaultProject ?? null]))
    .digest("base64url");
}

/** Whose budget a confirmation counts against: a digest of the API key the calls go out with. */
export function confirmationOwner(apiKey: string | undefined): string {
  return createHash("sha256")
    .update(apiKey ?? "")
    .digest("base64url")
    .slice(0, 22);
}

/**
 * Seals and opens confirmation states; one per set of keys and store, shared by every server of a
 * process, and a view of it per owner (forOwner) that counts against that owner's budget.
 */
export class ConfirmationSeal {
  private readonly codecs: RequestStateCodec<ConfirmationPayload>[];
  private readonly limiter: RateLimiter;
  private owner = "";
  private address: string | undefined;

  /**
   * `keys`: the first signs, every one verifies (rotation: put the new key first, keep the old one
   * until its states have expired). Each at least 32 bytes.
   */
  constructor(
    keys: readonly Uint8Array[],
    private readonly store: SharedStore,
  ) {
    if (keys.length === 0) throw new RangeError("confirmation keys: at least one is needed");
    this.codecs = keys.map((key) =>
      createRequestStateCodec<ConfirmationPayload>({ key, ttlSeconds: CONFIRMATION_TTL_SECONDS }),
    );
    this.limiter = new RateLimiter(store);
  }

  /** The same seal (keys, store, limiter), counting against `owner`'s budget (confirmationOwner). */
  forOwner(owner: string): ConfirmationSeal {
    const view = Object.create(this) as ConfirmationSeal;
    view.owner = owner;
    return view;
  }

  /** The same seal, counting first against the address of the request (HTTP); as it is without one (stdio). */
  fromAddress(address: string | undefined): ConfirmationSeal {
    if (address === undefined) return this;
    const view = Object.create(this) as ConfirmationSeal;
    view.address = address;
    return view;
  }

  /**
   * One question or answer: against the request's address first, so that a refused one writes no
   * counter of its key; then against the owner. TooManyConfirmations past either budget.
   */
  private async count(): Promise<void> {
    if (this.address !== undefined) {
      await this.hit(`confirm:address:${this.address}`, CONFIRMATIONS_PER_ADDRESS, "address");
    }
    await this.hit(`confirm:${this.owner}`, CONFIRMATIONS_PER_MINUTE, "key");
  }

  private async hit(bucket: string, perMinute: number, per: "key" | "address"): Promise<void> {
    try {
      await this.limiter.hit(bucket, perMinute);
    } catch (error) {
      if (error instanceof RateLimited) throw new TooManyConfirmations(per, error.retryAfterSeconds);
      throw error;
    }
  }

  /** A state for the question about this call; RateLimited when its owner asked and answered too often. */
  async seal(
    tool: string,
    args: Record<string, unknown>,
    defaultProject: string | undefined,
  ): Promise<string> {
    await this.count();
    const epoch = await storeEpoch(this.store);
    const payload = { tool, call: callDigest(tool, args, defaultProject), nonce: randomUUID(), epoch };
    return (this.codecs[0] as RequestStateCodec<ConfirmationPayload>).mint(payload);
  }

  /**
   * Undefined when `state` is a state this server sealed for exactly this call, in time, never used
   * before; it is then used up. Otherwise why not. RateLimited (nothing marked) past the owner's budget.
   */
  async spend(
    state: string | undefined,
    tool: string,
    args: Record<string, unknown>,
    defaultProject: string | undefined,
  ): Promise<StateProblem | undefined> {
    if (state === undefined || state.length > 4096) return "forged";
    const payload = await this.open(state);
    if (typeof payload === "string") return payload;
    if (payload.tool !== tool || payload.call !== callDigest(tool, args, defaultProject)) return "other call";
    if (typeof payload.nonce !== "string" || typeof payload.epoch !== "string") return "forged";
    await this.count();
    const first = await this.store.setIfAbsent(
      `${CONFIRMATION_MARK_PREFIX}${payload.nonce}`,
      "used",
      MARK_TTL_MS,
    );
    if (!first) return "used";
    // Read after the mark is set: a store that lost its marks at any time before (even between the
    // two calls) has a new epoch by then, so an answer it once spent is never spent again.
    return payload.epoch === (await storeEpoch(this.store)) ? undefined : "stale";
  }

  /** The payload under the first key whose MAC matches; "forged" when none does. */
  private async open(state: string): Promise<ConfirmationPayload | "forged" | "expired"> {
    for (const codec of this.codecs) {
      try {
        // No binding callback is configured, so verify never reads its context.
        const payload = await codec.verify(state, undefined as never);
        return payload !== null && typeof payload === "object" ? payload : "forged";
      } catch (error) {
        if ((error as Error).message === "expired") return "expired";
      }
    }
    return "forged";
  }
}

const seals = new WeakMap<readonly Uint8Array[], WeakMap<SharedStore, ConfirmationSeal>>();

/** The seal for these keys and this store, made once: stateless HTTP builds a server per request. */
export function confirmationSeal(keys: readonly Uint8Array[], store: SharedStore): ConfirmationSeal {
  const byStore = seals.get(keys) ?? new WeakMap<SharedStore, ConfirmationSeal>();
  seals.set(keys, byStore);
  const seal = byStore.get(store) ?? new ConfirmationSeal(keys, store);
  byStore.set(store, seal);
  return seal;
}

/** One process's defaults: a random key and an in-memory store, good while one process serves every round. */
export const processDefaults: { keys: readonly Uint8Array[]; store: SharedStore } = {
  keys: [randomBytes(32)],
  store: memoryStore(),
};
