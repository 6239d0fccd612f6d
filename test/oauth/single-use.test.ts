// Single use and rotation on one instance (the in-memory store): a code or a refresh token sent many
// times at once is spent once, by one store step, and the race's losers revoke the grant; a grant stays
// one store entry however often it is refreshed; another client's revocation leaves a token working
// (RFC 7009 §2.1). Each outcome is one audit line, never a token: a grant's exchange one `signin`, its
// end one `revocation`, whoever ends it. The same races across two replicas
// and a real Redis: test/oauth/replicas.scale.test.ts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SANDBOX_API_KEY } from "../../src/sandbox/index.js";
import { memoryStore, type SharedStore } from "../../src/state/store.js";
import { logLines } from "../log-capture.js";
import {
  consent,
  exchangeAt,
  type OAuthHarness,
  rawMcp,
  refreshAt,
  revokeAt,
  signInByHand,
  startFlow,
  startOAuth,
  type Tokens,
} from "../oauth-harness.js";

/** Requests sent at once in each race. */
const RACERS = 16;

/** The in-memory store, remembering every key written, so a test can list the live ones. */
function trackedStore(): SharedStore & { liveKeys(): Promise<string[]> } {
  const inner = memoryStore();
  const written = new Set<string>();
  return {
    ...inner,
    set(key, value, ttl) {
      written.add(key);
      return inner.set(key, value, ttl);
    },
    setIfAbsent(key, value, ttl) {
      written.add(key);
      return inner.setIfAbsent(key, value, ttl);
    },
    swap(key, expected, value, ttl) {
      written.add(key);
      return inner.swap(key, expected, value, ttl);
    },
    async liveKeys() {
      const present = await Promise.all(
        [...written].map(async (key) => [key, await inner.get(key)] as const),
      );
      return present.flatMap(([key, value]) => (value === undefined ? [] : [key])).sort();
    },
  };
}

/** The audit lines of this test, parsed. */
const audits = (event: string) =>
  logLines()
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.message === "audit" && line.event === event);

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

let server: OAuthHarness;
let store: ReturnType<typeof trackedStore>;
beforeAll(async () => {
  store = trackedStore();
  server = await startOAuth({ store });
});
afterAll(() => server.close());

