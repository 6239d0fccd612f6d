// Sign-in across replicas: two replicas of the built CLI with --oauth, one MCP_OAUTH_SECRET, one
// --public-url (nginx's origin) and one Redis, behind deploy/nginx.conf. Each step is pinned to a
// replica by calling its own port: the consent and the code exchange on one, the tool call and the
// refresh on the other, and the reuse of a rotated-out refresh token caught by the first, after which
// both refuse the grant's access token. A write confirmation (2026-07-28, --confirm-writes) is asked by
// one replica and accepted at the other, posting once; the same accept re-sent posts nothing, and one
// accept sent to both replicas at once posts once. Races split across both replicas: one code
// exchanged, or one refresh token used, many times at once: exactly one wins and the grant is revoked.
// 40 refreshes leave Redis holding the same keys; another client's revocation leaves a token working.
import { setTimeout as sleep } from "node:timers/promises";
import type { Client as ModernClient } from "@modelcontextprotocol/client";
import { createClient } from "@redis/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "../../src/sandbox/index.js";
import { RATE_WINDOW_MS } from "../../src/state/rate-limit.js";
import { CONFIRMATIONS_PER_MINUTE } from "../../src/tools/confirm-state.js";
import { textOf } from "../helpers.js";
import { eventually } from "../http-helpers.js";
import {
  type ConsentPage,
  consent,
  exchangeAt,
  fieldOf,
  type HandFlow,
  openConsent,
  postForm,
  rawMcp,
  refreshAt,
  revokeAt,
  scopeFields,
  startFlow,
  TEST_SECRET,
  type Tokens,
} from "../oauth-harness.js";
import type { RedisServer } from "../redis-server.js";
import {
  confirmingClient,
  oauthReplicaArgs,
  type Replica,
  type ReplicaSet,
  type SharedReplicas,
  startSharedReplicas,
} from "../replicas.js";

/** Requests sent at once in each race, half to each replica. */
const RACERS = 20;
const COMMENTS_PATH = "/api/v1/business/tasks/comments";

const originOf = (replica: Replica) => new URL(replica.mcpUrl).origin;

