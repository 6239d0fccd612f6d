// Grants are bound to the store's epoch: a store back from an older snapshot (its grants as they were,
// under a new epoch, as the Redis store makes one for a new run_id) has every grant refused: a revoked
// grant restored, a rotated-out refresh token, and the current one too (sign in again). The same
// restore under the same epoch would have brought them back. On a real Redis:
// test/oauth/store-snapshot.scale.test.ts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SANDBOX_API_KEY } from "../../src/sandbox/index.js";
import { memoryStore, type SharedStore } from "../../src/state/store.js";
import {
  type OAuthHarness,
  rawMcp,
  refreshAt,
  revokeAt,
  signInByHand,
  startOAuth,
} from "../oauth-harness.js";

/** The in-memory store keeping its epoch as the Redis store does: one per process run_id (a fake INFO). */
function restartableStore(): SharedStore & { runId: string } {
  const inner = memoryStore();
  let made: { runId: string; value: string } | undefined;
  const store = {
    ...inner,
    runId: "run-1",
    async epoch(fresh: string) {
      if (made?.runId !== store.runId) made = { runId: store.runId, value: fresh };
      return made.value;
    },
  };
  return store;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const grantKeyOf = (refreshToken: string) => `oauth:grant:${refreshToken.slice(0, 36)}`;

let server: OAuthHarness;
let store: ReturnType<typeof restartableStore>;
beforeAll(async () => {
  store = restartableStore();
  server = await startOAuth({ store });
});
afterAll(() => server.close());

describe("a grant of another epoch is gone", () => {
  it("a revoked grant restored as a snapshot holds it: back under the same epoch, refused under a new one", async () => {
    const { flow, tokens } = await signInByHand(server.origin, { workspaceKey: SANDBOX_API_KEY });
    const key = grantKeyOf(tokens.refresh_token);
    const snapshot = (await store.get(key))!;
    expect((await revokeAt(server.origin, flow.clientId, tokens.access_token)).status).toBe(200);
    expect((await rawMcp(server.url, bearer(tokens.access_token))).status).toBe(401);

    // Restored, same process: the grant is back (what the epoch guards against).
    await store.set(key, snapshot, 60_000);
    expect((await rawMcp(server.url, bearer(tokens.access_token))).status).toBe(200);
    // Restored by a restart: a new run_id, a new epoch, the grant refused everywhere.
    store.runId = "run-2";
    expect((await rawMcp(server.url, bearer(tokens.access_token))).status).toBe(401);
    const refreshed = await refreshAt(server.origin, flow.clientId, tokens.refresh_token);
    expect(refreshed.status).toBe(400);
    expect(refreshed.body?.error).toBe("invalid_grant");
    // Revoking it is no revocation: it is gone already.
    expect((await revokeAt(server.origin, flow.clientId, tokens.refresh_token)).status).toBe(200);
    expect(await store.get(key)).toBe(snapshot);
  });

  it("a rotated-out refresh token after a restart from before its rotation: refused, and the current one too", async () => {
    const { flow, tokens } = await signInByHand(server.origin, { workspaceKey: SANDBOX_API_KEY });
    const key = grantKeyOf(tokens.refresh_token);
    const snapshot = (await store.get(key))!;
    const next = await refreshAt(server.origin, flow.clientId, tokens.refresh_token);
    expect(next.status).toBe(200);
    await store.set(key, snapshot, 60_000);
    store.runId = "run-3";
    for (const token of [tokens.refresh_token, String(next.body?.refresh_token)]) {
      const again = await refreshAt(server.origin, flow.clientId, token);
      expect(again.status).toBe(400);
      expect(again.body?.error).toBe("invalid_grant");
    }
    // A new sign-in works under the new epoch.
    const fresh = await signInByHand(server.origin, { workspaceKey: SANDBOX_API_KEY });
    expect((await rawMcp(server.url, bearer(fresh.tokens.access_token))).status).toBe(200);
  });
});
