// The authorization endpoint: GET checks the client and its redirect URI and shows the consent page;
// POST takes the person's key, checks it against the APIs (a real call), then their choices, and sends
// them back to the client with a single-use code. Every step's state is in the shared store, so any
// replica can answer any step.
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Dispatcher } from "undici";
import { UpstreamHttpError } from "../clients/errors.js";
import { createUpstreams } from "../clients/index.js";
import type { UpstreamSettings } from "../config/types.js";
import type { SharedStore } from "../state/store.js";
import { ENDPOINTS } from "../tools/register.js";
import { type ClientDirectory, type KnownClient, OAuthFailure } from "./clients.js";
import {
  type ConsentView,
  consentHeaders,
  errorPageHeaders,
  newNonce,
  type Project,
  renderConsentPage,
  renderErrorPage,
} from "./consent-page.js";
import { type GrantCredentials, grantSettings } from "./grant.js";
import { readBody, sendHtml } from "./http-io.js";
import { countRefusal, countSignin } from "./metrics.js";
import { matchRedirectUri } from "./redirects.js";
import { digestOf, type Keyring, seal, unseal } from "./seal.js";

export const CONSENT_TTL_MS = 15 * 60_000;
export const CODE_TTL_MS = 60_000;
/** Keys tried on one consent page before it must be started again. */
const MAX_KEY_ATTEMPTS = 5;
const MAX_PROJECTS_SHOWN = 200;

/** A consent in progress (store: oauth:consent:<id>). */
interface PendingConsent {
  clientId: string;
  clientName?: string;
  redirectUri: string;
  state?: string;
  challenge: string;
  resource: string;
  csrf: string;
  attempts: number;
  /** After the key step: the checked credentials, sealed, and the projects they can see. */
  sealed?: string;
  workspaceProjects?: Project[];
  analyticsProjects?: Project[];
}

/** Why a key was not taken, and what to tell the person. */
interface KeyProblem {
  reason: "key_refused" | "key_unchecked";
  message: string;
}

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

const WHOAMI = ENDPOINTS.find((e) => e.name === "whoami");
const GEO_PROJECTS = ENDPOINTS.find((e) => e.name === "geo_projects");
const WRITE_TOOLS = ENDPOINTS.filter((e) => !e.readOnly).map((e) => e.name);
const random = () => randomBytes(32).toString("base64url");

export class ConsentFlow {
  constructor(private readonly settings: ConsentSettings) {}

  /** GET /authorize: errors before the redirect URI is trusted are shown here, never redirected. */
  async start(res: ServerResponse, query: URLSearchParams): Promise<void> {
    const clientId = query.get("client_id") ?? "";
    const redirectUri = query.get("redirect_uri") ?? "";
    let client: KnownClient;
    try {
      client = await this.settings.clients.find(clientId);
    } catch (error) {
      if (error instanceof OAuthFailure) {
        countRefusal("unknown_client");
        return this.errorPage(res, `The application is not known: ${error.message}.`);
      }
      throw error;
    }
    if (!redirectUri || !matchRedirectUri(redirectUri, client.redirectUris)) {
      countRefusal("redirect_uri");
      return this.errorPage(res, "The address to send you back to is not one the application registered.");
    }
    const back = (error: string, description: string) =>
      this.redirect(res, redirectUri, { error, error_description: description, state: query.get("state") });
    if (query.get("response_type") !== "code") {
      countRefusal("response_type");
      return back("unsupported_response_type", "response_type must be code");
    }
    const challenge = query.get("code_challenge") ?? "";
    if (query.get("code_challenge_method") !== "S256" || !/^[A-Za-z0-9_-]{43}$/.test(challenge)) {
      countRefusal("pkce_challenge");
      return back(
        "invalid_request",
        "PKCE is required: code_challenge (43 characters) with code_challenge_method S256",
      );
    }
    const resource = query.get("resource") ?? this.settings.resource;
    if (!sameResource(resource, this.settings.resource)) {
      countRefusal("resource");
      return back("invalid_target", `resource must be ${this.settings.resource}`);
    }
    const pending: PendingConsent = {
      clientId,
      clientName: client.name,
      redirectUri,
      state: query.get("state") ?? undefined,
      challenge,
      resource: this.settings.resource,
      csrf: random(),
      attempts: 0,
    };
    const requestId = random();
    await this.settings.store.set(consentKey(requestId), JSON.stringify(pending), CONSENT_TTL_MS);
    this.page(res, requestId, pending, "key", undefined, {
      "set-cookie": this.csrfCookie(requestId, pending.csrf),
    });
  }

