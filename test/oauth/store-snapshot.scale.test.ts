// A Redis restarted from an older snapshot (SAVE, then steps, then SHUTDOWN NOSAVE and a start from
// the snapshot) under two replicas behind nginx: the snapshot holds the epoch, the grants and none of
// the later spent marks, revocations or rotations. The restart starts a new epoch: the confirmation
// answered after the snapshot is refused (nothing posted twice), the revoked grant stays revoked, and
// neither the rotated-out nor the current refresh token works (everyone signs in again).
import { createClient } from "@redis/client";
import { afterEach, describe, expect, it } from "vitest";
import { SANDBOX_API_KEY } from "../../src/sandbox/index.js";
import { KEY_PREFIX } from "../../src/state/redis.js";
import { eventually } from "../http-helpers.js";
import { rawMcp, refreshAt, revokeAt, signInByHand, TEST_SECRET } from "../oauth-harness.js";
import {
  confirmingClient,
  oauthReplicaArgs,
  type Replica,
  readiness,
  type SharedReplicas,
  startSharedReplicas,
} from "../replicas.js";

const COMMENTS_PATH = "/api/v1/business/tasks/comments";

let shared: SharedReplicas | undefined;
afterEach(async () => {
  await shared?.close();
  shared = undefined;
});

describe("Redis restarted from a snapshot older than the last steps", () => {
  it("refuses the spent confirmation, the revoked grant and the rotated-out refresh token", async () => {
    shared = await startSharedReplicas({
      count: 2,
      sandbox: { record: true },
      env: { MCP_OAUTH_SECRET: TEST_SECRET },
      redis: { args: ["--dbfilename", "snapshot.rdb"] },
      args: (front) => oauthReplicaArgs(front, 0, "--confirm-writes"),
    });
    const { redis, set, sandbox } = shared;
    const [first, second] = set.replicas as [Replica, Replica];
    const front = set.front;
    const admin = createClient({ url: redis.url });
    admin.on("error", () => {});
    await admin.connect();
    const client = await confirmingClient("store-snapshot", first.mcpUrl, { "x-api-key": SANDBOX_API_KEY });
    const args = {
      project_id: sandbox.workspaceProjectId,
      task_id: sandbox.ids.taskId,
      body: "Confirmed after the snapshot.",
    };
    const call = (extra: Record<string, unknown> = {}) =>
      client.callTool(
        { name: "tasks_comments", arguments: args, ...extra },
        { allowInputRequired: true },
      ) as Promise<Record<string, unknown>>;
    const posts = () =>
      sandbox.requests.filter(({ method, path }) => method === "POST" && path.startsWith(COMMENTS_PATH));
    const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
    try {
      const revoked = await signInByHand(front, { workspaceKey: SANDBOX_API_KEY });
      const rotated = await signInByHand(front, { workspaceKey: SANDBOX_API_KEY });
      const question = await call();
      const accept = {
        inputResponses: { confirm_write: { action: "accept", content: {} } },
        requestState: question.requestState,
      };
      expect(await admin.sendCommand(["SAVE"])).toBe("OK");

      // After the save point: the write confirmed, one grant revoked, the other's refresh token rotated.
      expect((await call(accept)).isError).toBeUndefined();
      expect(posts()).toHaveLength(1);
      expect((await revokeAt(front, revoked.flow.clientId, revoked.tokens.refresh_token)).status).toBe(200);
      expect((await rawMcp(first.mcpUrl, bearer(revoked.tokens.access_token))).status).toBe(401);
      const next = await refreshAt(front, rotated.flow.clientId, rotated.tokens.refresh_token);
      expect(next.status).toBe(200);
      const nextRefresh = String(next.body?.refresh_token);

      void admin.sendCommand(["SHUTDOWN", "NOSAVE"]).catch(() => undefined);
      await redis.stop();
      await redis.start();
      for (const replica of [first, second])
        expect(await eventually(async () => (await readiness(replica)).status === 200)).toBe(true);
      // The snapshot brought the revoked grant back, as a Redis would.
      const revokedGrant = revoked.tokens.refresh_token.slice(0, 36);
      const raw = createClient({ url: redis.url });
      await raw.connect();
      expect(await raw.exists(`${KEY_PREFIX}oauth:grant:${revokedGrant}`)).toBe(1);
      raw.destroy();

      const replayed = await call(accept);
      expect(replayed.resultType).toBe("input_required");
      expect(posts()).toHaveLength(1);
      for (const replica of [first, second]) {
        const refused = await rawMcp(replica.mcpUrl, bearer(revoked.tokens.access_token));
        expect(refused.status).toBe(401);
        expect((await rawMcp(replica.mcpUrl, bearer(rotated.tokens.access_token))).status).toBe(401);
      }
      for (const [flow, token] of [
        [revoked.flow, revoked.tokens.refresh_token],
        [rotated.flow, rotated.tokens.refresh_token],
        [rotated.flow, nextRefresh],
      ] as const) {
        const again = await refreshAt(front, flow.clientId, token);
        expect(again.status).toBe(400);
        expect(again.body?.error).toBe("invalid_grant");
      }
      // No tool call reached the API with any of those tokens.
      expect(posts()).toHaveLength(1);
    } finally {
      await client.close();
      admin.destroy();
    }
  });
});
