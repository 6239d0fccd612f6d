// The sign-in endpoints' rate limits and client metadata fetches an anonymous caller drives: a flood
// from one address gets 429 with Retry-After (a page on /authorize, the OAuth error JSON elsewhere)
// while signed-in /mcp calls are served; a client id has a budget of its own; X-Forwarded-For counts
// only from a trusted proxy, right-most untrusted entry first; a metadata document is fetched once per
// URL (no query string), at most so often for one address's requests (never per host, a budget anyone
// could spend for the host's real client), and every failed fetch reads the same.
import { createServer as createHttpServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { createServer as createTcpServer, type Server, type Socket } from "node:net";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { clientAddress, trustedProxies } from "../../src/oauth/client-address.js";
import {
  METADATA_FAILURE_CACHE_MS,
  METADATA_FETCH_FAILED,
  METADATA_TIMEOUT_MS,
  metadataClock,
} from "../../src/oauth/metadata-documents.js";
import { CLIENT_ID_FACTOR, METADATA_FETCHES_PER_ADDRESS } from "../../src/oauth/rate-limits.js";
import { SANDBOX_API_KEY, type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { RATE_WINDOW_MS, rateLimitClock } from "../../src/state/rate-limit.js";
import { memoryStore, type SharedStore, StoreUnavailableError } from "../../src/state/store.js";
import {
  consent,
  exchangeAt,
  type OAuthHarness,
  openConsent,
  postConsent,
  postForm,
  rawMcp,
  refreshAt,
  revokeAt,
  signInByHand,
  startFlow,
  startMetadataHost,
  startOAuth,
} from "../oauth-harness.js";

/** The limit these tests set: small, so a flood is a few dozen requests. */
const LIMIT = 5;
/** 15 s into a window: every 429 of these tests says Retry-After: 45. */
const FIXED_NOW = 1_000 * RATE_WINDOW_MS + 15_000;

let sandbox: Sandbox;
const started: OAuthHarness[] = [];
const realClock = rateLimitClock.now;
beforeAll(async () => {
  sandbox = await startSandbox({ record: true });
  rateLimitClock.now = () => FIXED_NOW;
});
afterEach(async () => {
  await Promise.all(started.splice(0).map((server) => server.close()));
});
afterAll(async () => {
  rateLimitClock.now = realClock;
  await sandbox.close();
});

async function serverWith(options: Parameters<typeof startOAuth>[0] = {}): Promise<OAuthHarness> {
  const server = await startOAuth({ sandbox, ...options });
  started.push(server);
  return server;
}

/** `count` requests one after another (a flood that a fixed count can be asserted of). */
async function inTurn<T>(count: number, send: (i: number) => Promise<T>): Promise<T[]> {
  const answers: T[] = [];
  for (let i = 0; i < count; i++) answers.push(await send(i));
  return answers;
}

/** The window FIXED_NOW falls in, as counter keys name it. */
const WINDOW = Math.floor(FIXED_NOW / RATE_WINDOW_MS);

/** A memory store that records the counter keys it is asked to increment. */
function countedStore(): { store: SharedStore; keys: Set<string> } {
  const inner = memoryStore();
  const keys = new Set<string>();
  const store: SharedStore = {
    ...inner,
    increment: (key, ttlMs) => {
      keys.add(key);
      return inner.increment(key, ttlMs);
    },
  };
  return { store, keys };
}

/** A form POSTed through the trusted proxy on behalf of `address`; its status. */
async function postFrom(url: string, fields: Record<string, string>, address: string): Promise<number> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": address },
    body: new URLSearchParams(fields),
  });
  await response.arrayBuffer();
  return response.status;
}

const authorizeFrom = (url: URL, forwardedFor?: string) =>
  fetch(url, { redirect: "manual", headers: forwardedFor ? { "x-forwarded-for": forwardedFor } : {} });

