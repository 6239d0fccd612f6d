// The consent page: one self-contained HTML document (no script, no outside asset), in two steps: the
// person's API key(s), then what the assistant may do and its default projects. It leads with what was
// checked about the client (a host), shows the client's name only as its own claim, with warnings about
// imitating names. Every value from a client has its hidden characters removed and is HTML-escaped; the
// CSP allows nothing but its style.
import { randomBytes } from "node:crypto";
import { removeHidden } from "../tools/hidden.js";
import type { ClientIdentity, NameFlag, PlaceFlag } from "./consent-identity.js";
import type { Scope } from "./grant.js";
import { formActionSourceOf } from "./redirects.js";

export interface Project {
  id: string;
  name: string;
}

export interface ConsentView {
  /** The consent in progress, sealed (consent-form.ts), and its CSRF token: posted back as hidden fields. */
  form: string;
  csrf: string;
  clientId: string;
  identity: ClientIdentity;
  redirectUri: string;
  step: "key" | "choose";
  /** A refusal to say on the page (a key the APIs refused, say). */
  error?: string;
  /** The sandbox's key, shown on a --demo server so a person can try the flow. */
  demoKey?: string;
  workspaceProjects?: Project[];
  analyticsProjects?: Project[];
  /** What this server can grant, and what is ticked to begin with (what the client asked for). */
  scopes: { offered: readonly Scope[]; chosen: readonly Scope[] };
}

/** Each scope as a person reads it. */
export const SCOPE_LABELS: Record<Scope, string> = {
  "workspace:read": "Read your tasks and agent runs",
  "workspace:write": "Add comments to tasks (tasks_comments)",
  "analytics:read": "Read your visibility analytics",
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * A client's words, made safe to show: hidden characters removed, length capped, HTML-escaped (this page
 * is HTML, not Markdown: markup shows as typed, without the backslashes a Markdown reader would need).
 */
function shown(text: string, max = 120): string {
  const clean = removeHidden(text, { removed: 0 }).replace(/\s+/g, " ").trim();
  return escapeHtml(clean.length > max ? `${clean.slice(0, max - 1)}…` : clean);
}

/** A host, and an address, are shown whole up to these lengths; past them, their middle is elided. */
const MAX_SHOWN_HOST = 160;
const MAX_SHOWN_ADDRESS = 300;

/**
 * A host or address made safe to show, never cut at its end (where a host's registrable domain is):
 * past `max` characters its middle gives way to "…", keeping at least `keepEnd` characters of the end.
 */
function shownWhole(text: string, max: number, keepEnd = 0): string {
  const chars = [...removeHidden(text, { removed: 0 })];
  if (chars.length <= max) return escapeHtml(chars.join(""));
  const tail = Math.max(Math.ceil((max - 1) * 0.6), keepEnd);
  const head = Math.max(max - 1 - tail, 8);
  return escapeHtml(`${chars.slice(0, head).join("")}\u2026${chars.slice(-tail).join("")}`);
}

const STYLE = `
:root{color-scheme:light dark;--bg:#f7f7f8;--fg:#1b1b1f;--card:#fff;--muted:#585862;--line:#c9c9d1;--accent:#1d4ed8;--bad:#b91c1c}
@media (prefers-color-scheme:dark){:root{--bg:#141417;--fg:#ececf1;--card:#1e1e23;--muted:#a8a8b3;--line:#3c3c45;--accent:#8ab4ff;--bad:#ff8a8a}}
*{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,sans-serif}
main{max-width:34rem;margin:3rem auto;padding:1.5rem 2rem;background:var(--card);border:1px solid var(--line);border-radius:12px}
h1{font-size:1.35rem;margin:0 0 1rem}h1,code,.claim,.host,.warn{overflow-wrap:anywhere}p{margin:.5rem 0}.muted{color:var(--muted);font-size:.92rem}
label{display:block;font-weight:600;margin:1rem 0 .3rem}input[type=password],select{width:100%;padding:.55rem;font:inherit;color:inherit;background:var(--bg);border:1px solid var(--line);border-radius:6px}
fieldset{border:1px solid var(--line);border-radius:8px;margin:1rem 0;padding:.5rem 1rem 1rem}legend{font-weight:600;padding:0 .3rem}
.check{display:flex;gap:.5rem;align-items:flex-start;font-weight:400}.check input{margin-top:.3rem}
.alert{border:2px solid var(--bad);color:var(--bad);border-radius:6px;padding:.5rem .8rem;margin:1rem 0}
.warn{border-left:4px solid var(--bad);margin:1rem 0;padding:.3rem .8rem;list-style:none}.warn li{margin:.3rem 0}
.claim{font-size:1.05rem}
.actions{display:flex;gap:.8rem;margin-top:1.5rem}button{font:inherit;padding:.55rem 1.2rem;border-radius:6px;border:1px solid var(--accent);cursor:pointer}
button.primary{background:var(--accent);color:var(--card)}button.secondary{background:transparent;color:var(--accent)}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px}code{font-size:.9em}
`;

