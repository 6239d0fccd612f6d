// Sign-in metrics as an operator's collector sees them: the OAuth flow of the HTTP transport counts a
// sign-in when consent issues a code, and each refused step under a reason of a fixed list, exported
// over OTLP to a receiver on loopback. No key, code or token reaches the export.
import { readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { TelemetrySettings } from "../../src/config/types.js";
import { REASON_LABEL, REFUSAL_REASONS } from "../../src/oauth/metrics.js";
import { PROMPTS } from "../../src/prompts/definitions.js";
import { SANDBOX_API_KEY } from "../../src/sandbox/index.js";
import { startTelemetry, stopTelemetry } from "../../src/telemetry/index.js";
import { ALL_TOOL_NAMES } from "../../src/tools/register.js";
import {
  consent,
  type OAuthHarness,
  openConsent,
  postConsent,
  postForm,
  signInByHand,
  startFlow,
  startOAuth,
} from "../oauth-harness.js";
import { type OtlpReceiver, startOtlpReceiver } from "../otlp-receiver.js";

const NAMES = { tools: ALL_TOOL_NAMES, prompts: new Set(PROMPTS.map((prompt) => prompt.name)) };
const OFF: TelemetrySettings = { metricsHost: "127.0.0.1", recordContent: false };
const WRONG_KEY = "wrong-key-7d41c09e5b";

let receiver: OtlpReceiver;
let server: OAuthHarness;
beforeEach(async () => {
  receiver = await startOtlpReceiver();
  const env = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" };
  expect(await startTelemetry(OFF, env, NAMES)).toBeDefined();
  server = await startOAuth();
});
afterEach(async () => {
  await server.close();
  await stopTelemetry();
  await receiver.close();
});

/** A counter's value per label set, as its last export gave it (exports are cumulative). */
function counts(metric: string): Record<string, number> {
  const last: Record<string, number> = {};
  for (const point of receiver.points(metric)) {
    last[String(point.attributes[REASON_LABEL] ?? "")] = point.value;
  }
  return last;
}

describe("sign-in metrics", () => {
  it("count each code issued after consent, and each refused step by its reason", async () => {
    const token = (fields: Record<string, string>) => postForm(`${server.origin}/token`, fields);
    // A whole sign-in, then its refresh token used twice: the reuse revokes the grant, and the
    // rotated token then finds no grant.
    const { flow, tokens } = await signInByHand(server.origin, { workspaceKey: SANDBOX_API_KEY });
    const refresh = (refreshToken: string) =>
      token({ grant_type: "refresh_token", refresh_token: refreshToken, client_id: flow.clientId });
    const rotated = await refresh(tokens.refresh_token);
    expect(rotated.status).toBe(200);
    expect((await refresh(tokens.refresh_token)).status).toBe(400);
    expect((await refresh(String(rotated.body?.refresh_token))).status).toBe(400);

    // A key the API refuses, and a form posted with a CSRF token not its own.
    const keyFlow = await startFlow(server.origin);
    const page = await openConsent(keyFlow.authorizationUrl);
    const refusedKey = await postConsent(server.origin, page, { step: "key", workspace_key: WRONG_KEY });
    expect(refusedKey.status).toBe(400);
    expect(await refusedKey.text()).toContain("refused this key");
    const forged = await postConsent(
      server.origin,
      page,
      { step: "key", workspace_key: SANDBOX_API_KEY },
      {
        csrf: "forged",
      },
    );
    expect(forged.status).toBe(403);

    // A redirect URI the client did not register.
    const strayRedirect = new URL(keyFlow.authorizationUrl);
    strayRedirect.searchParams.set("redirect_uri", "http://127.0.0.1:9/elsewhere");
    expect((await openConsent(strayRedirect)).status).toBe(400);

    // A code exchanged with the wrong PKCE verifier is spent: the right one then finds it unknown.
    const pkceFlow = await startFlow(server.origin);
    const pkceCode = (
      await consent(server.origin, pkceFlow.authorizationUrl, { workspaceKey: SANDBOX_API_KEY })
    ).get("code")!;
    const exchange = (flowOf: typeof pkceFlow, code: string, verifier: string) =>
      token({
        grant_type: "authorization_code",
        code,
        redirect_uri: flowOf.redirectUri,
        code_verifier: verifier,
        client_id: flowOf.clientId,
      });
    expect((await exchange(pkceFlow, pkceCode, "v".repeat(43))).status).toBe(400);
    expect((await exchange(pkceFlow, pkceCode, pkceFlow.verifier)).status).toBe(400);

    // A code presented a second time after it was exchanged.
    const codeFlow = await startFlow(server.origin);
    const code = (
      await consent(server.origin, codeFlow.authorizationUrl, { workspaceKey: SANDBOX_API_KEY })
    ).get("code")!;
    expect((await exchange(codeFlow, code, codeFlow.verifier)).status).toBe(200);
    expect((await exchange(codeFlow, code, codeFlow.verifier)).status).toBe(400);

    await stopTelemetry();
    expect(counts("agent_workspace.oauth.signins")).toEqual({ "": 3 });
    expect(counts("agent_workspace.oauth.refusals")).toEqual({
      refresh_reused: 1,
      grant_revoked: 1,
      key_refused: 1,
      csrf: 1,
      redirect_uri: 1,
      pkce_mismatch: 1,
      code_unknown: 1,
      code_reused: 1,
    });
    const exported = receiver.allText();
    for (const secret of [
      SANDBOX_API_KEY,
      WRONG_KEY,
      tokens.refresh_token,
      tokens.access_token,
      code,
      flow.clientId,
    ]) {
      expect(exported).not.toContain(secret);
    }
  });
});

describe("docs/observability.md", () => {
  it("names every refusal reason, and no other, in its list of sign-in refusals", () => {
    const text = readFileSync(new URL("../../docs/observability.md", import.meta.url), "utf8");
    const section = /\*\*Sign-in refusals\.\*\*([\s\S]*?)\n\n/.exec(text)?.[1] ?? "";
    const named = [...section.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]);
    expect(new Set(named)).toEqual(new Set(REFUSAL_REASONS));
  });
});
