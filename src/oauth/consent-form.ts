// A consent in progress, carried by the page itself instead of the store: the authorization request and,
// after the key step, the checked key and the projects it can see, sealed (an encrypted JWT, dir +
// A256GCM under the operator's secret) with an expiry, posted back in the form. The client and the
// browser can read none of it; a changed, expired or foreign value does not open.
import { createHash } from "node:crypto";
import { EncryptJWT, errors, jwtDecrypt } from "jose";
import type { Scope } from "./grant.js";
import type { Keyring } from "./seal.js";

/** The media type of a sealed form, so that no other sealed value (an access token) passes for one. */
const FORM_TYPE = "consent+jwt";

export interface ConsentForm {
  /** The consent's id: names its CSRF cookie, and its single-use mark once allowed. */
  id: string;
  csrf: string;
  clientId: string;
  clientName?: string;
  redirectUri: string;
  state?: string;
  challenge: string;
  resource: string;
  /** What the client asked for (all the server offers when it named none): the choices pre-set. */
  requested: Scope[];
  /** The store's epoch when the page was first shown: its single-use mark is good only in that epoch. */
  epoch: string;
  /** Keys tried along this page's chain of forms. */
  attempts: number;
  /** After the key step: the key the APIs accepted... */
  key?: { workspace: string; analytics?: string };
  /** ...and digests of the project ids each API showed it (a chosen default must be one of them). */
  seen?: { workspace: string[]; analytics: string[] };
}

/** Seals `form` for this server's consent page until `expiresAt` (seconds since the epoch). */
export async function sealForm(
  keys: Keyring,
  issuer: string,
  form: ConsentForm,
  expiresAt: number,
): Promise<string> {
  const { kid, seal } = keys.current;
  return new EncryptJWT({ form })
    .setProtectedHeader({ alg: "dir", enc: "A256GCM", kid, typ: FORM_TYPE })
    .setIssuer(issuer)
    .setAudience(`${issuer}/authorize`)
    .setIssuedAt()
    .setExpirationTime(expiresAt)
    .encrypt(seal);
}

export type OpenedForm =
  | { form: ConsentForm; expiresAt: number }
  | { refused: "form_expired" | "form_invalid" };

/** The form a sealed value holds, or why it is refused (expired; or altered, foreign, or not a form). */
export async function openForm(keys: Keyring, issuer: string, sealed: string): Promise<OpenedForm> {
  try {
    const { payload } = await jwtDecrypt(
      sealed,
      (header) => {
        const key = keys.find(header.kid);
        if (!key) throw new Error("unknown key");
        return key.seal;
      },
      {
        issuer,
        audience: `${issuer}/authorize`,
        typ: FORM_TYPE,
        keyManagementAlgorithms: ["dir"],
        contentEncryptionAlgorithms: ["A256GCM"],
      },
    );
    const form = payload.form as ConsentForm | undefined;
    if (
      typeof form?.id !== "string" ||
      typeof form.csrf !== "string" ||
      typeof form.epoch !== "string" ||
      !payload.exp
    ) {
      return { refused: "form_invalid" };
    }
    return { form, expiresAt: payload.exp };
  } catch (error) {
    return { refused: error instanceof errors.JWTExpired ? "form_expired" : "form_invalid" };
  }
}

/** A project id as the form keeps it: a short digest, so hundreds of projects fit in a form. */
export function projectDigest(id: string): string {
  return createHash("sha256").update(id).digest("base64url").slice(0, 16);
}
