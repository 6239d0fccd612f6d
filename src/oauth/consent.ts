// The authorization endpoint: GET checks the client, its redirect URI and the scopes asked for, and shows
// the consent page; POST takes the person's key, checks it with the APIs (real calls), then their
// choices, and sends them back to the client with a single-use code. Nothing is stored before the person
// allows: the request and the key step's outcome travel in the form, sealed and expiring (consent-form.ts),
// bound to a cookie; allowing marks the consent used (one atomic step) before the code is issued. A form
// carries the store's epoch (state/epoch.ts): one issued before the store lost its marks is refused.
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Dispatcher } from "undici";
import { audit } from "../audit.js";
import type { UpstreamSettings } from "../config/types.js";
import { storeEpoch } from "../state/epoch.js";
import type { SharedStore } from "../state/store.js";
import { type ClientDirectory, type KnownClient, OAuthFailure } from "./clients.js";
import { type ConsentForm, openForm, projectDigest, sealForm } from "./consent-form.js";
import { identityOf } from "./consent-identity.js";
import { checkKey, configuredApis, keyFor, offeredScopes, type SeenProjects } from "./consent-keys.js";
import {
  type ConsentView,
  consentHeaders,
  errorPageHeaders,
  newNonce,
  renderConsentPage,
  renderErrorPage,
} from "./consent-page.js";
import { type GrantCredentials, SCOPES, type Scope } from "./grant.js";
import { readBody, sendHtml } from "./http-io.js";
import { countRefusal, countSignin, type RefusalReason } from "./metrics.js";
import { matchRedirectUri } from "./redirects.js";
import { digestOf, type Keyring, sameSecret, seal } from "./seal.js";

export const CONSENT_TTL_MS = 15 * 60_000;
export const CODE_TTL_MS = 60_000;
/** Key checks along one page's chain of forms before it must be started again. */
const MAX_KEY_ATTEMPTS = 5;
/** Replicas' clocks may differ a little: the used mark outlives the form's expiry by this much. */
const CLOCK_MARGIN_MS = 60_000;

/** An issued authorization code (store: oauth:code:<digest>). */
export interface CodeRecord {
  clientId: string;
  redirectUri: string;
  challenge: string;
  resource: string;
  sealed: string;
}

export interface ConsentSettings {
  issuer: string;
  resource: string;
  store: SharedStore;
  keys: Keyring;
  clients: ClientDirectory;
  upstream: UpstreamSettings;
  dispatcher: Dispatcher;
  serverTools: ReadonlySet<string>;
  demoKey?: string;
  /** Cookies get Secure when the public URL is https. */
  secureCookies: boolean;
}

/** Why a sign-in stopped at consent: a counted reason, or a form that did not open. */
type Refusal = RefusalReason | "form_expired" | "form_invalid" | "form_stale" | "origin";

const random = () => randomBytes(32).toString("base64url");
const FORM_REFUSED =
  "This sign-in form has expired or was not sent from its own page (its security token is missing or wrong).";
const FORM_STALE =
  "This sign-in form is no longer valid: the server lost track of the sign-ins in progress. Start the sign-in again from your application.";

export class ConsentFlow {
  /** What a sign-in here can be granted: the scopes of the configured APIs that serve a tool. */
  private readonly offered: Scope[];

  constructor(private readonly settings: ConsentSettings) {
    this.offered = offeredScopes(settings.upstream, settings.serverTools);
  }