describe("sign-in across two replicas sharing a Redis behind nginx", () => {
  let sandbox: Sandbox;
  let redis: RedisServer;
  let set: ReplicaSet;
  let first: Replica;
  let second: Replica;
  let tokens: Tokens;
  let clientId: string;
  /** The refresh token the second replica rotated out. */
  let rotatedOut: string;
  let shared: SharedReplicas;

  beforeAll(async () => {
    shared = await startSharedReplicas({
      count: 2,
      sandbox: { record: true },
      env: { MCP_OAUTH_SECRET: TEST_SECRET },
      // The races here send more than a minute's budget of /token: rate limits have a file of their own.
      args: (front) => oauthReplicaArgs(front, 0, "--confirm-writes"),
    });
    ({ sandbox, redis, set } = shared);
    [first, second] = set.replicas as [Replica, Replica];
  });

  afterAll(() => shared?.close());

  /** One step of the consent form, posted to `replica` as a browser posts it from the public page. */
  const postConsentTo = (replica: Replica, page: ConsentPage, fields: Record<string, string>) =>
    fetch(`${originOf(replica)}/authorize`, {
      method: "POST",
      redirect: "manual",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        cookie: page.cookie,
        origin: set.front,
      },
      body: new URLSearchParams({
        request: fieldOf(page.html, "request"),
        csrf: fieldOf(page.html, "csrf"),
        ...fields,
      }),
    });

  /** A 2026-07-28 client of one replica's own /mcp, carrying the access token; input requests left to the test. */
  const clientOf = (replica: Replica, accessToken: string) =>
    confirmingClient("oauth-replicas", replica.mcpUrl, { authorization: `Bearer ${accessToken}` });

  it("signs in at one replica (consent and code), then calls a tool and refreshes at the other", async () => {
    // Registration goes through nginx: a client id is the registration, signed, valid at every replica.
    const flow = await startFlow(set.front);
    clientId = flow.clientId;
    expect(flow.authorizationUrl.origin).toBe(set.front);
    const atFirst = new URL(flow.authorizationUrl.pathname + flow.authorizationUrl.search, originOf(first));
    const page = await openConsent(atFirst);
    expect(page.status).toBe(200);
    const keyStep = await postConsentTo(first, page, { step: "key", workspace_key: sandbox.apiKey });
    expect(keyStep.status).toBe(200);
    const allowed = await postConsentTo(
      first,
      { ...page, html: await keyStep.text() },
      {
        step: "allow",
        workspace_project: sandbox.workspaceProjectId,
        analytics_project: "",
        ...scopeFields(["workspace:read", "workspace:write", "analytics:read"]),
      },
    );
    expect(allowed.status).toBe(303);
    const callback = new URL(allowed.headers.get("location")!).searchParams;
    expect(callback.get("iss")).toBe(set.front);
    const exchanged = await postForm(`${originOf(first)}/token`, {
      grant_type: "authorization_code",
      code: callback.get("code")!,
      redirect_uri: flow.redirectUri,
      code_verifier: flow.verifier,
      client_id: clientId,
      resource: `${set.front}/mcp`,
    });
    expect(exchanged.status).toBe(200);
    tokens = exchanged.body as unknown as Tokens;

    sandbox.requests.length = 0;
    const client = await clientOf(second, tokens.access_token);
    try {
      const result = await client.callTool({ name: "whoami", arguments: {} });
      expect(result.isError).toBeUndefined();
      expect((result.structuredContent as { user: { id: string } }).user.id).toBe(sandbox.ids.userId);
    } finally {
      await client.close();
    }
    expect(sandbox.requests.map(({ headers }) => headers["x-api-key"])).toEqual(
      sandbox.requests.map(() => sandbox.apiKey),
    );
    expect(sandbox.requests.length).toBeGreaterThan(0);
    // The call was the second replica's (its request log says so; the first logged none).
    const toolCalls = (replica: Replica) =>
      replica.requests.filter((line) => line.rpc === "tools/call" && line.status === 200).length;
    await eventually(() => toolCalls(second) === 1);
    expect([toolCalls(first), toolCalls(second)]).toEqual([0, 1]);

    const refreshed = await postForm(`${originOf(second)}/token`, {
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      client_id: clientId,
    });
    expect(refreshed.status).toBe(200);
    const rotated = refreshed.body as unknown as Tokens;
    expect(rotated.refresh_token).not.toBe(tokens.refresh_token);
    rotatedOut = tokens.refresh_token;
    tokens = rotated;
  });

  it("a write confirmation asked by one replica and accepted at the other posts once; re-sent, nothing", async () => {
    const args = { task_id: sandbox.ids.taskId, body: "Accepted across replicas." };
    const asker = await clientOf(first, tokens.access_token);
    const accepter = await clientOf(second, tokens.access_token);
    const call = (client: ModernClient, extra: Record<string, unknown> = {}) =>
      client.callTool(
        { name: "tasks_comments", arguments: args, ...extra },
        { allowInputRequired: true },
      ) as Promise<Record<string, unknown>>;
    const commentPosts = () =>
      sandbox.requests.filter(({ method, path }) => method === "POST" && path.startsWith(COMMENTS_PATH));
    try {
      sandbox.requests.length = 0;
      const question = await call(asker);
      expect(question.resultType).toBe("input_required");
      expect(commentPosts()).toEqual([]);
      const accept = {
        inputResponses: { confirm_write: { action: "accept", content: {} } },
        requestState: question.requestState,
      };
      const accepted = await call(accepter, accept);
      expect(accepted.isError).toBeUndefined();
      expect(accepted.structuredContent).toMatchObject({ task_id: args.task_id, body: args.body });
      expect(commentPosts().map(({ body }) => body)).toEqual([{ action: "create", ...args }]);
      for (const client of [asker, accepter]) {
        const replayed = await call(client, accept);
        expect(replayed.isError).toBe(true);
        expect(textOf(replayed as never)).toContain("not sent again");
      }
      expect(commentPosts()).toHaveLength(1);
    } finally {
      await Promise.all([asker.close(), accepter.close()]);
    }
  });

  it("one accept sent to both replicas at once posts once: the answer is spent by one store step", async () => {
    const args = { task_id: sandbox.ids.taskId, body: "Raced across replicas." };
    const asker = await clientOf(first, tokens.access_token);
    const others = await Promise.all(
      [first, second, first, second].map((r) => clientOf(r, tokens.access_token)),
    );
    const call = (client: ModernClient, extra: Record<string, unknown> = {}) =>
      client.callTool(
        { name: "tasks_comments", arguments: args, ...extra },
        { allowInputRequired: true },
      ) as Promise<Record<string, unknown>>;
    try {
      sandbox.requests.length = 0;
      const question = await call(asker);
      const accept = {
        inputResponses: { confirm_write: { action: "accept", content: {} } },
        requestState: question.requestState,
      };
      const results = await Promise.all(others.map((client) => call(client, accept)));
      expect(results.filter((result) => result.isError === undefined)).toHaveLength(1);
      for (const refused of results.filter((result) => result.isError === true)) {
        expect(textOf(refused as never)).toContain("not sent again");
      }
      const posts = sandbox.requests.filter(
        ({ method, path }) => method === "POST" && path.startsWith(COMMENTS_PATH),
      );
      expect(posts.map(({ body }) => body)).toEqual([{ action: "create", ...args }]);
    } finally {
      await Promise.all([asker, ...others].map((client) => client.close()));
    }
  });

  it(`one key's confirmations, asked and declined across both replicas, stop at ${CONFIRMATIONS_PER_MINUTE} a minute with no mark written past it`, async () => {
    // All in one counting minute: started 10 s or more before its end.
    const left = RATE_WINDOW_MS - (Date.now() % RATE_WINDOW_MS);
    if (left < 10_000) await sleep(left + 50);
    const args = { task_id: sandbox.ids.taskId, body: "Declined across replicas." };
    const clients = await Promise.all([first, second].map((r) => clientOf(r, tokens.access_token)));
    const call = (client: ModernClient, extra: Record<string, unknown> = {}) =>
      client.callTool(
        { name: "tasks_comments", arguments: args, ...extra },
        { allowInputRequired: true },
      ) as Promise<Record<string, unknown>>;
    const raw = createClient({ url: redis.url });
    await raw.connect();
    try {
      const marks = async () => (await raw.keys("*confirm-write:*")).length;
      const before = await marks();
      let declined = 0;
      let refused: Record<string, unknown> | undefined;
      // Earlier tests asked a few with this key: the refusal comes at or before the budget's end.
      for (let i = 0; i <= CONFIRMATIONS_PER_MINUTE && !refused; i++) {
        const [asker, answerer] = i % 2 === 0 ? clients : [...clients].reverse();
        const question = await call(asker as ModernClient);
        if (question.isError) {
          refused = question;
          break;
        }
        const answer = await call(answerer as ModernClient, {
          inputResponses: { confirm_write: { action: "decline" } },
          requestState: question.requestState,
        });
        if (answer.isError) refused = answer;
        else declined++;
      }
      expect(textOf(refused as never)).toMatch(
        new RegExp(
          `^tasks_comments: not sent: more than ${CONFIRMATIONS_PER_MINUTE} confirmations were asked or answered with this key in the last minute\\. Try again in \\d+ seconds\\.$`,
        ),
      );
      expect(declined).toBeLessThanOrEqual(CONFIRMATIONS_PER_MINUTE / 2);
      expect((await marks()) - before).toBe(declined);
      // This minute's counters: the key's, and the one address both replicas saw the calls from.
      const minute = Math.floor(Date.now() / RATE_WINDOW_MS);
      const counters = await raw.keys(`*ratelimit:confirm:*:${minute}`);
      const byAddress = counters.filter((key) => key.includes("ratelimit:confirm:address:"));
      expect(byAddress.map((key) => key.replace(/^.*ratelimit:/, "ratelimit:"))).toEqual([
        `ratelimit:confirm:address:127.0.0.1:${minute}`,
      ]);
      expect(counters.filter((key) => !byAddress.includes(key))).toHaveLength(1);
    } finally {
      raw.destroy();
      await Promise.all(clients.map((client) => client.close()));
    }
  });

  it("a rotated-out refresh token sent to the other replica revokes the grant: both refuse its access token", async () => {
    const reused = await postForm(`${originOf(first)}/token`, {
      grant_type: "refresh_token",
      refresh_token: rotatedOut,
      client_id: clientId,
    });
    expect(reused.status).toBe(400);
    expect(reused.body).toEqual({
      error: "invalid_grant",
      error_description: "the refresh token is unknown, expired, revoked or already used",
    });
    for (const url of [first.mcpUrl, second.mcpUrl, set.mcpUrl]) {
      const refused = await rawMcp(url, { authorization: `Bearer ${tokens.access_token}` });
      expect(refused.status).toBe(401);
      expect(refused.headers.get("www-authenticate")).toContain('error="invalid_token"');
    }
  });

  /** `count` requests made at once, every other one at each replica. */
  const splitAcross = <T>(count: number, send: (replica: Replica) => Promise<T>) =>
    Promise.all(Array.from({ length: count }, (_, i) => send(i % 2 === 0 ? first : second)));

  /** The audit lines both replicas wrote of one event and client. */
  const auditsOf = (event: string, client: string) =>
    set.replicas.flatMap((replica) =>
      replica.lines.filter(
        (line) => line.message === "audit" && line.event === event && line.client === client,
      ),
    );

  /** The one answer of a race that won (the others refused with 400), its access token refused by both replicas. */
  async function onlyWinner(answers: { status: number; body?: Record<string, unknown> }[]): Promise<Tokens> {
    const won = answers.filter((answer) => answer.status === 200);
    expect(won).toHaveLength(1);
    expect(answers.filter((answer) => answer.status === 400)).toHaveLength(RACERS - 1);
    const winner = won[0]!.body as unknown as Tokens;
    for (const url of [first.mcpUrl, second.mcpUrl]) {
      expect((await rawMcp(url, { authorization: `Bearer ${winner.access_token}` })).status).toBe(401);
    }
    return winner;
  }

  /** A whole consent through nginx: the flow and the code, not yet exchanged. */
  async function consentedCode(): Promise<{ flow: HandFlow; code: string }> {
    const flow = await startFlow(set.front);
    const callback = await consent(set.front, flow.authorizationUrl, { workspaceKey: sandbox.apiKey });
    return { flow, code: callback.get("code")! };
  }

  it(`${RACERS} exchanges of one code at once across both replicas: exactly one wins, and the grant is revoked`, async () => {
    const { flow, code } = await consentedCode();
    const answers = await splitAcross(RACERS, (replica) => exchangeAt(originOf(replica), flow, code));
    const winner = await onlyWinner(answers);
    expect((await refreshAt(originOf(second), flow.clientId, winner.refresh_token)).status).toBe(400);
    // Every loser found the code spent (none found it merely unknown), and revoked the winner's grant.
    const codeRefusals = () =>
      auditsOf("signin_refused", flow.clientId).filter((line) => String(line.reason).startsWith("code_"));
    expect(await eventually(() => codeRefusals().length === RACERS - 1)).toBe(true);
    expect(codeRefusals().map((line) => line.reason)).toEqual(Array(RACERS - 1).fill("code_reused"));
    // However many losers on either replica, the grant ended once: one revocation line.
    const grant = winner.refresh_token.split(".")[0];
    expect(auditsOf("revocation", flow.clientId)).toEqual([
      expect.objectContaining({
        grant,
        outcome: "revoked",
        reason: expect.stringMatching(/^code_(race|reused)$/),
      }),
    ]);
  });

  it(`${RACERS} refreshes of one refresh token at once across both replicas: exactly one wins, and the grant is revoked`, async () => {
    const { flow, code } = await consentedCode();
    const exchanged = await exchangeAt(originOf(first), flow, code);
    expect(exchanged.status).toBe(200);
    const signedIn = exchanged.body as unknown as Tokens;
    const answers = await splitAcross(RACERS, (replica) =>
      refreshAt(originOf(replica), flow.clientId, signedIn.refresh_token),
    );
    await onlyWinner(answers);
    expect(await eventually(() => auditsOf("refresh_reuse", flow.clientId).length > 0)).toBe(true);
    // Every loser done: refused as a reuse when it read the grant before it ended, as revoked after
    // (which a loser is depends on timing); the grant ended once, one line.
    const refused = () =>
      auditsOf("signin_refused", flow.clientId).filter((line) =>
        ["refresh_reused", "grant_revoked"].includes(String(line.reason)),
      );
    expect(await eventually(() => refused().length === RACERS - 1)).toBe(true);
    expect(refused().some((line) => line.reason === "refresh_reused")).toBe(true);
    expect(auditsOf("revocation", flow.clientId)).toEqual([
      expect.objectContaining({
        grant: signedIn.refresh_token.split(".")[0],
        outcome: "revoked",
        reason: expect.stringMatching(/^(refresh_race|rotated_out)$/),
      }),
    ]);
  });

  it("40 refreshes of one grant, alternating replicas, leave Redis holding the same keys", async () => {
    const { flow, code } = await consentedCode();
    const exchanged = await exchangeAt(originOf(first), flow, code);
    let refreshToken = String(exchanged.body?.refresh_token);
    const raw = createClient({ url: redis.url });
    await raw.connect();
    try {
      // Rate-limit counters (of confirmations asked earlier) expire on their own minute: not the grant's.
      const keys = async () => (await raw.keys("*")).filter((key) => !key.includes("ratelimit:")).sort();
      const before = await keys();
      for (let i = 0; i < 40; i++) {
        const answer = await refreshAt(originOf(i % 2 === 0 ? second : first), flow.clientId, refreshToken);
        expect(answer.status).toBe(200);
        refreshToken = String(answer.body?.refresh_token);
      }
      expect(await keys()).toEqual(before);
    } finally {
      raw.destroy();
    }
  });

  it("another client's revocation, at the other replica, leaves the token working", async () => {
    const { flow, code } = await consentedCode();
    const signedIn = (await exchangeAt(originOf(first), flow, code)).body as unknown as Tokens;
    const other = await startFlow(set.front, { name: "Another client" });
    const revoked = await revokeAt(originOf(second), other.clientId, signedIn.refresh_token);
    expect(revoked.status).toBe(200);
    const refreshed = await refreshAt(originOf(first), flow.clientId, signedIn.refresh_token);
    expect(refreshed.status).toBe(200);
    const access = String(refreshed.body?.access_token);
    expect((await rawMcp(second.mcpUrl, { authorization: `Bearer ${access}` })).status).toBe(200);
  });

  it("no replica logged the key, a token or the secret", () => {
    for (const replica of set.replicas) {
      for (const secret of [
        sandbox.apiKey,
        tokens.access_token,
        tokens.refresh_token,
        rotatedOut,
        TEST_SECRET,
      ]) {
        expect(replica.stderr()).not.toContain(secret);
      }
    }
  });
});
