// What one tool call carries from the MCP handler (server.ts) through call.ts to its upstream requests.
import type { ServerContext } from "@modelcontextprotocol/server";
import type { CallControl } from "../clients/retry.js";
import type { Report } from "../log.js";
import type { ConfirmChannel } from "./confirm.js";

/** Who makes a call, as the audit line names it, and what its grant allows. */
export interface Caller {
  /** The OAuth client id, or "api-key", "shared-token", "environment", "stdio". */
  client: string;
  /** The OAuth grant, when signed in. */
  grant?: string;
  /** The scopes the call may use; undefined: all a key can (not signed in by OAuth). */
  scopes?: ReadonlySet<string>;
  /** The address an HTTP request came from (client-address.ts); none on stdio. */
  address?: string;
}

/** Built once per call in server.ts; handed to the upstream clients as is (they read its CallControl). */
export interface CallContext extends CallControl {
  /** The tools this server offers; a call to any other is refused. */
  enabled: ReadonlySet<string>;
  /** Where the call's log entries go (stderr, and the client when it asked for them). */
  report: Report;
  /** How to ask the person before a write, with --confirm-writes (confirm.ts). */
  confirm?: ConfirmChannel;
  /** Who calls (stdio when not given). */
  caller?: Caller;
}

/** Who makes the request: the HTTP transport says so in authInfo (transports/http/server.ts); else stdio. */
export function callerOf(ctx: ServerContext): Caller {
  const auth = ctx.http?.authInfo;
  if (!auth) return { client: "stdio" };
  const { grant, address } = auth.extra ?? {};
  const from = typeof address === "string" ? { address } : {};
  return typeof grant === "string"
    ? { client: auth.clientId, grant, scopes: new Set(auth.scopes), ...from }
    : { client: auth.clientId, ...from };
}