describe("a flood from one address", () => {
  it("gets 429 with Retry-After on every endpoint, while the signed-in person's /mcp calls are served", async () => {
    const server = await serverWith({ rateLimitPerMinute: LIMIT });
    // The person signs in first: one registration, three /authorize steps, one code exchange.
    const { tokens } = await signInByHand(server.origin, { workspaceKey: SANDBOX_API_KEY });
    const flow = await startFlow(server.origin, { name: "Flooder" });
    const pages = await inTurn(20, () => authorizeFrom(flow.authorizationUrl));
    // The three consent steps already counted: two more pages, then refusals.
    expect(pages.map((page) => page.status)).toEqual([200, 200, ...Array(18).fill(429)]);
    const refused = pages[2]!;
    expect(refused.headers.get("retry-after")).toBe("45");
    expect(refused.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await refused.text()).toContain("Try again in 45 seconds.");

    const form = { grant_type: "refresh_token", refresh_token: "x", client_id: flow.clientId };
    const tokenAnswers = await inTurn(10, () => postForm(`${server.origin}/token`, form));
    expect(tokenAnswers.map((answer) => answer.status)).toEqual([
      ...Array(LIMIT - 1).fill(400),
      ...Array(6).fill(429),
    ]);
    expect(tokenAnswers[9]!.body).toEqual({
      error: "temporarily_unavailable",
      error_description: "too many requests; try again in 45 s",
    });
    expect(tokenAnswers[9]!.headers.get("retry-after")).toBe("45");
    const registrations = await inTurn(10, () =>
      startFlow(server.origin).then(
        () => 201,
        () => 429,
      ),
    );
    // Two registrations already made: three more, then refusals.
    expect(registrations).toEqual([...Array(LIMIT - 2).fill(201), ...Array(7).fill(429)]);
    const revocations = await inTurn(10, () => revokeAt(server.origin, flow.clientId, "nothing"));
    expect(revocations.map((answer) => answer.status)).toEqual([
      ...Array(LIMIT).fill(200),
      ...Array(5).fill(429),
    ]);

    // The person's calls go on: /mcp is not a sign-in endpoint.
    for (let i = 0; i < 3; i++) {
      expect((await rawMcp(server.url, { authorization: `Bearer ${tokens.access_token}` })).status).toBe(200);
    }
  });

  it("naming a public client's id from many addresses spends nothing of its own: its refresh and a new sign-in go on", async () => {
    // Room for two sign-ins from the test's own address: three /authorize steps each.
    const limit = 8;
    const server = await serverWith({ rateLimitPerMinute: limit, trustedProxies: ["127.0.0.1"] });
    const { flow, tokens } = await signInByHand(server.origin, { workspaceKey: SANDBOX_API_KEY });
    const attackers = Array.from({ length: 11 }, (_, i) => `198.51.100.${i + 1}`);
    for (const address of attackers) {
      const tokenAnswers = await inTurn(limit + 1, () =>
        postFrom(`${server.origin}/token`, { grant_type: "password", client_id: flow.clientId }, address),
      );
      expect(tokenAnswers).toEqual([...Array(limit).fill(400), 429]);
      const bare = new URL(`${server.origin}/authorize`);
      bare.searchParams.set("client_id", flow.clientId);
      const pages = await inTurn(limit + 1, () => authorizeFrom(bare, address).then((page) => page.status));
      expect(pages).toEqual([...Array(limit).fill(400), 429]);
    }
    const refreshed = await refreshAt(server.origin, flow.clientId, tokens.refresh_token);
    expect(refreshed.status).toBe(200);
    const callback = await consent(server.origin, flow.authorizationUrl, { workspaceKey: SANDBOX_API_KEY });
    expect((await exchangeAt(server.origin, flow, callback.get("code") ?? "")).status).toBe(200);
  });

  it("a confidential client's id counts only requests that carry its secret", async () => {
    const { store, keys } = countedStore();
    const server = await serverWith({ rateLimitPerMinute: LIMIT, trustedProxies: ["127.0.0.1"], store });
    const registered = await fetch(`${server.origin}/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        redirect_uris: ["http://127.0.0.1:53682/callback"],
        token_endpoint_auth_method: "client_secret_post",
      }),
    });
    const { client_id, client_secret } = (await registered.json()) as {
      client_id: string;
      client_secret: string;
    };
    const wrong = { grant_type: "refresh_token", refresh_token: "x", client_id, client_secret: "wrong" };
    const refused = await Promise.all(
      Array.from({ length: 20 }, (_, i) => postFrom(`${server.origin}/token`, wrong, `192.0.2.${i + 1}`)),
    );
    expect(refused).toEqual(Array(20).fill(401));
    expect([...keys].filter((key) => key.includes(":client:"))).toEqual([]);
    const right = { ...wrong, client_secret };
    const budget = LIMIT * CLIENT_ID_FACTOR;
    const answers = await inTurn(budget + 1, (i) =>
      postFrom(`${server.origin}/token`, right, `203.0.113.${(i % 50) + 1}`),
    );
    expect(answers).toEqual([...Array(budget).fill(400), 429]);
    // One counter, named by a digest of the (long) client id.
    expect([...keys].filter((key) => key.includes(":client:"))).toEqual([
      expect.stringMatching(new RegExp(`^ratelimit:token:client:[^:]+:${WINDOW}$`)),
    ]);
  });
});

describe("what anonymous requests leave in the store", () => {
  it("junk client ids write no key of their own: at most one counter per address (an IPv6 /64) and endpoint", async () => {
    const { store, keys } = countedStore();
    const server = await serverWith({ rateLimitPerMinute: 1000, trustedProxies: ["127.0.0.1"], store });
    const addresses = [
      "198.51.100.7",
      "203.0.113.9",
      ...Array.from({ length: 8 }, (_, i) => `2001:db8:aa:bb::${i + 1}`),
    ];
    await Promise.all(
      addresses.flatMap((address, a) =>
        Array.from({ length: 5 }, async (_, i) => {
          const junk = `junk-${a}-${i}-${"z".repeat(60)}`;
          const url = new URL(`${server.origin}/authorize`);
          url.searchParams.set("client_id", junk);
          await (await authorizeFrom(url, address)).arrayBuffer();
          await postFrom(
            `${server.origin}/token`,
            { grant_type: "refresh_token", refresh_token: "x", client_id: junk },
            address,
          );
        }),
      ),
    );
    expect([...keys].sort()).toEqual(
      ["198.51.100.7", "2001:db8:aa:bb::/64", "203.0.113.9"]
        .flatMap((bucket) => [
          `ratelimit:authorize:address:${bucket}:${WINDOW}`,
          `ratelimit:token:address:${bucket}:${WINDOW}`,
        ])
        .sort(),
    );
  });
});

describe("a store that cannot count", () => {
  /** A memory store whose counters, or every call, fail as an unreachable Redis does. */
  function failingStore(everything: boolean): SharedStore {
    const inner = memoryStore();
    const down = async (): Promise<never> => {
      throw new StoreUnavailableError("not connected");
    };
    if (everything) {
      return {
        get: down,
        set: down,
        setIfAbsent: down,
        take: down,
        swap: down,
        increment: down,
        delete: down,
        close: inner.close,
      };
    }
    return { ...inner, increment: down };
  }

  it("counts in this process instead: key guesses past the budget never reach the API", async () => {
    const server = await serverWith({ rateLimitPerMinute: LIMIT, store: failingStore(false) });
    const flow = await startFlow(server.origin);
    const page = await openConsent(flow.authorizationUrl);
    expect(page.status).toBe(200);
    sandbox.requests.length = 0;
    const guesses = await inTurn(LIMIT + 2, async (i) => {
      const answer = await postConsent(server.origin, page, { step: "key", workspace_key: `guess-${i}` });
      await answer.arrayBuffer();
      return answer.status;
    });
    // The page counted once: four guesses are checked, the rest refused with nothing sent.
    expect(guesses).toEqual([400, 400, 400, 400, 429, 429, 429]);
    expect(new Set(sandbox.requests.map((r) => r.headers["x-api-key"]))).toEqual(
      new Set(["guess-0", "guess-1", "guess-2", "guess-3"]),
    );
  });

  it("limits registrations with the store down altogether, as it does with the store up", async () => {
    const server = await serverWith({ rateLimitPerMinute: LIMIT, store: failingStore(true) });
    const statuses = await inTurn(LIMIT + 1, async () => {
      const answer = await fetch(`${server.origin}/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          redirect_uris: ["http://127.0.0.1:53682/callback"],
          token_endpoint_auth_method: "none",
        }),
      });
      await answer.arrayBuffer();
      return `${answer.status} ${answer.headers.get("retry-after")}`;
    });
    expect(statuses).toEqual([...Array(LIMIT).fill("201 null"), "429 45"]);
  });

  it("answers /mcp with 503 and Retry-After while the store cannot say whether a token's grant stands", async () => {
    const inner = memoryStore();
    let down = false;
    const store: SharedStore = {
      ...inner,
      get: (key) => (down ? Promise.reject(new StoreUnavailableError("not connected")) : inner.get(key)),
    };
    const server = await serverWith({ store });
    const { tokens } = await signInByHand(server.origin, { workspaceKey: SANDBOX_API_KEY });
    down = true;
    const answer = await rawMcp(server.url, { authorization: `Bearer ${tokens.access_token}` });
    expect(answer.status).toBe(503);
    expect(answer.headers.get("retry-after")).toBe("5");
    expect(JSON.parse(answer.text).error).toEqual({
      code: -32000,
      message: "Service Unavailable: the server cannot check sign-ins right now; try again shortly",
    });
    down = false;
    expect((await rawMcp(server.url, { authorization: `Bearer ${tokens.access_token}` })).status).toBe(200);
  });
});

