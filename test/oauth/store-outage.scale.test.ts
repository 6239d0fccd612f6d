// A Redis that stops, and one that restarts empty (no persistence, as deploy/ runs it), under two
// replicas behind nginx. Stopped: each replica counts the sign-in limits in its own memory, so key
// guesses past the budget never reach the API, and /mcp answers 503 with Retry-After. Restarted empty:
// a write confirmation answered once, and consent forms shown before, are refused (their epoch is
// gone): nothing is posted twice and no second code is issued.
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { SANDBOX_API_KEY } from "../../src/sandbox/index.js";
import { RATE_WINDOW_MS } from "../../src/state/rate-limit.js";
import { eventually } from "../http-helpers.js";
import {
  type ConsentPage,
  fieldOf,
  openConsent,
  rawMcp,
  scopeFields,
  signInByHand,
  startFlow,
  TEST_SECRET,
} from "../oauth-harness.js";
import {
  confirmingClient,
  oauthReplicaArgs,
  type Replica,
  readiness,
  type SharedReplicas,
  startSharedReplicas,
} from "../replicas.js";

const LIMIT = 5;
const COMMENTS_PATH = "/api/v1/business/tasks/comments";
const originOf = (replica: Replica) => new URL(replica.mcpUrl).origin;

let shared: SharedReplicas | undefined;
afterEach(async () => {
  await shared?.close();
  shared = undefined;
});

async function replicas(rateLimit: number) {
  shared = await startSharedReplicas({
    count: 2,
    sandbox: { record: true },
    env: { MCP_OAUTH_SECRET: TEST_SECRET },
    args: (front) => oauthReplicaArgs(front, rateLimit, "--confirm-writes"),
  });
  return { ...shared, replicas: shared.set.replicas as [Replica, Replica] };
}

/** Every replica ready (200) or not (503) on /readyz, as the store comes and goes. */
async function allReady(set: Replica[], status: 200 | 503) {
  for (const replica of set)
    expect(await eventually(async () => (await readiness(replica)).status === status)).toBe(true);
}

/** One step of the consent form posted straight to `replica`, as the browser posts it from the public page. */
const postTo = (replica: Replica, front: string, page: ConsentPage, fields: Record<string, string>) =>
  fetch(`${originOf(replica)}/authorize`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: page.cookie, origin: front },
    body: new URLSearchParams({
      request: fieldOf(page.html, "request"),
      csrf: fieldOf(page.html, "csrf"),
      ...fields,
    }),
  });

describe("Redis stopped", () => {
  it("each replica still counts the sign-in limits: key guesses past the budget reach no API; /mcp says try again", async () => {
    const {
      redis,
      set,
      sandbox,
      replicas: [first, second],
    } = await replicas(LIMIT);
    const { tokens } = await signInByHand(set.front, { workspaceKey: SANDBOX_API_KEY });
    const flow = await startFlow(set.front);
    // One window for the guesses: a run that straddles two minutes would count twice the budget.
    const left = RATE_WINDOW_MS - (Date.now() % RATE_WINDOW_MS);
    if (left < 20_000) await sleep(left + 50);
    await redis.stop();
    await allReady([first, second], 503);
    const call = await rawMcp(first.mcpUrl, { authorization: `Bearer ${tokens.access_token}` });
    expect(call.status).toBe(503);
    expect(call.headers.get("retry-after")).toBe("5");
    expect(call.text).toContain("try again shortly");
    expect(call.text).not.toContain("127.0.0.1");
    // No page while the store is down (it names the store's epoch): asked of the second replica.
    const atSecond = new URL(flow.authorizationUrl.pathname + flow.authorizationUrl.search, originOf(second));
    expect((await openConsent(atSecond)).status).toBe(503);
    const statuses: string[] = [];
    // A form shown before the outage, posted to one replica: counted in its memory; the key step then
    // needs the store (the form's epoch), so no guess reaches the API, and past the budget it is 429.
    const shown = await (async () => {
      await redis.start();
      await allReady([first, second], 200);
      const page = await openConsent(flow.authorizationUrl);
      await redis.stop();
      await allReady([first, second], 503);
      return page;
    })();
    sandbox.requests.length = 0;
    for (let i = 0; i < LIMIT + 2; i++) {
      const answer = await postTo(first, set.front, shown, { step: "key", workspace_key: `guess-${i}` });
      await answer.arrayBuffer();
      statuses.push(`${answer.status} ${answer.headers.get("retry-after")}`);
    }
    expect(statuses.slice(0, LIMIT)).toEqual(Array(LIMIT).fill("503 5"));
    expect(statuses.slice(LIMIT).map((s) => s.split(" ")[0])).toEqual(["429", "429"]);
    expect(sandbox.requests).toEqual([]);
    // Registration needs no store: counted in the other replica's memory, LIMIT and then 429.
    const registrations: number[] = [];
    for (let i = 0; i < LIMIT + 1; i++) {
      const registered = await fetch(`${originOf(second)}/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ redirect_uris: [flow.redirectUri], token_endpoint_auth_method: "none" }),
      });
      await registered.arrayBuffer();
      registrations.push(registered.status);
    }
    expect(registrations).toEqual([...Array(LIMIT).fill(201), 429]);
  });
});

describe("Redis restarted empty between ask and answer", () => {
  it("refuses the write confirmation's answer and the consent forms shown before: nothing sent twice, no second code", async () => {
    const {
      redis,
      set,
      sandbox,
      replicas: [first, second],
    } = await replicas(0);
    const args = {
      project_id: sandbox.workspaceProjectId,
      task_id: sandbox.ids.taskId,
      body: "Confirmed before a restart.",
    };
    const client = await confirmingClient("store-restart", first.mcpUrl, { "x-api-key": SANDBOX_API_KEY });
    const call = (extra: Record<string, unknown> = {}) =>
      client.callTool(
        { name: "tasks_comments", arguments: args, ...extra },
        { allowInputRequired: true },
      ) as Promise<Record<string, unknown>>;
    const posts = () =>
      sandbox.requests.filter(({ method, path }) => method === "POST" && path.startsWith(COMMENTS_PATH));
    try {
      const question = await call();
      const accept = {
        inputResponses: { confirm_write: { action: "accept", content: {} } },
        requestState: question.requestState,
      };
      expect((await call(accept)).isError).toBeUndefined();
      expect(posts()).toHaveLength(1);

      // Two consent pages at the choice step: one allowed (a code), one left open.
      const choices = async () => {
        const page = await openConsent((await startFlow(set.front)).authorizationUrl);
        const keyStep = await postTo(first, set.front, page, { step: "key", workspace_key: SANDBOX_API_KEY });
        return { ...page, html: await keyStep.text() };
      };
      const allowFields = { step: "allow", ...scopeFields(["workspace:read"]) };
      const answered = await choices();
      const left = await choices();
      expect((await postTo(first, set.front, answered, allowFields)).status).toBe(303);

      await redis.stop();
      await redis.start();
      await allReady([first, second], 200);

      const replayed = await call(accept);
      expect(replayed.resultType).toBe("input_required");
      expect(replayed.requestState).not.toBe(accept.requestState);
      expect(posts()).toHaveLength(1);
      for (const [page, replica] of [
        [answered, second],
        [left, first],
      ] as const) {
        const again = await postTo(replica, set.front, page, allowFields);
        expect(again.status).toBe(409);
        expect(again.headers.get("location")).toBeNull();
        expect(await again.text()).toContain("Start the sign-in again");
      }
    } finally {
      await client.close();
    }
  });
});
