// The operator's secrets as keys, and everything sealed or signed with them: access tokens (JWE, so the
// person's key inside is unreadable to the client), sealed credentials in the store, and the client ids
// registration hands out (JWS, so registration keeps no state). jose does the cryptography.
import { createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from "node:crypto";
import { CompactEncrypt, compactDecrypt, EncryptJWT, errors, jwtDecrypt, jwtVerify, SignJWT } from "jose";
import type { GrantCredentials } from "./grant.js";

interface Key {
  kid: string;
  /** AES-256-GCM key of the JWEs (alg dir). */
  seal: Uint8Array;
  /** HMAC-SHA256 key of the client ids and client secrets. */
  sign: Uint8Array;
}

const derive = (secret: string, purpose: string) =>
  new Uint8Array(hkdfSync("sha256", secret, "agent-workspace-mcp", purpose, 32));

/** The first secret seals and signs; every one opens and verifies, so a secret can be rotated. */
export class Keyring {
  private readonly keys: Key[];
  private readonly byKid = new Map<string, Key>();

  constructor(secrets: readonly string[]) {
    if (secrets.length === 0) throw new Error("a keyring needs at least one secret");
    this.keys = secrets.map((secret) => {
      const seal = derive(secret, "oauth seal");
      const kid = createHash("sha256").update(seal).digest("base64url").slice(0, 8);
      return { kid, seal, sign: derive(secret, "oauth sign") };
    });
    for (const key of this.keys) this.byKid.set(key.kid, key);
  }

  get current(): Key {
    return this.keys[0] as Key;
  }

  find(kid: unknown): Key | undefined {
    return typeof kid === "string" ? this.byKid.get(kid) : undefined;
  }
}

/** What an access token carries, sealed: whose grant, which client, and the credentials calls use. */
export interface AccessClaims {
  grantId: string;
  clientId: string;
  credentials: GrantCredentials;
  expiresAt: number;
}

export async function mintAccessToken(
  keys: Keyring,
  audience: { issuer: string; resource: string },
  claims: Omit<AccessClaims, "expiresAt">,
  lifetimeSeconds: number,
): Promise<{ token: string; expiresAt: number }> {
  const { kid, seal } = keys.current;
  const now = Math.floor(Date.now() / 1000);
  const token = await new EncryptJWT({ gid: claims.grantId, cid: claims.clientId, cred: claims.credentials })
    .setProtectedHeader({ alg: "dir", enc: "A256GCM", kid, typ: "at+jwt" })
    .setIssuer(audience.issuer)
    .setAudience(audience.resource)
    .setIssuedAt(now)
    .setExpirationTime(now + lifetimeSeconds)
    .encrypt(seal);
  return { token, expiresAt: now + lifetimeSeconds };
}

/** Why a token was refused, in words safe to send back (no part of the token). */
export class TokenRefused extends Error {}

export async function openAccessToken(
  keys: Keyring,
  audience: { issuer: string; resource: string },
  token: string,
): Promise<AccessClaims> {
  try {
    const { payload } = await jwtDecrypt(token, (header) => keyOf(keys, header.kid).seal, {
      issuer: audience.issuer,
      audience: audience.resource,
      typ: "at+jwt",
      keyManagementAlgorithms: ["dir"],
      contentEncryptionAlgorithms: ["A256GCM"],
    });
    const { gid, cid, cred, exp } = payload as { gid?: unknown; cid?: unknown; cred?: unknown; exp?: number };
    if (typeof gid !== "string" || typeof cid !== "string" || !isCredentials(cred) || !exp) {
      throw new TokenRefused("the access token is malformed");
    }
    return { grantId: gid, clientId: cid, credentials: cred, expiresAt: exp };
  } catch (error) {
    throw refusal(error, "access token");
  }
}

/** A value sealed or signed under a secret that is not (or no longer) among the server's. */
class UnknownKey extends Error {}

function keyOf(keys: Keyring, kid: unknown): Key {
  const key = keys.find(kid);
  if (!key) throw new UnknownKey();
  return key;
}

function refusal(error: unknown, what: string): TokenRefused {
  if (error instanceof TokenRefused) return error;
  if (error instanceof UnknownKey)
    return new TokenRefused(`the ${what} was sealed under a secret this server no longer holds`);
  if (error instanceof errors.JWTExpired) return new TokenRefused(`the ${what} has expired`);
  if (error instanceof errors.JWTClaimValidationFailed && error.claim === "aud") {
    return new TokenRefused(`the ${what} was issued for another resource`);
  }
  return new TokenRefused(`the ${what} is not one this server issued, or was altered`);
}

function isCredentials(value: unknown): value is GrantCredentials {
  const cred = value as GrantCredentials | undefined;
  return typeof cred === "object" && cred !== null && typeof cred.workspaceApiKey === "string";
}

/** Any text sealed (JWE, dir + A256GCM) for this server only: the person's keys at rest in the store. */
export async function seal(keys: Keyring, text: string): Promise<string> {
  const { kid, seal: key } = keys.current;
  return new CompactEncrypt(new TextEncoder().encode(text))
    .setProtectedHeader({ alg: "dir", enc: "A256GCM", kid })
    .encrypt(key);
}

export async function unseal(keys: Keyring, sealed: string): Promise<string> {
  try {
    const { plaintext } = await compactDecrypt(sealed, (header) => keyOf(keys, header.kid).seal, {
      keyManagementAlgorithms: ["dir"],
      contentEncryptionAlgorithms: ["A256GCM"],
    });
    return new TextDecoder().decode(plaintext);
  } catch (error) {
    throw refusal(error, "sealed value");
  }
}

/** A registered client's id: its metadata signed (JWS HS256), so that any replica can read it back. */
export async function signClientId(keys: Keyring, metadata: Record<string, unknown>): Promise<string> {
  const { kid, sign } = keys.current;
  // A random id of its own: two registrations of the same metadata get two clients (and two secrets).
  return new SignJWT({ ...metadata })
    .setProtectedHeader({ alg: "HS256", kid, typ: "client-id+jwt" })
    .setJti(randomBytes(12).toString("base64url"))
    .setIssuedAt()
    .sign(sign);
}

export async function readClientId(
  keys: Keyring,
  clientId: string,
): Promise<{ metadata: Record<string, unknown>; signKey: Uint8Array } | undefined> {
  try {
    let signKey: Uint8Array | undefined;
    const { payload } = await jwtVerify(
      clientId,
      (header) => {
        signKey = keyOf(keys, header.kid).sign;
        return signKey;
      },
      { algorithms: ["HS256"], typ: "client-id+jwt" },
    );
    return signKey ? { metadata: payload as Record<string, unknown>, signKey } : undefined;
  } catch {
    return undefined;
  }
}

/** The client secret of a registered confidential client: derived from its id, so nothing is stored. */
export function clientSecretOf(signKey: Uint8Array, clientId: string): string {
  return createHmac("sha256", signKey).update(`client-secret\n${clientId}`).digest("base64url");
}

/** Compares two strings in time independent of where they differ (over their digests). */
export function sameSecret(given: string, expected: string): boolean {
  const digest = (text: string) => createHash("sha256").update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** The store key of a bearer value (code, refresh token): its digest, so the store never holds one. */
export function digestOf(value: string): string {
  return createHash("sha256").update(value).digest("base64url");
}