describe("which address a request counts under", () => {
  it("X-Forwarded-For counts only from a trusted proxy, and only its right-most untrusted entry", async () => {
    const direct = await serverWith({ rateLimitPerMinute: LIMIT });
    const flow = await startFlow(direct.origin);
    // No trusted proxy: the header is the caller's claim, and a new one each time gains nothing.
    const spoofed = await inTurn(LIMIT + 1, (i) =>
      authorizeFrom(flow.authorizationUrl, `203.0.113.${i + 1}`),
    );
    expect(spoofed.map((page) => page.status)).toEqual([...Array(LIMIT).fill(200), 429]);

    const proxied = await serverWith({
      rateLimitPerMinute: LIMIT,
      trustedProxies: ["127.0.0.0/8", "10.0.0.0/8"],
    });
    const proxiedFlow = await startFlow(proxied.origin);
    // Entries left of the one the proxy added are the client's own: they change, the count does not.
    const chains = await inTurn(LIMIT + 1, (i) =>
      authorizeFrom(proxiedFlow.authorizationUrl, `192.0.2.${i + 1}, 198.51.100.77, 10.1.2.3`),
    );
    expect(chains.map((page) => page.status)).toEqual([...Array(LIMIT).fill(200), 429]);
    expect((await authorizeFrom(proxiedFlow.authorizationUrl, "198.51.100.78")).status).toBe(200);
  });

  it("reads the peer, mapped IPv4, IPv6 and malformed entries as documented", () => {
    const request = (peer: string, forwardedFor?: string) =>
      ({
        socket: { remoteAddress: peer },
        headers: forwardedFor === undefined ? {} : { "x-forwarded-for": forwardedFor },
      }) as unknown as IncomingMessage;
    const trusted = trustedProxies(["10.0.0.0/8", "fd00::/8"]);
    expect(clientAddress(request("::ffff:203.0.113.5", "198.51.100.1"), trusted)).toBe("203.0.113.5");
    expect(clientAddress(request("::ffff:10.0.0.2", "198.51.100.1"), trusted)).toBe("198.51.100.1");
    expect(clientAddress(request("fd00::1", "2001:db8::7, fd00::2"), trusted)).toBe("2001:db8::/64");
    expect(clientAddress(request("10.0.0.2", "not-an-address, 10.0.0.3"), trusted)).toBe("10.0.0.3");
    expect(clientAddress(request("10.0.0.2", "10.0.0.4, 10.0.0.3"), trusted)).toBe("10.0.0.4");
    expect(clientAddress(request("10.0.0.2"), trusted)).toBe("10.0.0.2");
    expect(clientAddress(request("10.0.0.2", "198.51.100.1"), undefined)).toBe("10.0.0.2");
    expect(() => trustedProxies(["proxy.internal"])).toThrow("not an address or CIDR range: proxy.internal");
  });

  it("counts every spelling of one address as one, IPv4 written as IPv6 as IPv4, and IPv6 per /64", () => {
    const proxy = trustedProxies(["127.0.0.1"]);
    const via = (forwardedFor: string) =>
      clientAddress(
        { socket: { remoteAddress: "127.0.0.1" }, headers: { "x-forwarded-for": forwardedFor } } as never,
        proxy,
      );
    const v4 = [
      "5.5.5.5",
      "::ffff:5.5.5.5",
      "::FFFF:5.5.5.5",
      "[::ffff:5.5.5.5]:443",
      "::ffff:0505:0505",
      "0:0:0:0:0:ffff:5.5.5.5",
    ];
    expect(new Set(v4.map(via))).toEqual(new Set(["5.5.5.5"]));
    const v6 = [
      "2001:db8:1:2::a0",
      "2001:DB8:1:2::A0",
      "2001:db8:1:2:0:0:0:a0",
      "2001:0db8:0001:0002::00a0",
      "[2001:db8:1:2::a0]:443",
      "2001:db8:1:2:ffff:ffff:ffff:ffff",
    ];
    expect(new Set(v6.map(via))).toEqual(new Set(["2001:db8:1:2::/64"]));
    expect(via("2001:db8:1:3::a0")).toBe("2001:db8:1:3::/64");
    // A zero-padded IPv4 address (octal to some parsers) is no address: the proxy is the client.
    expect(via("005.005.005.005")).toBe("127.0.0.1");
  });
});