  /** POST /authorize: the key step, then the choice step (allow or deny). */
  async submit(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const form = new URLSearchParams(await readBody(req));
    const requestId = form.get("request") ?? "";
    const stored = /^[A-Za-z0-9_-]{43}$/.test(requestId)
      ? await this.settings.store.get(consentKey(requestId))
      : undefined;
    const pending = stored ? (JSON.parse(stored) as PendingConsent) : undefined;
    const csrf = form.get("csrf") ?? "";
    const cookie = cookieValue(req.headers.cookie, cookieName(requestId));
    if (!pending || csrf !== pending.csrf || cookie !== pending.csrf) {
      countRefusal("csrf");
      return this.errorPage(
        res,
        "This sign-in form has expired or was not sent from its own page (its security token is missing or wrong).",
        403,
      );
    }
    const step = form.get("step");
    if (step === "deny") {
      countRefusal("denied");
      await this.settings.store.delete(consentKey(requestId));
      return this.redirect(res, pending.redirectUri, {
        error: "access_denied",
        error_description: "the person denied the request",
        state: pending.state,
      });
    }
    if (step === "key") return this.checkKey(res, requestId, pending, form);
    if (step === "allow" && pending.sealed) return this.allow(res, requestId, pending, form);
    return this.page(
      res,
      requestId,
      pending,
      pending.sealed ? "choose" : "key",
      "Choose one of the buttons.",
    );
  }

  private async checkKey(
    res: ServerResponse,
    requestId: string,
    pending: PendingConsent,
    form: URLSearchParams,
  ): Promise<void> {
    const workspaceKey = (form.get("workspace_key") ?? "").trim();
    const analyticsKey = (form.get("analytics_key") ?? "").trim();
    pending.attempts += 1;
    if (pending.attempts > MAX_KEY_ATTEMPTS) {
      countRefusal("key_attempts");
      await this.settings.store.delete(consentKey(requestId));
      return this.errorPage(res, `${MAX_KEY_ATTEMPTS} keys were tried on this page.`, 429);
    }
    const save = () =>
      this.settings.store.set(consentKey(requestId), JSON.stringify(pending), CONSENT_TTL_MS);
    if (!workspaceKey) {
      countRefusal("key_missing");
      await save();
      return this.page(res, requestId, pending, "key", "Enter your workspace API key.");
    }
    const credentials: GrantCredentials = {
      workspaceApiKey: workspaceKey,
      ...(analyticsKey && analyticsKey !== workspaceKey ? { analyticsApiKey: analyticsKey } : {}),
      scopes: [],
    };
    const checked = await this.projectsOf(credentials);
    if ("reason" in checked) {
      countRefusal(checked.reason);
      await save();
      return this.page(res, requestId, pending, "key", checked.message);
    }
    Object.assign(pending, checked, { sealed: await seal(this.settings.keys, JSON.stringify(credentials)) });
    await save();
    return this.page(res, requestId, pending, "choose");
  }

  /** The projects each API shows this key, or what to tell the person when an API refuses it. */
  private async projectsOf(
    credentials: GrantCredentials,
  ): Promise<Pick<PendingConsent, "workspaceProjects" | "analyticsProjects"> | KeyProblem> {
    const { serverTools, upstream, dispatcher } = this.settings;
    const upstreams = createUpstreams({ ...upstream, ...grantSettings(credentials) }, dispatcher);
    const ask = async (endpoint: typeof WHOAMI, rows: "projects" | "data", api: string) => {
      if (!endpoint || !serverTools.has(endpoint.name)) return undefined;
      try {
        const { value } = await upstreams.call(endpoint, {}, { signal: AbortSignal.timeout(15_000) });
        return projectList((value as Record<string, unknown>)?.[rows]);
      } catch (error) {
        if (error instanceof UpstreamHttpError && (error.status === 401 || error.status === 403)) {
          const message = `The ${api} API refused this key (${error.status}). Check it and try again.`;
          return { reason: "key_refused", message } satisfies KeyProblem;
        }
        const message = `The ${api} API could not check the key just now. Try again in a moment.`;
        return { reason: "key_unchecked", message } satisfies KeyProblem;
      }
    };
    const [workspace, analytics] = await Promise.all([
      ask(WHOAMI, "projects", "workspace"),
      ask(
        GEO_PROJECTS,
        "data",
        credentials.analyticsApiKey ? "analytics" : "analytics (with the workspace key)",
      ),
    ]);
    if (workspace !== undefined && !Array.isArray(workspace)) return workspace;
    if (analytics !== undefined && !Array.isArray(analytics)) return analytics;
    return { workspaceProjects: workspace, analyticsProjects: analytics };
  }