  /** GET /authorize: errors before the redirect URI is trusted are shown here, never redirected. */
  async start(res: ServerResponse, query: URLSearchParams): Promise<void> {
    const clientId = query.get("client_id") ?? "";
    const redirectUri = query.get("redirect_uri") ?? "";
    let client: KnownClient;
    try {
      client = await this.settings.clients.find(clientId);
    } catch (error) {
      if (error instanceof OAuthFailure) {
        this.refuse("unknown_client", clientId);
        return this.errorPage(res, `The application is not known: ${error.message}.`);
      }
      throw error;
    }
    if (!redirectUri || !matchRedirectUri(redirectUri, client.redirectUris)) {
      this.refuse("redirect_uri", clientId);
      return this.errorPage(res, "The address to send you back to is not one the application registered.");
    }
    const back = (reason: Refusal, error: string, description: string) => {
      this.refuse(reason, clientId);
      this.redirect(res, redirectUri, { error, error_description: description, state: query.get("state") });
    };
    if (query.get("response_type") !== "code") {
      return back("response_type", "unsupported_response_type", "response_type must be code");
    }
    const challenge = query.get("code_challenge") ?? "";
    if (query.get("code_challenge_method") !== "S256" || !/^[A-Za-z0-9_-]{43}$/.test(challenge)) {
      return back(
        "pkce_challenge",
        "invalid_request",
        "PKCE is required: code_challenge (43 characters) with code_challenge_method S256",
      );
    }
    const resource = query.get("resource") ?? this.settings.resource;
    if (!sameResource(resource, this.settings.resource)) {
      return back("resource", "invalid_target", `resource must be ${this.settings.resource}`);
    }
    const asked = (query.get("scope") ?? "").split(" ").filter(Boolean);
    if (asked.some((scope) => !SCOPES.includes(scope as Scope))) {
      return back("invalid_scope", "invalid_scope", `scope may hold ${SCOPES.join(", ")} (space-separated)`);
    }
    const form: ConsentForm = {
      id: random(),
      csrf: random(),
      clientId,
      ...(client.name ? { clientName: client.name } : {}),
      redirectUri,
      ...(query.get("state") ? { state: query.get("state") as string } : {}),
      challenge,
      resource: this.settings.resource,
      // None named: everything the server offers, pre-set; named ones it does not offer are not offered.
      requested: asked.length === 0 ? this.offered : this.offered.filter((scope) => asked.includes(scope)),
      attempts: 0,
      // Read (made once when missing) here, so that no form of this chain outlives a store that lost its marks.
      epoch: await storeEpoch(this.settings.store),
    };
    const expiresAt = Math.floor((Date.now() + CONSENT_TTL_MS) / 1000);
    await this.page(res, form, expiresAt, "key", { headers: { "set-cookie": this.csrfCookie(form) } });
  }

  /** POST /authorize: the key step, then the choice step (allow or deny). */
  async submit(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const fields = new URLSearchParams(await readBody(req));
    const opened = await openForm(this.settings.keys, this.settings.issuer, fields.get("request") ?? "");
    if ("refused" in opened) {
      this.refuse(opened.refused);
      return this.errorPage(res, FORM_REFUSED, 403);
    }
    const { form, expiresAt } = opened;
    const cookie = cookieValue(req.headers.cookie, cookieName(form.id)) ?? "";
    if (!sameSecret(fields.get("csrf") ?? "", form.csrf) || !sameSecret(cookie, form.csrf)) {
      this.refuse("csrf", form.clientId);
      return this.errorPage(res, FORM_REFUSED, 403);
    }
    const step = fields.get("step");
    // A form from before the store lost its marks goes no further. An answer checks after its mark is
    // set (spend); any other step here: the post's one store read either way.
    if (step !== "deny" && !(step === "allow" && form.key) && !(await this.sameEpoch(form))) {
      return this.stale(res, form);
    }
    if (step === "deny") {
      const spent = await this.spend(form, expiresAt, "denied");
      if (spent !== "first")
        return spent === "stale" ? this.stale(res, form) : this.alreadyAnswered(res, form);
      this.refuse("denied", form.clientId);
      return this.redirect(res, form.redirectUri, {
        error: "access_denied",
        error_description: "the person denied the request",
        state: form.state,
      });
    }
    if (step === "key") return this.keyStep(res, form, expiresAt, fields);
    if (step === "allow" && form.key) return this.allow(res, form, expiresAt, fields);
    if (form.key) return this.choices(res, form, expiresAt, "Choose one of the buttons.");
    return this.page(res, form, expiresAt, "key", { error: "Choose one of the buttons." });
  }