describe("one code, one refresh token: spent once, whatever arrives at once", () => {
  it(`${RACERS} exchanges of one code at once: exactly one gets tokens, and the grant is revoked`, async () => {
    const flow = await startFlow(server.origin);
    const code = (await consent(server.origin, flow.authorizationUrl, { workspaceKey: SANDBOX_API_KEY })).get(
      "code",
    )!;
    const answers = await Promise.all(
      Array.from({ length: RACERS }, () => exchangeAt(server.origin, flow, code)),
    );
    const won = answers.filter((answer) => answer.status === 200);
    expect(won).toHaveLength(1);
    for (const lost of answers.filter((answer) => answer.status !== 200)) {
      expect(lost.status).toBe(400);
      expect(lost.body).toEqual({
        error: "invalid_grant",
        error_description: "the code is unknown, expired or already used",
      });
    }
    // The winner's tokens stand for a revoked grant.
    const tokens = won[0]!.body as unknown as Tokens;
    expect((await rawMcp(server.url, bearer(tokens.access_token))).status).toBe(401);
    expect((await refreshAt(server.origin, flow.clientId, tokens.refresh_token)).status).toBe(400);
    const reused = audits("signin_refused").filter((line) => line.reason === "code_reused");
    expect(reused).toHaveLength(RACERS - 1);
    // One grant made and one revocation of it, whichever loser took it (a racer or a later reuse).
    const grant = tokens.refresh_token.split(".")[0];
    expect(audits("signin")).toEqual([expect.objectContaining({ grant, client: flow.clientId })]);
    expect(audits("revocation")).toEqual([
      expect.objectContaining({ grant, client: flow.clientId, outcome: "revoked" }),
    ]);
    expect(["code_race", "code_reused"]).toContain(audits("revocation")[0]!.reason);
    expect(logLines().join("")).not.toContain(code);
  });

  it(`${RACERS} refreshes of one refresh token at once: exactly one rotates it, and the grant is revoked`, async () => {
    const { flow, tokens } = await signInByHand(server.origin, { workspaceKey: SANDBOX_API_KEY });
    const answers = await Promise.all(
      Array.from({ length: RACERS }, () => refreshAt(server.origin, flow.clientId, tokens.refresh_token)),
    );
    const won = answers.filter((answer) => answer.status === 200);
    expect(won).toHaveLength(1);
    expect(answers.filter((answer) => answer.status === 400)).toHaveLength(RACERS - 1);
    const rotated = won[0]!.body as unknown as Tokens;
    expect(rotated.refresh_token).not.toBe(tokens.refresh_token);
    for (const token of [tokens.access_token, rotated.access_token]) {
      expect((await rawMcp(server.url, bearer(token))).status).toBe(401);
    }
    expect((await refreshAt(server.origin, flow.clientId, rotated.refresh_token)).status).toBe(400);
    const revoked = audits("refresh_reuse");
    expect(revoked.length).toBeGreaterThanOrEqual(1);
    for (const line of revoked) {
      expect(line).toMatchObject({ client: flow.clientId, outcome: "revoked" });
      expect(["race", "rotated_out"]).toContain(line.reason);
    }
    // However many losers, the grant ends once: one revocation line.
    const grant = tokens.refresh_token.split(".")[0];
    expect(audits("revocation")).toEqual([
      expect.objectContaining({ grant, client: flow.clientId, outcome: "revoked" }),
    ]);
    expect(["refresh_race", "rotated_out"]).toContain(audits("revocation")[0]!.reason);
    for (const secret of [tokens.refresh_token, rotated.refresh_token, rotated.access_token]) {
      expect(logLines().join("")).not.toContain(secret);
    }
  });

  it("a rotated-out refresh token presented later revokes the grant, with one refresh_reuse line", async () => {
    const { flow, tokens } = await signInByHand(server.origin, { workspaceKey: SANDBOX_API_KEY });
    const first = await refreshAt(server.origin, flow.clientId, tokens.refresh_token);
    const second = await refreshAt(server.origin, flow.clientId, String(first.body?.refresh_token));
    expect([first.status, second.status]).toEqual([200, 200]);
    expect((await refreshAt(server.origin, flow.clientId, tokens.refresh_token)).status).toBe(400);
    expect((await rawMcp(server.url, bearer(String(second.body?.access_token)))).status).toBe(401);
    expect(audits("refresh_reuse")).toEqual([
      expect.objectContaining({ client: flow.clientId, outcome: "revoked", reason: "rotated_out" }),
    ]);
    expect(audits("revocation")).toEqual([
      expect.objectContaining({
        grant: tokens.refresh_token.split(".")[0],
        client: flow.clientId,
        outcome: "revoked",
        reason: "rotated_out",
      }),
    ]);
  });
});

describe("every grant traced from its sign-in to its end", () => {
  it("the exchange writes signin with the grant; a reused code and another client's refresh each revoke with one revocation line", async () => {
    const flow = await startFlow(server.origin);
    const code = (await consent(server.origin, flow.authorizationUrl, { workspaceKey: SANDBOX_API_KEY })).get(
      "code",
    )!;
    const first = await exchangeAt(server.origin, flow, code);
    const firstGrant = String(first.body?.refresh_token).split(".")[0];
    expect((await exchangeAt(server.origin, flow, code)).status).toBe(400);

    const { flow: owner, tokens } = await signInByHand(server.origin, { workspaceKey: SANDBOX_API_KEY });
    const secondGrant = tokens.refresh_token.split(".")[0];
    const thief = await startFlow(server.origin, { name: "Another client" });
    expect((await refreshAt(server.origin, thief.clientId, tokens.refresh_token)).status).toBe(400);
    expect((await rawMcp(server.url, bearer(tokens.access_token))).status).toBe(401);

    const pick = ({ event, grant, client, outcome, reason }: Record<string, unknown>) => ({
      event,
      grant,
      client,
      outcome,
      reason,
    });
    expect([...audits("consent"), ...audits("signin"), ...audits("revocation")].map(pick)).toEqual([
      { event: "consent", grant: undefined, client: flow.clientId, outcome: "ok", reason: undefined },
      { event: "consent", grant: undefined, client: owner.clientId, outcome: "ok", reason: undefined },
      { event: "signin", grant: firstGrant, client: flow.clientId, outcome: "ok", reason: undefined },
      { event: "signin", grant: secondGrant, client: owner.clientId, outcome: "ok", reason: undefined },
      {
        event: "revocation",
        grant: firstGrant,
        client: flow.clientId,
        outcome: "revoked",
        reason: "code_reused",
      },
      {
        event: "revocation",
        grant: secondGrant,
        client: thief.clientId,
        outcome: "revoked",
        reason: "foreign_client",
      },
    ]);
  });
});

