// What the consent tests share beside oauth-harness.ts: the audit lines logged so far, and a page of
// choices allowed and its code exchanged, read back as what the access token holds.
import { expect } from "vitest";
import type { GrantCredentials } from "../../src/oauth/grant.js";
import { Keyring, openAccessToken } from "../../src/oauth/seal.js";
import { logLines } from "../log-capture.js";
import {
  type ConsentPage,
  exchangeAt,
  type HandFlow,
  type OAuthHarness,
  postConsent,
  TEST_SECRET,
} from "../oauth-harness.js";

/** The audit lines logged so far in this test, without their time, level and message. */
export const auditLines = () =>
  logLines()
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.message === "audit")
    .map(({ time: _time, level: _level, message: _message, ...rest }) => rest);

/** Allows `scopes` (and `extra` fields) on a page of choices and exchanges the code: what the token holds. */
export async function granted(
  target: OAuthHarness,
  flow: HandFlow,
  choices: ConsentPage,
  scopes: readonly string[],
  extra: Record<string, string> = {},
): Promise<GrantCredentials> {
  const fields = Object.fromEntries(scopes.map((scope) => [scope, "1"]));
  const allowed = await postConsent(target.origin, choices, { step: "allow", ...fields, ...extra });
  expect(allowed.status).toBe(303);
  const code = new URL(allowed.headers.get("location") ?? "").searchParams.get("code") ?? "";
  const exchanged = await exchangeAt(target.origin, flow, code);
  const audience = { issuer: target.origin, resource: `${target.origin}/mcp` };
  const token = String(exchanged.body?.access_token);
  return (await openAccessToken(new Keyring([TEST_SECRET]), audience, token)).credentials;
}
