// The sign-in rate limits shared through Redis: two replicas of the built CLI behind nginx
// (deploy/nginx.conf, which sets X-Forwarded-For), one Redis, --oauth-rate-limit 10 and nginx's address
// as the trusted proxy. Requests split across both replicas count against one budget; behind nginx,
// each client address has its own; Redis holds the counters under a one-minute expiry.
import { setTimeout as sleep } from "node:timers/promises";
import { createClient } from "@redis/client";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { RATE_WINDOW_MS } from "../../src/state/rate-limit.js";
import { KEY_PREFIX } from "../../src/state/redis.js";
import { TEST_SECRET } from "../oauth-harness.js";
import type { RedisServer } from "../redis-server.js";
import {
  oauthReplicaArgs,
  type Replica,
  type ReplicaSet,
  type SharedReplicas,
  startSharedReplicas,
} from "../replicas.js";

const LIMIT = 10;

/** One registration at `origin`, as if from `forwardedFor` when given: its status. */
async function register(origin: string, forwardedFor?: string): Promise<number> {
  const answer = await fetch(`${origin}/register`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(forwardedFor && { "x-forwarded-for": forwardedFor }) },
    body: JSON.stringify({
      redirect_uris: ["http://127.0.0.1:53682/callback"],
      token_endpoint_auth_method: "none",
    }),
  });
  await answer.body?.cancel();
  return answer.status;
}

/** A form POSTed straight to a replica from the trusted proxy's address, naming `forwardedFor`: its status. */
async function postFrom(url: string, fields: Record<string, string>, forwardedFor: string): Promise<number> {
  const answer = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": forwardedFor },
    body: new URLSearchParams(fields),
  });
  await answer.body?.cancel();
  return answer.status;
}

/** Starts a test early enough in a one-minute window that its requests all fall in that window. */
async function freshWindow(): Promise<void> {
  const left = RATE_WINDOW_MS - (Date.now() % RATE_WINDOW_MS);
  if (left < 20_000) await sleep(left + 50);
}

describe("sign-in rate limits shared by two replicas through Redis", () => {
  let redis: RedisServer;
  let set: ReplicaSet;
  let first: Replica;
  let second: Replica;
  let shared: SharedReplicas;

  beforeAll(async () => {
    shared = await startSharedReplicas({
      count: 2,
      env: { MCP_OAUTH_SECRET: TEST_SECRET },
      args: (front) => oauthReplicaArgs(front, LIMIT, "--trusted-proxies", "127.0.0.1"),
    });
    ({ redis, set } = shared);
    [first, second] = set.replicas as [Replica, Replica];
  });
  afterAll(() => shared?.close());
  beforeEach(freshWindow);

  it(`${LIMIT} requests split across both replicas use the one budget: the next gets 429 at either`, async () => {
    const statuses: number[] = [];
    // Straight to the replicas, X-Forwarded-For from 127.0.0.1 (trusted) naming one client.
    for (let i = 0; i < LIMIT + 2; i++) {
      const replica = i % 2 === 0 ? first : second;
      statuses.push(await register(new URL(replica.mcpUrl).origin, "192.0.2.10"));
    }
    expect(statuses).toEqual([...Array(LIMIT).fill(201), 429, 429]);
    const raw = createClient({ url: redis.url });
    await raw.connect();
    try {
      const counters = await raw.keys(`${KEY_PREFIX}ratelimit:register:address:192.0.2.10:*`);
      expect(counters).toHaveLength(1);
      expect(await raw.get(counters[0]!)).toBe(String(LIMIT + 2));
      const ttl = await raw.pTTL(counters[0]!);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(RATE_WINDOW_MS);
    } finally {
      raw.destroy();
    }
  });

  it("behind nginx, each client address has its own budget, whatever it claims further left", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT + 1; i++)
      statuses.push(await register(set.front, `198.51.100.${i}, 203.0.113.20`));
    expect(statuses).toEqual([...Array(LIMIT).fill(201), 429]);
    expect(await register(set.front, "203.0.113.21")).toBe(201);
  });

  it("anonymous requests naming a public client, or junk client ids, leave Redis one counter per address (IPv6 per /64) and endpoint", async () => {
    const origins = [first, second].map((replica) => new URL(replica.mcpUrl).origin);
    const victim = await fetch(`${set.front}/register`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": "192.0.2.99" },
      body: JSON.stringify({
        redirect_uris: ["http://127.0.0.1:53682/callback"],
        token_endpoint_auth_method: "none",
      }),
    }).then((answer) => answer.json() as Promise<{ client_id: string }>);
    const addresses = [
      "192.0.2.31",
      "192.0.2.32",
      ...Array.from({ length: 12 }, (_, i) => `2001:db8:aa:bb::${i + 1}`),
    ];
    for (const [a, address] of addresses.entries()) {
      for (let i = 0; i < 3; i++) {
        const origin = origins[(a + i) % 2] as string;
        const clientId = i === 0 ? victim.client_id : `junk-${a}-${i}-${"z".repeat(60)}`;
        await postFrom(`${origin}/token`, { grant_type: "password", client_id: clientId }, address);
        const page = await fetch(`${origin}/authorize?client_id=${encodeURIComponent(clientId)}`, {
          headers: { "x-forwarded-for": address },
        });
        await page.body?.cancel();
      }
    }
    // The victim's own request, from its address, is judged on its token, not refused for its id.
    const own = { grant_type: "refresh_token", refresh_token: "not-a-token", client_id: victim.client_id };
    expect(await postFrom(`${origins[1]}/token`, own, "192.0.2.200")).toBe(400);
    const raw = createClient({ url: redis.url });
    await raw.connect();
    try {
      const counters = (await raw.keys(`${KEY_PREFIX}ratelimit:*`))
        .map((key) => key.slice(KEY_PREFIX.length).replace(/:\d+$/, ""))
        .filter((key) => /^ratelimit:(authorize|token):/.test(key));
      expect(counters.sort()).toEqual(
        ["192.0.2.200", "192.0.2.31", "192.0.2.32", "2001:db8:aa:bb::/64"]
          .flatMap((bucket) => [`ratelimit:authorize:address:${bucket}`, `ratelimit:token:address:${bucket}`])
          .filter((key) => key !== "ratelimit:authorize:address:192.0.2.200")
          .sort(),
      );
    } finally {
      raw.destroy();
    }
  });
});
