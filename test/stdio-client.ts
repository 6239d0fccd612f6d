// SDK v2's stdio transport for clients that negotiate 2026-07-28 (pinned or auto). Given the base
// StdioClientTransport itself, the SDK sends its server/discover probe to a second, short-lived copy of
// the server before starting the one it keeps; a subclass makes it probe on the connection it keeps.
// Tests use this one, so each client starts one server; test/protocol/revisions.test.ts keeps the
// SDK's own sibling probe covered with the base class.
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

export class InPlaceStdioClientTransport extends StdioClientTransport {}