  private async allow(
    res: ServerResponse,
    requestId: string,
    pending: PendingConsent,
    form: URLSearchParams,
  ): Promise<void> {
    const chosen = (field: string, projects: Project[] | undefined) => {
      const id = form.get(field) ?? "";
      return id && projects?.some((p) => p.id === id) ? id : undefined;
    };
    // Single use: of two submissions of one page, one issues a code.
    if ((await this.settings.store.take(consentKey(requestId))) === undefined) {
      countRefusal("consent_reused");
      return this.errorPage(res, "This sign-in form was already answered.", 409);
    }
    const credentials = JSON.parse(
      await unseal(this.settings.keys, pending.sealed as string),
    ) as GrantCredentials;
    const offered = WRITE_TOOLS.some((name) => this.settings.serverTools.has(name));
    const granted: GrantCredentials = {
      ...credentials,
      workspaceProjectId: chosen("workspace_project", pending.workspaceProjects),
      analyticsProjectId: chosen("analytics_project", pending.analyticsProjects),
      scopes: [
        "workspace:read",
        "analytics:read",
        ...(offered && form.get("write") === "1" ? (["workspace:write"] as const) : []),
      ],
    };
    const code = random();
    const record: CodeRecord = {
      clientId: pending.clientId,
      redirectUri: pending.redirectUri,
      challenge: pending.challenge,
      resource: pending.resource,
      sealed: await seal(this.settings.keys, JSON.stringify(granted)),
    };
    await this.settings.store.set(codeKey(code), JSON.stringify(record), CODE_TTL_MS);
    countSignin();
    return this.redirect(res, pending.redirectUri, { code, state: pending.state });
  }

  private page(
    res: ServerResponse,
    requestId: string,
    pending: PendingConsent,
    step: ConsentView["step"],
    error?: string,
    headers: Record<string, string> = {},
  ): void {
    const nonce = newNonce();
    const html = renderConsentPage(
      {
        requestId,
        csrf: pending.csrf,
        clientId: pending.clientId,
        clientName: pending.clientName,
        redirectUri: pending.redirectUri,
        step,
        error,
        demoKey: this.settings.demoKey,
        workspaceProjects: pending.workspaceProjects,
        analyticsProjects: pending.analyticsProjects,
        writeOffered: WRITE_TOOLS.some((name) => this.settings.serverTools.has(name)),
      },
      nonce,
    );
    sendHtml(res, error ? 400 : 200, html, { ...consentHeaders(nonce, pending.redirectUri), ...headers });
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

  private csrfCookie(requestId: string, csrf: string): string {
    const secure = this.settings.secureCookies ? "; Secure" : "";
    const seconds = CONSENT_TTL_MS / 1000;
    return `${cookieName(requestId)}=${csrf}; Path=/authorize; HttpOnly; SameSite=Strict; Max-Age=${seconds}${secure}`;
  }
}

export const consentKey = (requestId: string) => `oauth:consent:${requestId}`;
export const codeKey = (code: string) => `oauth:code:${digestOf(code)}`;
/** One cookie per consent in progress, so two sign-ins in two tabs do not overwrite each other's. */
const cookieName = (requestId: string) => `oauth_csrf_${requestId.slice(0, 16)}`;

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

function projectList(value: unknown): Project[] {
  if (!Array.isArray(value)) return [];
  return value
    .filter((p): p is { id: string; name?: unknown } => typeof p?.id === "string")
    .slice(0, MAX_PROJECTS_SHOWN)
    .map((p) => ({ id: p.id, name: typeof p.name === "string" ? p.name : p.id }));
}