  private async keyStep(
    res: ServerResponse,
    previous: ConsentForm,
    expiresAt: number,
    fields: URLSearchParams,
  ): Promise<void> {
    // The count travels in the form: an earlier form posted again starts from its own count (see docs).
    const form: ConsentForm = {
      ...previous,
      attempts: previous.attempts + 1,
      key: undefined,
      seen: undefined,
    };
    if (form.attempts > MAX_KEY_ATTEMPTS) {
      this.refuse("key_attempts", form.clientId);
      return this.errorPage(res, `${MAX_KEY_ATTEMPTS} keys were tried on this page.`, 429);
    }
    const workspace = (fields.get("workspace_key") ?? "").trim();
    const analytics = (fields.get("analytics_key") ?? "").trim();
    if (!workspace) {
      this.refuse("key_missing", form.clientId);
      return this.page(res, form, expiresAt, "key", { error: "Enter your workspace API key." });
    }
    form.key = keyFor(configuredApis(this.settings.upstream), workspace, analytics);
    const checked = await checkKey(credentialsOf(form.key), this.settings.upstream, this.settings.dispatcher);
    if ("reason" in checked) {
      this.refuse(checked.reason, form.clientId);
      return this.page(res, { ...form, key: undefined }, expiresAt, "key", { error: checked.message });
    }
    form.seen = {
      workspace: checked.workspace.map((p) => projectDigest(p.id)),
      analytics: checked.analytics.map((p) => projectDigest(p.id)),
    };
    return this.page(res, form, expiresAt, "choose", { projects: checked });
  }

  /** The choice step shown again (a post without a button, or with nothing allowed): the key checked anew. */
  private async choices(res: ServerResponse, previous: ConsentForm, expiresAt: number, error: string) {
    // A check like the key step's, counted with them.
    const form: ConsentForm = { ...previous, attempts: previous.attempts + 1 };
    if (form.attempts > MAX_KEY_ATTEMPTS) {
      this.refuse("key_attempts", form.clientId);
      return this.errorPage(res, `${MAX_KEY_ATTEMPTS} keys were tried on this page.`, 429);
    }
    const key = form.key as NonNullable<ConsentForm["key"]>;
    const checked = await checkKey(credentialsOf(key), this.settings.upstream, this.settings.dispatcher);
    if ("reason" in checked) {
      this.refuse(checked.reason, form.clientId);
      return this.page(res, { ...form, key: undefined, seen: undefined }, expiresAt, "key", {
        error: checked.message,
      });
    }
    return this.page(res, form, expiresAt, "choose", { error, projects: checked });
  }

  private async allow(
    res: ServerResponse,
    form: ConsentForm,
    expiresAt: number,
    fields: URLSearchParams,
  ): Promise<void> {
    const scopes = this.offered.filter((scope) => fields.get(scope) === "1");
    if (scopes.length === 0) return this.choices(res, form, expiresAt, "Allow at least one thing, or Deny.");
    const chosen = (field: string, seen: string[] | undefined) => {
      const id = fields.get(field) ?? "";
      return id && seen?.includes(projectDigest(id)) ? id : undefined;
    };
    const spent = await this.spend(form, expiresAt, "allowed");
    if (spent !== "first") return spent === "stale" ? this.stale(res, form) : this.alreadyAnswered(res, form);
    const granted: GrantCredentials = {
      ...credentialsOf(form.key as NonNullable<ConsentForm["key"]>),
      workspaceProjectId: chosen("workspace_project", form.seen?.workspace),
      analyticsProjectId: chosen("analytics_project", form.seen?.analytics),
      scopes,
    };
    const code = random();
    const record: CodeRecord = {
      clientId: form.clientId,
      redirectUri: form.redirectUri,
      challenge: form.challenge,
      resource: form.resource,
      sealed: await seal(this.settings.keys, JSON.stringify(granted)),
    };
    await this.settings.store.set(codeKey(code), JSON.stringify(record), CODE_TTL_MS);
    countSignin();
    audit("consent", { client: form.clientId, scopes: scopes.join(" "), outcome: "ok" });
    return this.redirect(res, form.redirectUri, { code, state: form.state });
  }

  /**
   * Single use, across replicas: of two answers (Allow or Deny) of one consent, one sets the mark and goes
   * on. Only a form holding a checked key writes it (the flow's one store write before a code); a Deny of
   * a form without one (the key step) only reads it, so that anonymous posts grow nothing. The epoch is
   * read after the mark: a store that lost its marks before (even between the two) has a new one by then.
   */
  private async spend(
    form: ConsentForm,
    expiresAt: number,
    answer: "allowed" | "denied",
  ): Promise<"first" | "used" | "stale"> {
    const { store } = this.settings;
    const markMs = expiresAt * 1000 - Date.now() + CLOCK_MARGIN_MS;
    const first = form.key
      ? await store.setIfAbsent(consentKey(form.id), answer, markMs)
      : (await store.get(consentKey(form.id))) === undefined;
    if (!first) return "used";
    return (await this.sameEpoch(form)) ? "first" : "stale";
  }

