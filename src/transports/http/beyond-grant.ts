// The enforcement of a grant's scopes at the front door: a tools/call or prompts/get its grant does not
// cover is answered 403 insufficient_scope before any server sees it, so nothing is sent upstream, and
// a client can step up (ask the person for more) and call again.
import { audit } from "../../audit.js";
import { GUID } from "../../config/kinds.js";
import { OAuthChallenge } from "../../oauth/challenge.js";
import type { AuthorizedGrant, Scope } from "../../oauth/grant.js";
import { missingScopes, orderedScopes, promptScopes, toolScope } from "../../oauth/scopes.js";

interface Message {
  method?: unknown;
  params?: { name?: unknown; arguments?: { task_id?: unknown } };
}

/** Throws the 403 challenge when a message of `body` (one, or a 2025-03-26 batch) needs more than the grant has. */
export function refuseBeyondGrant(
  body: unknown,
  grant: AuthorizedGrant,
  served: () => ReadonlySet<string>,
): void {
  const messages = (Array.isArray(body) ? body : [body]) as (Message | null)[];
  const granted = grant.credentials.scopes;
  for (const message of messages) {
    const name = message?.params?.name;
    if (typeof name !== "string") continue;
    let needed: Scope[] | undefined;
    if (message?.method === "tools/call") {
      const scope = toolScope(name);
      // The served tools are looked at only for a call the grant does not cover: a tool this server
      // does not serve is the server's to refuse (-32602), not a reason to ask for more.
      needed = scope && !granted.includes(scope) && served().has(name) ? [scope] : undefined;
    } else if (message?.method === "prompts/get") needed = promptScopes(name, served);
    const missing = missingScopes(needed ?? [], granted);
    if (missing.length === 0) continue;
    if (message?.method === "tools/call" && missing.includes("workspace:write")) {
      const target = message.params?.arguments?.task_id;
      audit("write", {
        grant: grant.grantId,
        client: grant.clientId,
        tool: name,
        ...(typeof target === "string" && GUID.test(target) && { target }),
        outcome: "refused",
        reason: "insufficient_scope",
      });
    }
    throw new OAuthChallenge(
      "insufficient_scope",
      `${message?.method === "tools/call" ? "the tool" : "the prompt"} ${name.slice(0, 100)} needs the scope ${missing.join(" ")}, which this sign-in does not grant: sign in again granting it`,
      orderedScopes([...missing, ...granted]),
      403,
    );
  }
}