describe("client metadata documents fetched for anonymous callers", () => {
  // The fetcher's clock stands still and records the waits it is asked for; nothing is measured.
  const waits: number[] = [];
  const clockAt = { now: 50_000 };
  const realMetadataClock = { ...metadataClock };
  beforeEach(() => {
    waits.length = 0;
    clockAt.now = 50_000;
    metadataClock.now = () => clockAt.now;
    metadataClock.sleep = async (ms) => {
      waits.push(ms);
    };
  });
  afterEach(() => Object.assign(metadataClock, realMetadataClock));

  const documentFor = (origin: string, path: string) =>
    JSON.stringify({ client_id: `${origin}${path}`, redirect_uris: ["http://127.0.0.1:53682/callback"] });

  /** GET /authorize naming `clientId`, through a fresh flow's other parameters. */
  async function authorizeAs(server: OAuthHarness, clientId: string) {
    const url = new URL((await startFlow(server.origin)).authorizationUrl);
    url.searchParams.set("client_id", clientId);
    return openConsent(url);
  }

  it("a client_id with a query string is refused unfetched; a document is fetched once per URL while cached", async () => {
    const server = await serverWith({ rateLimitPerMinute: 1000 });
    const fetched: string[] = [];
    const host = await startMetadataHost((path, res, origin) => {
      fetched.push(path);
      res.writeHead(200, { "content-type": "application/json", "cache-control": "max-age=300" });
      res.end(documentFor(origin, path));
    });
    try {
      const queried = await inTurn(10, (i) => authorizeAs(server, `${host.origin}/client.json?n=${i}`));
      for (const page of queried) {
        expect(page.status).toBe(400);
        expect(page.html).toContain("a client_id URL has no query string here");
      }
      expect(fetched).toEqual([]);
      const pages = await Promise.all(
        Array.from({ length: 10 }, () => authorizeAs(server, `${host.origin}/client.json`)),
      );
      expect(pages.map((page) => page.status)).toEqual(Array(10).fill(200));
      expect(fetched).toEqual(["/client.json"]);
    } finally {
      await host.close();
    }
  });

  /** GET /authorize naming `clientId`, from `address` through the trusted proxy; its status and Retry-After. */
  async function authorizeFromAs(server: OAuthHarness, clientId: string, address: string) {
    const url = new URL((await startFlow(server.origin)).authorizationUrl);
    url.searchParams.set("client_id", clientId);
    const page = await authorizeFrom(url, address);
    await page.arrayBuffer();
    return { status: page.status, retryAfter: page.headers.get("retry-after") };
  }

  it(`fetches at most ${METADATA_FETCHES_PER_ADDRESS} documents a minute for one address: junk URLs on a host leave another address's sign-in with its real document working`, async () => {
    const server = await serverWith({ rateLimitPerMinute: 1000, trustedProxies: ["127.0.0.1"] });
    const fetched: string[] = [];
    // The host's one real document, without Cache-Control (each sign-in fetches it); anything else 404.
    const host = await startMetadataHost((path, res, origin) => {
      fetched.push(path);
      if (path !== "/app.json") return res.writeHead(404).end();
      res.end(documentFor(origin, path));
    });
    try {
      const attacker = "198.51.100.7";
      const junk = await inTurn(METADATA_FETCHES_PER_ADDRESS + 2, (i) =>
        authorizeFromAs(server, `${host.origin}/junk-${i}.json`, attacker),
      );
      expect(junk).toEqual([
        ...Array(METADATA_FETCHES_PER_ADDRESS).fill({ status: 400, retryAfter: null }),
        { status: 429, retryAfter: "45" },
        { status: 429, retryAfter: "45" },
      ]);
      // The attacker's budget is spent, and only theirs: a person elsewhere signs in with the real client.
      const real = `${host.origin}/app.json`;
      expect(await authorizeFromAs(server, real, "203.0.113.9")).toEqual({ status: 200, retryAfter: null });
      expect((await authorizeFromAs(server, real, attacker)).status).toBe(429);
      expect(fetched).toEqual([
        ...Array.from({ length: METADATA_FETCHES_PER_ADDRESS }, (_, i) => `/junk-${i}.json`),
        "/app.json",
      ]);
    } finally {
      await host.close();
    }
  });

  it("junk hosts name no counter: one metadata counter per address, however many hosts", async () => {
    const { store, keys } = countedStore();
    const server = await serverWith({ rateLimitPerMinute: 1000, trustedProxies: ["127.0.0.1"], store });
    const closedPort = await new Promise<number>((done) => {
      const probe = createTcpServer().listen(0, "127.0.0.1", () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => done(port));
      });
    });
    // Twenty hosts (loopback addresses, nothing listening) from each of two addresses.
    for (const [a, address] of ["198.51.100.7", "203.0.113.9"].entries()) {
      const pages = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          authorizeFromAs(server, `https://127.0.${a + 1}.${i + 1}:${closedPort}/client.json`, address),
        ),
      );
      expect(pages.map((page) => page.status)).toEqual(Array(20).fill(400));
    }
    expect([...keys].filter((key) => key.startsWith("ratelimit:metadata")).sort()).toEqual([
      `ratelimit:metadata:address:198.51.100.7:${WINDOW}`,
      `ratelimit:metadata:address:203.0.113.9:${WINDOW}`,
    ]);
  });

  it("every failed fetch reads the same: refused port, plain HTTP, TLS not trusted, timeout, 404, redirect, not JSON", async () => {
    const server = await serverWith({ rateLimitPerMinute: 1000, metadataTimeoutMs: 300 });
    const plain = createHttpServer((_req, res) => res.end("{}"));
    const silent: Socket[] = [];
    const hanging: Server = createTcpServer((socket) => silent.push(socket));
    await Promise.all(
      [plain, hanging].map((listener) => new Promise<void>((done) => listener.listen(0, "127.0.0.1", done))),
    );
    const portOf = (listener: Server) => (listener.address() as AddressInfo).port;
    const closedPort = await new Promise<number>((done) => {
      const probe = createTcpServer().listen(0, "127.0.0.1", () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => done(port));
      });
    });
    const answering = await startMetadataHost((path, res, origin) => {
      if (path === "/missing.json") return res.writeHead(404).end();
      if (path === "/moved.json") return res.writeHead(302, { location: `${origin}/client.json` }).end();
      res.end("this is not JSON");
    });
    const untrusted = await startOAuth({ sandbox, rateLimitPerMinute: 1000, metadataTls: { ca: undefined } });
    started.push(untrusted);
    try {
      const cases: [OAuthHarness, string][] = [
        [server, `https://127.0.0.1:${closedPort}/client.json`],
        [server, `https://127.0.0.1:${portOf(plain)}/client.json`],
        [server, `https://127.0.0.1:${portOf(hanging)}/client.json`],
        [server, `${answering.origin}/missing.json`],
        [server, `${answering.origin}/moved.json`],
        [server, `${answering.origin}/client.json`],
        [untrusted, `${answering.origin}/client.json`],
      ];
      for (const [target, clientId] of cases) {
        const page = await authorizeAs(target, clientId);
        expect([clientId, page.status]).toEqual([clientId, 400]);
        const message = /role="alert">([^<]*)</.exec(page.html)?.[1];
        expect([clientId, message]).toEqual([
          clientId,
          `The application is not known: ${METADATA_FETCH_FAILED.replaceAll("'", "&#39;")}.`,
        ]);
      }
    } finally {
      for (const socket of silent) socket.destroy();
      await Promise.all([
        new Promise((done) => plain.close(done)),
        new Promise((done) => hanging.close(done)),
        answering.close(),
      ]);
    }
  });

  it("every failure answers no earlier than the fetch's bound, and a failed URL is not fetched again for a while", async () => {
    const server = await serverWith({ rateLimitPerMinute: 1000 });
    const fetched: string[] = [];
    const host = await startMetadataHost((path, res) => {
      fetched.push(path);
      res.writeHead(404).end();
    });
    const closedPort = await new Promise<number>((done) => {
      const probe = createTcpServer().listen(0, "127.0.0.1", () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => done(port));
      });
    });
    try {
      // A refused port and a 404 fail at once (the clock stands still): each waits out the whole bound.
      for (const clientId of [`https://127.0.0.1:${closedPort}/client.json`, `${host.origin}/gone.json`]) {
        expect((await authorizeAs(server, clientId)).status).toBe(400);
      }
      expect(waits).toEqual([METADATA_TIMEOUT_MS, METADATA_TIMEOUT_MS]);
      // Probed again within the minute: the remembered failure, no fetch and no wait.
      const again = await inTurn(5, () => authorizeAs(server, `${host.origin}/gone.json`));
      expect(again.map((page) => page.status)).toEqual(Array(5).fill(400));
      expect(fetched).toEqual(["/gone.json"]);
      expect(waits).toHaveLength(2);
      // Once the failure is forgotten, the URL is fetched anew.
      clockAt.now += METADATA_FAILURE_CACHE_MS;
      expect((await authorizeAs(server, `${host.origin}/gone.json`)).status).toBe(400);
      expect(fetched).toEqual(["/gone.json", "/gone.json"]);
    } finally {
      await host.close();
    }
  });
});