  /** Whether the store still has the epoch the form was first shown under (state/epoch.ts). */
  private async sameEpoch(form: ConsentForm): Promise<boolean> {
    return form.epoch === (await storeEpoch(this.settings.store));
  }

  private stale(res: ServerResponse, form: ConsentForm): void {
    this.refuse("form_stale", form.clientId);
    this.errorPage(res, FORM_STALE, 409);
  }

  private alreadyAnswered(res: ServerResponse, form: ConsentForm): void {
    this.refuse("consent_reused", form.clientId);
    this.errorPage(res, "This sign-in form was already answered.", 409);
  }

  /** A form posted from another site (its Origin not this server's): refused with a page, and audited. */
  refuseForeignPost(res: ServerResponse): void {
    this.refuse("origin");
    this.errorPage(res, FORM_REFUSED, 403);
  }

  private async page(
    res: ServerResponse,
    form: ConsentForm,
    expiresAt: number,
    step: ConsentView["step"],
    {
      error,
      projects,
      headers = {},
    }: { error?: string; projects?: SeenProjects; headers?: Record<string, string> } = {},
  ): Promise<void> {
    const nonce = newNonce();
    const html = renderConsentPage(
      {
        form: await sealForm(this.settings.keys, this.settings.issuer, form, expiresAt),
        csrf: form.csrf,
        clientId: form.clientId,
        identity: identityOf({ clientId: form.clientId, name: form.clientName }, form.redirectUri),
        redirectUri: form.redirectUri,
        step,
        error,
        demoKey: this.settings.demoKey,
        workspaceProjects: projects?.workspace,
        analyticsProjects: projects?.analytics,
        scopes: { offered: this.offered, chosen: form.requested },
      },
      nonce,
    );
    sendHtml(res, error ? 400 : 200, html, { ...consentHeaders(nonce, form.redirectUri), ...headers });
  }

  /** Counts a refused step and writes its audit line (the client id, never a key). */
  private refuse(reason: Refusal, clientId?: string): void {
    countRefusal(
      reason === "form_expired" || reason === "form_invalid" || reason === "form_stale" || reason === "origin"
        ? "csrf"
        : reason,
    );
    audit("signin_refused", {
      ...(clientId ? { client: clientId.slice(0, 512) } : {}),
      outcome: "refused",
      reason,
    });
  }

  private errorPage(res: ServerResponse, message: string, status = 400): void {
    const nonce = newNonce();
    sendHtml(res, status, renderErrorPage(message, nonce), errorPageHeaders(nonce));
  }

  /** Back to the client (303, so a POST becomes a GET), with iss as RFC 9207 asks. */
  private redirect(
    res: ServerResponse,
    redirectUri: string,
    params: Record<string, string | null | undefined>,
  ): void {
    const url = new URL(redirectUri);
    for (const [name, value] of Object.entries(params)) if (value) url.searchParams.set(name, value);
    url.searchParams.set("iss", this.settings.issuer);
    res.writeHead(303, { location: url.href, "cache-control": "no-store", "referrer-policy": "no-referrer" });
    res.end();
  }

  private csrfCookie(form: ConsentForm): string {
    const secure = this.settings.secureCookies ? "; Secure" : "";
    const seconds = CONSENT_TTL_MS / 1000;
    return `${cookieName(form.id)}=${form.csrf}; Path=/authorize; HttpOnly; SameSite=Strict; Max-Age=${seconds}${secure}`;
  }
}

/** The single-use mark of an allowed consent (store: oauth:consent:<id>). */
export const consentKey = (consentId: string) => `oauth:consent:${consentId}`;
export const codeKey = (code: string) => `oauth:code:${digestOf(code)}`;
/** One cookie per consent in progress, so two sign-ins in two tabs do not overwrite each other's. */
const cookieName = (consentId: string) => `oauth_csrf_${consentId.slice(0, 16)}`;

const credentialsOf = (key: NonNullable<ConsentForm["key"]>): GrantCredentials => ({
  workspaceApiKey: key.workspace,
  ...(key.analytics ? { analyticsApiKey: key.analytics } : {}),
  scopes: [],
});

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (key === name) return rest.join("=");
  }
  return undefined;
}

/** A resource indicator names this server's /mcp URL (one trailing slash aside). */
export function sameResource(given: string, expected: string): boolean {
  return given.replace(/\/$/, "") === expected.replace(/\/$/, "");
}
