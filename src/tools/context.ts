// What one tool call carries from the MCP handler (server.ts) through call.ts to its upstream requests.
import type { CallControl } from "../clients/retry.js";
import type { Report } from "../log.js";
import type { ConfirmChannel } from "./confirm.js";

/** Built once per call in server.ts; handed to the upstream clients as is (they read its CallControl). */
export interface CallContext extends CallControl {
  /** The tools this server offers; a call to any other is refused. */
  enabled: ReadonlySet<string>;
  /** Where the call's log entries go (stderr, and the client when it asked for them). */
  report: Report;
  /** How to ask the person before a write, with --confirm-writes (confirm.ts). */
  confirm?: ConfirmChannel;
}
