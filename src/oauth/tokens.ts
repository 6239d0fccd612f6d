// The token endpoint's grants (authorization code with PKCE S256, refresh token), revocation (RFC 7009)
// and the check of an access token on /mcp. Codes and refresh tokens are single-use (the store's take);
// a used one presented again revokes the grant it led to. Grants live in the store under their TTL.
import { createHash, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import type { SharedStore } from "../state/store.js";
import type { KnownClient } from "./clients.js";
import { type CodeRecord, codeKey, sameResource } from "./consent.js";
import type { AuthorizedGrant, GrantCredentials } from "./grant.js";
import { refusal } from "./metrics.js";
import {
  type AccessClaims,
  digestOf,
  type Keyring,
  mintAccessToken,
  openAccessToken,
  TokenRefused,
  unseal,
} from "./seal.js";

/** Access tokens live an hour at most: a revoked grant's tokens are refused at once anyway (see verify). */
export const ACCESS_TOKEN_SECONDS = 3600;
/** A grant unused this long expires; each refresh extends it. */
export const GRANT_TTL_MS = 30 * 24 * 3600_000;
/** How long a used code is remembered, to revoke what it led to if it comes back. */
const USED_CODE_TTL_MS = 10 * 60_000;
/** Verified tokens remembered per process, so a call does not decrypt its token again. */
const MAX_VERIFIED = 10_000;

/** A grant (store: oauth:grant:<id>): its client and the person's credentials, sealed. */
interface GrantRecord {
  clientId: string;
  sealed: string;
}

const grantKey = (id: string) => `oauth:grant:${id}`;
const refreshKey = (token: string) => `oauth:refresh:${digestOf(token)}`;
const usedRefreshKey = (token: string) => `oauth:refresh-used:${digestOf(token)}`;
const usedCodeKey = (code: string) => `oauth:code-used:${digestOf(code)}`;

export interface TokenAnswer {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token: string;
  /** What the grant allows (RFC 6749 §5.1), so a client knows when it must ask for more. */
  scope: string;
}

export class TokenService {
  private readonly verified = new Map<string, AccessClaims>();

  constructor(
    private readonly store: SharedStore,
    private readonly keys: Keyring,
    private readonly audience: { issuer: string; resource: string },
  ) {}

  async exchangeCode(form: URLSearchParams, client: KnownClient): Promise<TokenAnswer> {
    const code = required(form, "code");
    const taken = await this.store.take(codeKey(code));
    if (taken === undefined) {
      // A code presented twice: whatever the first use obtained is revoked (RFC 6749 §4.1.2).
      const grantId = await this.store.take(usedCodeKey(code));
      if (grantId) await this.store.delete(grantKey(grantId));
      throw refusal(
        grantId ? "code_reused" : "code_unknown",
        "invalid_grant",
        "the code is unknown, expired or already used",
      );
    }
    const record = JSON.parse(taken) as CodeRecord;
    if (record.clientId !== client.clientId)
      throw refusal("code_client", "invalid_grant", "the code was issued to another client");
    if (form.get("redirect_uri") !== record.redirectUri) {
      throw refusal(
        "redirect_mismatch",
        "invalid_grant",
        "redirect_uri differs from the authorization request's",
      );
    }
    const resource = form.get("resource");
    if (resource !== null && !sameResource(resource, record.resource)) {
      throw refusal("resource", "invalid_target", `resource must be ${record.resource}`);
    }
    if (!pkceMatches(form.get("code_verifier") ?? "", record.challenge)) {
      throw refusal(
        "pkce_mismatch",
        "invalid_grant",
        "code_verifier does not match the code_challenge (PKCE S256)",
      );
    }
    const grantId = randomUUID();
    await this.store.set(
      grantKey(grantId),
      JSON.stringify({ clientId: client.clientId, sealed: record.sealed }),
      GRANT_TTL_MS,
    );
    await this.store.set(usedCodeKey(code), grantId, USED_CODE_TTL_MS);
    const credentials = JSON.parse(await unseal(this.keys, record.sealed)) as GrantCredentials;
    return this.answer(grantId, client.clientId, credentials);
  }

  async refresh(form: URLSearchParams, client: KnownClient): Promise<TokenAnswer> {
    const token = required(form, "refresh_token");
    const grantId = await this.store.take(refreshKey(token));
    if (grantId === undefined) {
      // A rotated-out refresh token is back: someone holds a copy, so the whole grant goes.
      const reused = await this.store.get(usedRefreshKey(token));
      if (reused) await this.store.delete(grantKey(reused));
      throw refusal(
        reused ? "refresh_reused" : "refresh_unknown",
        "invalid_grant",
        "the refresh token is unknown, expired, revoked or already used",
      );
    }
    await this.store.set(usedRefreshKey(token), grantId, GRANT_TTL_MS);
    const stored = await this.store.get(grantKey(grantId));
    if (stored === undefined)
      throw refusal("grant_revoked", "invalid_grant", "the grant was revoked or has expired");
    const grant = JSON.parse(stored) as GrantRecord;
    if (grant.clientId !== client.clientId) {
      await this.store.delete(grantKey(grantId));
      throw refusal("refresh_client", "invalid_grant", "the refresh token was issued to another client");
    }
    await this.store.set(grantKey(grantId), stored, GRANT_TTL_MS);
    const credentials = JSON.parse(await unseal(this.keys, grant.sealed)) as GrantCredentials;
    return this.answer(grantId, client.clientId, credentials);
  }

  /** RFC 7009: a refresh or access token; the grant behind it ends. Unknown tokens are not an error. */
  async revoke(token: string, client: KnownClient): Promise<void> {
    const grantId = await this.store.take(refreshKey(token));
    if (grantId !== undefined) return this.endGrant(grantId, client);
    try {
      const claims = await openAccessToken(this.keys, this.audience, token);
      if (claims.clientId === client.clientId) await this.store.delete(grantKey(claims.grantId));
    } catch (error) {
      if (!(error instanceof TokenRefused)) throw error;
    }
  }

  private async endGrant(grantId: string, client: KnownClient): Promise<void> {
    const stored = await this.store.get(grantKey(grantId));
    if (stored && (JSON.parse(stored) as GrantRecord).clientId === client.clientId) {
      await this.store.delete(grantKey(grantId));
    }
  }

  /** The grant an access token stands for; TokenRefused when it is not valid here, expired or revoked. */
  async verify(token: string): Promise<AuthorizedGrant> {
    let claims = this.verified.get(token);
    if (claims === undefined) {
      claims = await openAccessToken(this.keys, this.audience, token);
      if (this.verified.size >= MAX_VERIFIED) this.verified.clear();
      this.verified.set(token, claims);
    }
    if (claims.expiresAt * 1000 <= Date.now()) {
      this.verified.delete(token);
      throw new TokenRefused("the access token has expired");
    }
    // Revocation reaches tokens already issued: the grant must still be there.
    if ((await this.store.get(grantKey(claims.grantId))) === undefined) {
      throw new TokenRefused("the sign-in behind this token was revoked or has expired; sign in again");
    }
    return { grantId: claims.grantId, clientId: claims.clientId, credentials: claims.credentials };
  }

  private async answer(
    grantId: string,
    clientId: string,
    credentials: GrantCredentials,
  ): Promise<TokenAnswer> {
    const refreshToken = randomBytes(32).toString("base64url");
    await this.store.set(refreshKey(refreshToken), grantId, GRANT_TTL_MS);
    const { token } = await mintAccessToken(
      this.keys,
      this.audience,
      { grantId, clientId, credentials },
      ACCESS_TOKEN_SECONDS,
    );
    return {
      access_token: token,
      token_type: "Bearer",
      expires_in: ACCESS_TOKEN_SECONDS,
      refresh_token: refreshToken,
      scope: credentials.scopes.join(" "),
    };
  }
}

function required(form: URLSearchParams, name: string): string {
  const value = form.get(name);
  if (!value) throw refusal("missing_parameter", "invalid_request", `${name} is missing`);
  return value;
}

/** RFC 7636 S256: BASE64URL(SHA256(verifier)) equals the challenge; the verifier is 43-128 unreserved characters. */
function pkceMatches(verifier: string, challenge: string): boolean {
  if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier)) return false;
  const computed = Buffer.from(createHash("sha256").update(verifier).digest("base64url"));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}