/** The page's response headers: CSP with a nonce for its one style block, no framing, no caching, no referrer. */
export function consentHeaders(nonce: string, redirectUri: string): Record<string, string> {
  return {
    "content-type": "text/html; charset=utf-8",
    "content-security-policy": [
      "default-src 'none'",
      `style-src 'nonce-${nonce}'`,
      // The form posts here, and its answer redirects to the client (browsers hold redirects to form-action).
      `form-action 'self' ${formActionSourceOf(redirectUri)}`,
      "frame-ancestors 'none'",
      "base-uri 'none'",
    ].join("; "),
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    // Not no-referrer: with it a browser posts the form with Origin: null, and the server checks Origin.
    "referrer-policy": "same-origin",
    "cache-control": "no-store",
  };
}

export function newNonce(): string {
  return randomBytes(16).toString("base64url");
}

function projectSelect(id: string, label: string, projects: Project[] | undefined): string {
  if (!projects || projects.length === 0) return "";
  const options = projects
    .map((p) => `<option value="${escapeHtml(p.id)}">${shown(p.name, 80)}</option>`)
    .join("");
  return `<label for="${id}">${label}</label>
<select id="${id}" name="${id}" aria-describedby="projects-help"><option value="">None: the assistant asks or chooses per call</option>${options}</select>`;
}

/** A warning as the person reads it. */
function flagText(flag: NameFlag | PlaceFlag): string {
  switch (flag.kind) {
    case "lookalike": {
      const name = escapeHtml(flag.assistant);
      return `The name looks like that of <strong>${name}</strong>, a known assistant, but nothing shows this application is ${name}. Continue only if you started this sign-in from ${name} yourself, just now.`;
    }
    case "mixed_scripts":
      return `The name mixes letters of different scripts (${escapeHtml(flag.scripts.join(", "))}), a way to imitate another name.`;
    case "claims_verification":
      return "The name claims to be verified or official. This server verifies no application&#39;s name.";
    case "scheme_like_domain":
      return `The app&#39;s scheme <code>${shownWhole(flag.scheme, 80)}</code> reads like a web address, but it is none: any app on this device can claim it.`;
    case "scheme_like_assistant":
      return `The app&#39;s scheme names <strong>${escapeHtml(flag.assistant)}</strong>, but any app on this device can claim the scheme <code>${shownWhole(flag.scheme, 80)}</code>.`;
    case "scheme_names_known": {
      const start = `The app&#39;s scheme <code>${shownWhole(flag.scheme, 80)}</code> names <strong>${shownWhole(flag.domain, MAX_SHOWN_HOST)}</strong>`;
      if (!flag.assistant) {
        return `${start}, a known company&#39;s address, but nothing shows this app is that company&#39;s. Continue only if you started this sign-in from that company&#39;s app yourself, just now.`;
      }
      const name = escapeHtml(flag.assistant);
      return `${start}, an address of ${name}, a known assistant, but nothing shows this app is ${name}. Continue only if you started this sign-in from ${name} yourself, just now.`;
    }
  }
}

/** Where the code goes, in full (its middle elided past `MAX_SHOWN_ADDRESS`). */
function destination(identity: ClientIdentity, redirectUri: string): string {
  const address = `<code>${shownWhole(redirectUri, MAX_SHOWN_ADDRESS)}</code>`;
  const back = new URL(redirectUri);
  if (back.protocol === "https:" || back.protocol === "http:") return address;
  const scheme = escapeHtml(back.protocol.slice(0, -1));
  return identity.source === "redirect_uri"
    ? `an app on this device that handles <code>${scheme}:</code> addresses (${address})`
    : `an app on this device (scheme <code>${scheme}</code>: ${address})`;
}

/** Who asks, as far as it is known: the checked host first, then the name as the client's own words. */
function identityLines(
  identity: ClientIdentity,
  redirectUri: string,
  clientId: string,
): { heading: string; lines: string } {
  const lead = `<strong>${shownWhole(identity.domain ?? identity.host, MAX_SHOWN_HOST)}</strong>`;
  const scheme = identity.appScheme ? shownWhole(identity.appScheme, 80) : "";
  const heading = identity.appScheme
    ? "An app on this device asks to use your workspace"
    : identity.source === "metadata_document"
      ? `An application at ${lead} asks to use your workspace`
      : `An application returning to ${lead} asks to use your workspace`;
  // An app's scheme and the domain it names are its own claim: any app on the device may register any.
  const readsLikeAddress = identity.flags.some((flag) => flag.kind === "scheme_like_domain");
  const names =
    identity.appDomain && !readsLikeAddress
      ? `, naming ${shownWhole(identity.appDomain, MAX_SHOWN_HOST)},`
      : "";
  const full = identity.appScheme
    ? `<p class="host">Its scheme <code>${scheme}</code>${names} is the app&#39;s own claim: nobody checked it.</p>`
    : identity.domain && identity.domain !== identity.host
      ? `<p class="host">Full address: <code>${shownWhole(identity.host, MAX_SHOWN_HOST, identity.domain.length)}</code></p>`
      : "";
  const claim = identity.claimedName
    ? `<p class="claim">It calls itself &#8220;${shown(identity.claimedName)}&#8221;. That name is its own claim: nobody checked it.</p>`
    : `<p class="claim">It gives no name.</p>`;
  const own = identity.publishedBy ? ` (an address of ${escapeHtml(identity.publishedBy)}&#39;s own)` : "";
  const checked =
    identity.source === "metadata_document"
      ? `<p class="muted checked">Checked: its description is published at <code>${shownWhole(clientId, MAX_SHOWN_ADDRESS)}</code>${own}. After you answer, you are sent back to ${destination(identity, redirectUri)}.</p>`
      : identity.appScheme
        ? `<p class="muted checked">Checked: nothing about who it is. After you answer, the code goes to ${destination(identity, redirectUri)}. Any application can register under any name.</p>`
        : `<p class="muted checked">Checked: only where the code is sent after you answer: ${destination(identity, redirectUri)}. Any application can register under any name.</p>`;
  const flags =
    identity.flags.length === 0
      ? ""
      : `<ul class="warn" aria-label="Warnings about this application">${identity.flags
          .map((flag) => `<li>${flagText(flag)}</li>`)
          .join("")}</ul>`;
  return { heading, lines: `${full}${claim}${flags}${checked}` };
}

