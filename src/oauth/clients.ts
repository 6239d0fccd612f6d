// The clients that may ask for a grant: one whose client_id is an https URL describes itself there
// (Client ID Metadata Document, preferred); any other registers first (RFC 7591) and gets a signed
// client_id holding its metadata, so that registration keeps no state and any replica can read it.
import { MetadataDocumentError, type MetadataFetcher, metadataUrlProblem } from "./metadata-documents.js";
import { redirectUriProblem } from "./redirects.js";
import { clientSecretOf, type Keyring, readClientId, sameSecret, signClientId } from "./seal.js";

export type ClientAuthMethod = "none" | "client_secret_post" | "client_secret_basic";

export interface KnownClient {
  clientId: string;
  name?: string;
  redirectUris: string[];
  authMethod: ClientAuthMethod;
  /** Confidential registered clients only. */
  secret?: string;
}

/** A refusal in OAuth's terms: the error code and a description safe to show. */
export class OAuthFailure extends Error {
  constructor(
    readonly error: string,
    description: string,
    readonly status = 400,
  ) {
    super(description);
  }
}

const MAX_REDIRECT_URIS = 10;
const MAX_NAME_LENGTH = 200;
const AUTH_METHODS: readonly ClientAuthMethod[] = ["none", "client_secret_post", "client_secret_basic"];

export class ClientDirectory {
  constructor(
    private readonly keys: Keyring,
    private readonly documents: MetadataFetcher,
  ) {}

  /** The client a client_id names, or an OAuthFailure (invalid_client) saying why it cannot be used. */
  async find(clientId: string): Promise<KnownClient> {
    if (clientId.startsWith("https://")) return this.fromDocument(clientId);
    const read = await readClientId(this.keys, clientId);
    if (!read) throw new OAuthFailure("invalid_client", "unknown client_id: register the client first", 401);
    const { metadata, signKey } = read;
    const authMethod = metadata.m as ClientAuthMethod;
    return {
      clientId,
      name: typeof metadata.n === "string" ? metadata.n : undefined,
      // Checked again: a URI registered before a rule tightened no longer matches.
      redirectUris: Array.isArray(metadata.r)
        ? (metadata.r as string[]).filter((uri) => !redirectUriProblem(uri))
        : [],
      authMethod,
      secret: authMethod === "none" ? undefined : clientSecretOf(signKey, clientId),
    };
  }

  private async fromDocument(clientId: string): Promise<KnownClient> {
    const problem = metadataUrlProblem(clientId);
    if (problem) throw new OAuthFailure("invalid_client", problem, 401);
    try {
      const document = await this.documents.fetch(clientId);
      const bad = document.redirect_uris.find((uri) => redirectUriProblem(uri));
      if (bad !== undefined || document.redirect_uris.length === 0) {
        throw new MetadataDocumentError(
          "the client's metadata document lists a redirect URI that is not allowed",
        );
      }
      return {
        clientId,
        name: document.client_name?.slice(0, MAX_NAME_LENGTH),
        redirectUris: document.redirect_uris.slice(0, MAX_REDIRECT_URIS),
        authMethod: "none",
      };
    } catch (error) {
      if (error instanceof MetadataDocumentError)
        throw new OAuthFailure("invalid_client", error.message, 401);
      throw error;
    }
  }

  /** RFC 7591 registration: the metadata checked, the answer the client keeps. */
  async register(body: unknown): Promise<Record<string, unknown>> {
    const metadata = body as Record<string, unknown> | null;
    if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)) {
      throw new OAuthFailure("invalid_client_metadata", "the registration must be a JSON object");
    }
    const uris = metadata.redirect_uris;
    if (!Array.isArray(uris) || uris.length === 0 || uris.length > MAX_REDIRECT_URIS) {
      throw new OAuthFailure(
        "invalid_redirect_uri",
        `redirect_uris must list 1 to ${MAX_REDIRECT_URIS} URIs`,
      );
    }
    for (const uri of uris) {
      const problem = typeof uri === "string" ? redirectUriProblem(uri) : "not a string";
      if (problem) throw new OAuthFailure("invalid_redirect_uri", `a redirect URI is ${problem}`);
    }
    const method = (metadata.token_endpoint_auth_method ?? "client_secret_basic") as ClientAuthMethod;
    if (!AUTH_METHODS.includes(method)) {
      throw new OAuthFailure(
        "invalid_client_metadata",
        `token_endpoint_auth_method must be one of ${AUTH_METHODS.join(", ")}`,
      );
    }
    const grants = (metadata.grant_types ?? ["authorization_code"]) as unknown[];
    if (!Array.isArray(grants) || grants.some((g) => g !== "authorization_code" && g !== "refresh_token")) {
      throw new OAuthFailure(
        "invalid_client_metadata",
        "grant_types may hold authorization_code and refresh_token only",
      );
    }
    const responses = (metadata.response_types ?? ["code"]) as unknown[];
    if (!Array.isArray(responses) || responses.some((r) => r !== "code")) {
      throw new OAuthFailure("invalid_client_metadata", "response_types may hold code only");
    }
    const name =
      typeof metadata.client_name === "string" ? metadata.client_name.slice(0, MAX_NAME_LENGTH) : undefined;
    const clientId = await signClientId(this.keys, { r: uris, n: name, m: method });
    const client = await this.find(clientId);
    return {
      client_id: clientId,
      client_id_issued_at: Math.floor(Date.now() / 1000),
      ...(client.secret ? { client_secret: client.secret, client_secret_expires_at: 0 } : {}),
      redirect_uris: uris,
      ...(name ? { client_name: name } : {}),
      token_endpoint_auth_method: method,
      grant_types: grants,
      response_types: ["code"],
    };
  }

  /** Checks a token request's client authentication (RFC 6749 §2.3) and returns the client. */
  async authenticate(form: URLSearchParams, authorization: string | undefined): Promise<KnownClient> {
    let clientId = form.get("client_id") ?? undefined;
    let secret = form.get("client_secret") ?? undefined;
    const basic = /^Basic\s+(\S+)$/i.exec(authorization ?? "");
    if (basic?.[1]) {
      const decoded = Buffer.from(basic[1], "base64").toString("utf8");
      const colon = decoded.indexOf(":");
      try {
        if (colon > 0) {
          clientId = decodeURIComponent(decoded.slice(0, colon));
          secret = decodeURIComponent(decoded.slice(colon + 1));
        }
      } catch {
        throw new OAuthFailure("invalid_client", "the Basic credentials are not URL-encoded", 401);
      }
    }
    if (!clientId) throw new OAuthFailure("invalid_client", "client_id is missing", 401);
    const client = await this.find(clientId);
    if (client.secret !== undefined && (secret === undefined || !sameSecret(secret, client.secret))) {
      throw new OAuthFailure("invalid_client", "the client's secret is missing or wrong", 401);
    }
    return client;
  }
}