describe("refresh tokens name their grant, under the operator's secret", () => {
  it("an altered or made-up refresh token naming a real grant is unknown, and leaves the grant working", async () => {
    const { flow, tokens } = await signInByHand(server.origin, { workspaceKey: SANDBOX_API_KEY });
    const [grant, generation, kid, mac] = tokens.refresh_token.split(".");
    expect(grant).toMatch(/^[0-9a-f-]{36}$/);
    const forged = [
      // A later generation, as if rotated: its MAC does not match.
      `${grant}.${Number(generation) + 1}.${kid}.${mac}`,
      // Another MAC of the right length.
      `${grant}.${generation}.${kid}.${"A".repeat(43)}`,
      // Another key id.
      `${grant}.${generation}.unknown.${mac}`,
      `${grant}`,
    ];
    for (const token of forged) {
      const answer = await refreshAt(server.origin, flow.clientId, token);
      expect(answer.body).toEqual({
        error: "invalid_grant",
        error_description: "the refresh token is unknown, expired, revoked or already used",
      });
    }
    expect(audits("signin_refused").map((line) => line.reason)).toEqual(
      Array(forged.length).fill("refresh_unknown"),
    );
    expect(audits("refresh_reuse")).toEqual([]);
    expect((await refreshAt(server.origin, flow.clientId, tokens.refresh_token)).status).toBe(200);
  });
});

describe("what a signed-in client can make the store hold", () => {
  it("after 50 refreshes of one grant the store holds the same keys as after the sign-in", async () => {
    const { flow, tokens } = await signInByHand(server.origin, { workspaceKey: SANDBOX_API_KEY });
    const before = await store.liveKeys();
    let refreshToken = tokens.refresh_token;
    for (let i = 0; i < 50; i++) {
      const answer = await refreshAt(server.origin, flow.clientId, refreshToken);
      expect(answer.status).toBe(200);
      refreshToken = String(answer.body?.refresh_token);
    }
    expect(await store.liveKeys()).toEqual(before);
    const latest = await refreshAt(server.origin, flow.clientId, refreshToken);
    expect((await rawMcp(server.url, bearer(String(latest.body?.access_token)))).status).toBe(200);
  });
});

describe("revocation checks whose token it is first (RFC 7009 §2.1)", () => {
  it("another client's revocation answers 200 and changes nothing; the owner's revokes", async () => {
    const { flow, tokens } = await signInByHand(server.origin, { workspaceKey: SANDBOX_API_KEY });
    const other = await startFlow(server.origin, { name: "Another client" });
    for (const token of [tokens.refresh_token, tokens.access_token]) {
      const answer = await revokeAt(server.origin, other.clientId, token);
      expect(answer.status).toBe(200);
      expect(answer.body).toBeUndefined();
    }
    expect((await rawMcp(server.url, bearer(tokens.access_token))).status).toBe(200);
    const refreshed = await refreshAt(server.origin, flow.clientId, tokens.refresh_token);
    expect(refreshed.status).toBe(200);
    const owned = String(refreshed.body?.refresh_token);
    expect((await revokeAt(server.origin, flow.clientId, owned)).status).toBe(200);
    expect((await refreshAt(server.origin, flow.clientId, owned)).status).toBe(400);
    expect((await revokeAt(server.origin, flow.clientId, "nothing-like-a-token")).status).toBe(200);
    expect(audits("revocation").map(({ client, outcome, reason }) => [client, outcome, reason])).toEqual([
      [other.clientId, "not_owner", undefined],
      [other.clientId, "not_owner", undefined],
      [flow.clientId, "revoked", "client_request"],
      [flow.clientId, "unknown", undefined],
    ]);
    for (const secret of [tokens.refresh_token, tokens.access_token, owned]) {
      expect(logLines().join("")).not.toContain(secret);
    }
  });
});