function scopeChoices(scopes: ConsentView["scopes"]): string {
  const boxes = scopes.offered
    .map(
      (scope) =>
        `<label class="check"><input type="checkbox" name="${scope}" value="1"${scopes.chosen.includes(scope) ? " checked" : ""}> ${SCOPE_LABELS[scope]}</label>`,
    )
    .join("\n");
  return `<fieldset aria-describedby="scopes-help"><legend>Let the assistant</legend>
${boxes}
<p class="muted" id="scopes-help">Ticked: what the application asked for. You may allow less.</p></fieldset>`;
}

export function renderConsentPage(view: ConsentView, nonce: string): string {
  const { heading, lines } = identityLines(view.identity, view.redirectUri, view.clientId);
  const asked = view.scopes.chosen.map((scope) => SCOPE_LABELS[scope].toLowerCase()).join("; ");
  const error = view.error
    ? `<div class="alert" role="alert" id="problem">${escapeHtml(view.error)}</div>`
    : "";
  const hidden = `<input type="hidden" name="request" value="${escapeHtml(view.form)}">
<input type="hidden" name="csrf" value="${escapeHtml(view.csrf)}">`;
  const body =
    view.step === "key"
      ? `<form method="post" action="/authorize">
${hidden}
${asked ? `<p>It asks to: ${escapeHtml(asked)}.</p>` : ""}
<label for="workspace_key">Workspace API key</label>
<input type="password" id="workspace_key" name="workspace_key" required autocomplete="off" autofocus${view.error ? ' aria-describedby="problem"' : ""}>
<label for="analytics_key">Analytics API key <span class="muted">(only if it differs)</span></label>
<input type="password" id="analytics_key" name="analytics_key" autocomplete="off">
${view.demoKey ? `<p class="muted">This is a demo server: its key is <code>${escapeHtml(view.demoKey)}</code>.</p>` : ""}
<p class="muted">The key stays on this server; the application never sees it. It is checked with the APIs before anything is granted.</p>
<div class="actions"><button class="primary" type="submit" name="step" value="key">Check key</button>
<button class="secondary" type="submit" name="step" value="deny" formnovalidate>Deny</button></div>
</form>`
      : `<form method="post" action="/authorize">
${hidden}
<p>The key was accepted.</p>
${scopeChoices(view.scopes)}
${projectSelect("workspace_project", "Default workspace project", view.workspaceProjects)}
${projectSelect("analytics_project", "Default analytics project", view.analyticsProjects)}
<p class="muted" id="projects-help">A default project is used when the assistant names none.</p>
<div class="actions"><button class="primary" type="submit" name="step" value="allow">Allow</button>
<button class="secondary" type="submit" name="step" value="deny">Deny</button></div>
</form>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Sign in: ${shownWhole(view.identity.appScheme ?? view.identity.domain ?? view.identity.host, 80)}</title><style nonce="${nonce}">${STYLE}</style></head>
<body><main aria-labelledby="title">
<h1 id="title">${heading}</h1>
${lines}${error}${body}
</main></body></html>`;
}

/** A page for a request that cannot go back to its client (unknown client, redirect URI not registered). */
export function renderErrorPage(message: string, nonce: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Sign-in cannot continue</title><style nonce="${nonce}">${STYLE}</style></head>
<body><main><h1>Sign-in cannot continue</h1><div class="alert" role="alert">${escapeHtml(message)}</div>
<p>Start the sign-in again from your assistant.</p></main></body></html>`;
}

export function errorPageHeaders(nonce: string): Record<string, string> {
  return {
    "content-type": "text/html; charset=utf-8",
    "content-security-policy": `default-src 'none'; style-src 'nonce-${nonce}'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'`,
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cache-control": "no-store",
  };
}
