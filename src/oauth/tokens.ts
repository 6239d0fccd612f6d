// The token endpoint's grants (authorization code with PKCE S256, refresh token), revocation (RFC 7009)
// and the check of an access token on /mcp. Every single use is one store step taken before anything is
// issued: a code is spent by swapping it for a "used" mark, a refresh token by swapping the grant's
// generation for the next. Whoever loses such a race, or brings a spent code or a rotated-out refresh
// token, revokes the grant. A grant is one store entry, however often it is refreshed.
import { createHash, createHmac, randomUUID, timingSafeEqual } from "node:crypto";
import { audit } from "../audit.js";
import { storeEpoch } from "../state/epoch.js";
import type { SharedStore } from "../state/store.js";
import type { KnownClient } from "./clients.js";
import { type CodeRecord, codeKey, sameResource } from "./consent.js";
import type { AuthorizedGrant, GrantCredentials } from "./grant.js";
import { type RefusalReason, refusal } from "./metrics.js";
import {
  type AccessClaims,
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
/** How long a spent code is remembered (in place of the code), to revoke what it led to if it comes back. */
const USED_CODE_TTL_MS = 10 * 60_000;
/** Verified tokens remembered per process, so a call does not decrypt its token again. */
const MAX_VERIFIED = 10_000;

/**
 * A grant (store: oauth:grant:<id>): its client, the person's credentials sealed, and the generation of
 * its one live refresh token. Refreshing moves the generation on; nothing else is kept per token. It
 * carries the store's epoch it was made under (src/state/epoch.ts): a grant of another epoch is gone,
 * since a store back from an older snapshot may hold grants revoked or refreshed since.
 */
interface GrantRecord {
  clientId: string;
  sealed: string;
  generation: number;
  epoch: string;
}

/** What a spent code's entry holds in place of the code: the grant it led to. */
interface SpentCode {
  usedFor?: string;
}

export const grantKey = (id: string) => `oauth:grant:${id}`;

/**
 * Why a grant ended: its client asked (/revoke), its code came back after the exchange or raced another,
 * its refresh token came back rotated out or raced another, or another client presented its refresh token.
 */
type RevocationReason =
  | "client_request"
  | "code_reused"
  | "code_race"
  | "rotated_out"
  | "refresh_race"
  | "foreign_client";

const REFRESH_TOKEN = /^([0-9a-f-]{36})\.(0|[1-9]\d{0,8})\.([A-Za-z0-9_-]{1,16})\.([A-Za-z0-9_-]{43})$/;

export interface TokenAnswer {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token: string;
  /** What the grant allows (RFC 6749 §5.1), so a client knows when it must ask for more. */
  scope: string;
}

/**
 * A grant's entry as a record, or undefined for an absent or older-format entry, or one made under
 * another epoch than `epoch` (sign in again).
 */
function grantOf(stored: string | undefined, epoch: string): GrantRecord | undefined {
  if (stored === undefined) return undefined;
  try {
    const record = JSON.parse(stored) as Partial<GrantRecord>;
    if (typeof record.clientId !== "string" || typeof record.sealed !== "string") return undefined;
    if (!Number.isSafeInteger(record.generation) || record.epoch !== epoch) return undefined;
    return record as GrantRecord;
  } catch {
    return undefined;
  }
}

export class TokenService {
  private readonly verified = new Map<string, AccessClaims>();

  constructor(
    private readonly store: SharedStore,
    private readonly keys: Keyring,
    private readonly audience: { issuer: string; resource: string },
  ) {}

  async exchangeCode(form: URLSearchParams, client: KnownClient): Promise<TokenAnswer> {
    const code = this.required(form, "code", client);
    const key = codeKey(code);
    const stored = await this.store.get(key);
    if (stored === undefined) {
      throw this.refused(
        client,
        "code_unknown",
        "invalid_grant",
        "the code is unknown, expired or already used",
      );
    }
    const spent = JSON.parse(stored) as Partial<SpentCode> & Partial<CodeRecord>;
    const record = spent as CodeRecord;
    // A spent code's mark holds no client.
    const isMark = typeof spent.clientId !== "string";
    const problem = isMark ? undefined : codeProblem(record, form, client);
    // The grant is written before the code is spent, so that whoever finds the code spent finds the
    // grant it led to, and revokes it.
    const grantId = randomUUID();
    if (!isMark && !problem) {
      const grant: GrantRecord = {
        clientId: client.clientId,
        sealed: record.sealed,
        generation: 0,
        epoch: await storeEpoch(this.store),
      };
      await this.store.set(grantKey(grantId), JSON.stringify(grant), GRANT_TTL_MS);
    }
    // The one step that spends the code, even on a refused exchange: of two at once, one swaps it for
    // its mark, which names the grant it led to (none when refused).
    const used: SpentCode = problem ? {} : { usedFor: grantId };
    if (isMark || !(await this.store.swap(key, stored, JSON.stringify(used), USED_CODE_TTL_MS))) {
      // This exchange's own grant was never issued: its removal is no revocation.
      if (!isMark && !problem) await this.store.delete(grantKey(grantId));
      // A code presented twice: whatever the first use obtained is revoked (RFC 6749 §4.1.2).
      const winner = spent.usedFor ?? this.spentFor(await this.store.get(key));
      if (winner !== undefined) await this.revokeGrant(winner, client, isMark ? "code_reused" : "code_race");
      throw this.refused(
        client,
        winner ? "code_reused" : "code_unknown",
        "invalid_grant",
        "the code is unknown, expired or already used",
        winner,
      );
    }
    if (problem) throw this.refused(client, ...problem);
    const credentials = JSON.parse(await unseal(this.keys, record.sealed)) as GrantCredentials;
    // The grant is born here: this line ties its id to the client the person consented to.
    audit("signin", {
      grant: grantId,
      client: client.clientId,
      scopes: credentials.scopes.join(" "),
      outcome: "ok",
    });
    return this.answer(grantId, 0, client.clientId, credentials);
  }

  async refresh(form: URLSearchParams, client: KnownClient): Promise<TokenAnswer> {
    const token = this.readRefreshToken(this.required(form, "refresh_token", client));
    const unknown = "the refresh token is unknown, expired, revoked or already used";
    if (token === undefined) throw this.refused(client, "refresh_unknown", "invalid_grant", unknown);
    const { grantId, generation } = token;
    const key = grantKey(grantId);
    const stored = await this.store.get(key);
    const grant = grantOf(stored, await storeEpoch(this.store));
    if (stored === undefined || grant === undefined)
      throw this.refused(client, "grant_revoked", "invalid_grant", unknown, grantId);
    if (grant.clientId !== client.clientId) {
      // A genuine token of this grant in another client's hands: the grant's tokens have leaked.
      await this.revokeGrant(grantId, client, "foreign_client");
      throw this.refused(
        client,
        "refresh_client",
        "invalid_grant",
        "the refresh token was issued to another client",
        grantId,
      );
    }
    const next: GrantRecord = { ...grant, generation: grant.generation + 1 };
    // The one step that spends the token: the grant moves from its generation to the next only once.
    const won =
      generation === grant.generation &&
      (await this.store.swap(key, stored, JSON.stringify(next), GRANT_TTL_MS));
    if (!won) {
      // A rotated-out token is back, or two refreshes raced: someone holds a copy, so the grant goes.
      const why = generation === grant.generation ? "race" : "rotated_out";
      audit("refresh_reuse", { grant: grantId, client: client.clientId, outcome: "revoked", reason: why });
      await this.revokeGrant(grantId, client, why === "race" ? "refresh_race" : "rotated_out");
      throw this.refused(client, "refresh_reused", "invalid_grant", unknown, grantId);
    }
    const credentials = JSON.parse(await unseal(this.keys, grant.sealed)) as GrantCredentials;
    return this.answer(grantId, next.generation, client.clientId, credentials);
  }

  /**
   * RFC 7009: a refresh or access token; the grant behind it ends, but only when it is the calling
   * client's (§2.1): another client's token is left working. Either way the answer is the same.
   */
  async revoke(token: string, client: KnownClient): Promise<void> {
    let grantId = this.readRefreshToken(token)?.grantId;
    if (grantId === undefined) {
      try {
        grantId = (await openAccessToken(this.keys, this.audience, token)).grantId;
      } catch (error) {
        if (!(error instanceof TokenRefused)) throw error;
      }
    }
    const grant =
      grantId === undefined
        ? undefined
        : grantOf(await this.store.get(grantKey(grantId)), await storeEpoch(this.store));
    let outcome = "unknown";
    if (grantId !== undefined && grant !== undefined) {
      if (grant.clientId !== client.clientId) outcome = "not_owner";
      // Revoked: revokeGrant wrote the line. Gone meanwhile (revoked by another step): unknown.
      else if (await this.revokeGrant(grantId, client, "client_request")) return;
    }
    audit("revocation", { grant: grant ? grantId : undefined, client: client.clientId, outcome });
  }

  /**
   * Ends a grant: its entry taken in one step, so of several callers ending it at once (a race's
   * losers) exactly one writes its `revocation` line. True when this call ended it.
   */
  private async revokeGrant(
    grantId: string,
    client: KnownClient,
    reason: RevocationReason,
  ): Promise<boolean> {
    if ((await this.store.take(grantKey(grantId))) === undefined) return false;
    audit("revocation", { grant: grantId, client: client.clientId, outcome: "revoked", reason });
    return true;
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
    // Revocation reaches tokens already issued: the grant must still be there, of this epoch.
    const stored = await this.store.get(grantKey(claims.grantId));
    if (grantOf(stored, await storeEpoch(this.store)) === undefined) {
      throw new TokenRefused("the sign-in behind this token was revoked or has expired; sign in again");
    }
    return { grantId: claims.grantId, clientId: claims.clientId, credentials: claims.credentials };
  }

  private async answer(
    grantId: string,
    generation: number,
    clientId: string,
    credentials: GrantCredentials,
  ): Promise<TokenAnswer> {
    const refreshToken = this.refreshToken(grantId, generation);
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

  /**
   * A grant's refresh token of one generation: `<grant>.<generation>.<kid>.<MAC>`, the MAC under the
   * operator's secret, so the store keeps no token and a rotated-out token is still known for one.
   */
  private refreshToken(grantId: string, generation: number): string {
    const { kid, sign } = this.keys.current;
    return `${grantId}.${generation}.${kid}.${refreshMac(sign, grantId, generation)}`;
  }

  /** The grant and generation a refresh token names, when this server made it; undefined otherwise. */
  private readRefreshToken(token: string): { grantId: string; generation: number } | undefined {
    const [, grantId, generation, kid, mac] = REFRESH_TOKEN.exec(token) ?? [];
    const key = this.keys.find(kid);
    if (!grantId || !generation || !mac || !key) return undefined;
    const expected = Buffer.from(refreshMac(key.sign, grantId, Number(generation)));
    const given = Buffer.from(mac);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    return { grantId, generation: Number(generation) };
  }

  /** The grant a spent code's mark names. */
  private spentFor(stored: string | undefined): string | undefined {
    if (stored === undefined) return undefined;
    const mark = JSON.parse(stored) as Partial<SpentCode>;
    return typeof mark.usedFor === "string" ? mark.usedFor : undefined;
  }

  private required(form: URLSearchParams, name: string, client: KnownClient): string {
    const value = form.get(name);
    if (!value) throw this.refused(client, "missing_parameter", "invalid_request", `${name} is missing`);
    return value;
  }

  /** A refused token request: counted, one audit line (never the token), and the failure to throw. */
  private refused(
    client: KnownClient,
    reason: RefusalReason,
    error: string,
    description: string,
    grant?: string,
  ) {
    audit("signin_refused", { grant, client: client.clientId, outcome: "refused", reason });
    return refusal(reason, error, description);
  }
}

function refreshMac(sign: Uint8Array, grantId: string, generation: number): string {
  return createHmac("sha256", sign).update(`refresh-token\n${grantId}\n${generation}`).digest("base64url");
}

/** Why a code's exchange is refused (its reason, error and description), or undefined when it is not. */
function codeProblem(
  record: CodeRecord,
  form: URLSearchParams,
  client: KnownClient,
): [RefusalReason, string, string] | undefined {
  if (record.clientId !== client.clientId)
    return ["code_client", "invalid_grant", "the code was issued to another client"];
  if (form.get("redirect_uri") !== record.redirectUri)
    return ["redirect_mismatch", "invalid_grant", "redirect_uri differs from the authorization request's"];
  const resource = form.get("resource");
  if (resource !== null && !sameResource(resource, record.resource))
    return ["resource", "invalid_target", `resource must be ${record.resource}`];
  if (!pkceMatches(form.get("code_verifier") ?? "", record.challenge))
    return ["pkce_mismatch", "invalid_grant", "code_verifier does not match the code_challenge (PKCE S256)"];
  return undefined;
}

/** RFC 7636 S256: BASE64URL(SHA256(verifier)) equals the challenge; the verifier is 43-128 unreserved characters. */
function pkceMatches(verifier: string, challenge: string): boolean {
  if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier)) return false;
  const computed = Buffer.from(createHash("sha256").update(verifier).digest("base64url"));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}
