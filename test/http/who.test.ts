// Who a request is, row by row of docs/hosting.md's "Which key a request uses": for each server mode and
// each set of credentials a request can carry, the exact key the sandbox received, or the refusal and
// that nothing reached it; in both protocol eras (a 2025-11-25 session, 2026-07-28 requests).
import { createConnection } from "node:net";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SANDBOX_API_KEY, SANDBOX_SINGLE_PROJECT_API_KEY } from "../../src/sandbox/index.js";
import { initializeBody, MCP_HEADERS, modernToolCall } from "../http-helpers.js";
import { logLines } from "../log-capture.js";
import { type OAuthHarness, signInByHand, startOAuth } from "../oauth-harness.js";
import { MODERN } from "../revision-clients.js";

/** The operator's key (WORKSPACE_API_KEY), a person's X-API-KEY, and the key a person signed in with. */
const ENV_KEY = SANDBOX_API_KEY;
const USER_KEY = "user-key-of-bob";
const GRANT_KEY = SANDBOX_SINGLE_PROJECT_API_KEY;
const SHARED = "shared-token-of-the-team";
const LEGACY = "2025-11-25";

type Mode = "open" | "token" | "oauth" | "oauth+token";
/** Header lines as sent, in order (a name twice is sent twice); `grant` stands for a fresh access token. */
type Lines = [string, string][];

const bearer = (token: string): [string, string] => ["authorization", `Bearer ${token}`];
const key = (value: string): [string, string] => ["x-api-key", value];
const GRANT = "<access token>";
/** Blank once normalized: a no-break space as one latin-1 byte; and as UTF-8 with a zero-width space. */
const NBSP = "\u00a0";
const UTF8_BLANK = "\u00c2\u00a0\u00e2\u0080\u008b";

type Expected = { key: string } | { status: number; challenge?: "realm" | "sign-in" | "invalid_token" };
const ANSWERS: Record<string, Expected> = {
  env: { key: ENV_KEY },
  user: { key: USER_KEY },
  grant: { key: GRANT_KEY },
  400: { status: 400 },
  realm: { status: 401, challenge: "realm" },
  signIn: { status: 401, challenge: "sign-in" },
  invalid: { status: 401, challenge: "invalid_token" },
};

/** [mode, what the request carries, its header lines, the answer]: the table of docs/hosting.md. */
const ROWS: [Mode, string, Lines, keyof typeof ANSWERS][] = [
  ["open", "nothing", [], "env"],
  ["open", "X-API-KEY", [key(USER_KEY)], "user"],
  [
    "open",
    "X-API-KEY with spaces around it (UTF-8 U+00A0, U+200B)",
    [key(`\u00c2\u00a0 ${USER_KEY}\u00e2\u0080\u008b`)],
    "user",
  ],
  ["open", "a blank X-API-KEY (U+00A0)", [key(NBSP)], "env"],
  ["open", "a blank X-API-KEY (UTF-8 U+00A0 U+200B)", [key(UTF8_BLANK)], "env"],
  ["open", "X-API-KEY twice", [key(USER_KEY), key(USER_KEY)], "400"],
  ["open", "a malformed X-API-KEY", [key("user key")], "400"],
  ["open", "any Authorization (not read)", [bearer("anything")], "env"],
  ["token", "nothing", [], "realm"],
  ["token", "X-API-KEY alone", [key(USER_KEY)], "realm"],
  ["token", "the shared token", [bearer(SHARED)], "env"],
  ["token", "the shared token, scheme in other case", [["authorization", `bEaReR   ${SHARED}`]], "env"],
  ["token", "the shared token and X-API-KEY", [bearer(SHARED), key(USER_KEY)], "user"],
  ["token", "the shared token and a blank X-API-KEY", [bearer(SHARED), key(NBSP)], "env"],
  ["token", "the shared token and a malformed X-API-KEY", [bearer(SHARED), key("a\u0001b")], "400"],
  ["token", "the shared token and X-API-KEY twice", [bearer(SHARED), key(USER_KEY), key(USER_KEY)], "400"],
  // Trimmed by stepping in from each end: a long blank run costs no more than its length.
  [
    "token",
    "the shared token and X-API-KEY of a long tab run and a raw 0xA0",
    [bearer(SHARED), key(`x${"\t".repeat(12_000)}x\xa0`)],
    "400",
  ],
  ["token", "Authorization twice", [bearer(SHARED), bearer(SHARED)], "realm"],
  ["token", "a wrong token", [bearer("not-the-token")], "realm"],
  ["token", "the token in another scheme", [["authorization", `Basic ${SHARED}`]], "realm"],
  ["oauth", "nothing", [], "signIn"],
  ["oauth", "X-API-KEY", [key(USER_KEY)], "user"],
  ["oauth", "a blank X-API-KEY (U+00A0)", [key(NBSP)], "signIn"],
  ["oauth", "a blank X-API-KEY (UTF-8 U+00A0 U+200B)", [key(UTF8_BLANK)], "signIn"],
  ["oauth", "a malformed X-API-KEY", [key("user key")], "signIn"],
  ["oauth", "X-API-KEY twice", [key(USER_KEY), key(USER_KEY)], "signIn"],
  ["oauth", "an access token", [bearer(GRANT)], "grant"],
  ["oauth", "an access token and X-API-KEY", [bearer(GRANT), key(USER_KEY)], "400"],
  ["oauth", "an access token and a blank X-API-KEY", [bearer(GRANT), key(NBSP)], "grant"],
  ["oauth", "an access token twice", [bearer(GRANT), bearer(GRANT)], "signIn"],
  ["oauth", "a token this server did not issue", [bearer("forged.token")], "invalid"],
  ["oauth", "a blank Authorization", [["authorization", `Bearer ${NBSP}`]], "signIn"],
  ["oauth", "another scheme", [["authorization", `Basic ${USER_KEY}`]], "signIn"],
  ["oauth+token", "nothing", [], "signIn"],
  ["oauth+token", "X-API-KEY alone", [key(USER_KEY)], "signIn"],
  ["oauth+token", "the shared token", [bearer(SHARED)], "env"],
  ["oauth+token", "the shared token and X-API-KEY", [bearer(SHARED), key(USER_KEY)], "user"],
  ["oauth+token", "an access token", [bearer(GRANT)], "grant"],
  ["oauth+token", "an access token and X-API-KEY", [bearer(GRANT), key(USER_KEY)], "400"],
];

/**
 * One POST written byte for byte: each header line as given (a name given twice is sent twice, each
 * character one byte, as a client sending latin-1 or raw UTF-8 bytes would).
 */
function post(url: string, lines: Lines, call: { headers: Record<string, string>; body: string }) {
  const { hostname, port, host, pathname } = new URL(url);
  const head = [
    `POST ${pathname} HTTP/1.1`,
    `host: ${host}`,
    "connection: close",
    `content-length: ${Buffer.byteLength(call.body)}`,
    ...[...Object.entries(call.headers), ...lines].map(([name, value]) => `${name}: ${value}`),
  ];
  const socket = createConnection(Number(port), hostname);
  socket.end(Buffer.concat([Buffer.from(`${head.join("\r\n")}\r\n\r\n`, "latin1"), Buffer.from(call.body)]));
  return new Promise<{ status: number; headers: Record<string, string>; text: string }>((resolve, reject) => {
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", reject);
    socket.once("close", () => {
      const answer = Buffer.concat(chunks).toString("latin1");
      const [top = "", ...rest] = answer.split("\r\n\r\n");
      const [status = "", ...fields] = top.split("\r\n");
      const headers = Object.fromEntries(
        fields.map((field) => [
          field.slice(0, field.indexOf(":")).toLowerCase(),
          field.slice(field.indexOf(":") + 1).trim(),
        ]),
      );
      resolve({ status: Number(status.split(" ")[1]), headers, text: rest.join("\r\n\r\n") });
    });
  });
}

const legacyInitialize = () => ({ headers: MCP_HEADERS, body: initializeBody() });
const modernWhoami = () => {
  const { headers, body } = modernToolCall(1, "whoami", {});
  return { headers, body };
};

const servers = new Map<Mode, OAuthHarness>();
/** A person's access token on each sign-in server (each keeps its own grants). */
const accessTokens = new Map<Mode, string>();
const linesFor = (mode: Mode, carries: Lines) =>
  carries.map(([name, value]): [string, string] => [
    name,
    value.replace(GRANT, accessTokens.get(mode) ?? ""),
  ]);

beforeAll(async () => {
  const first = await startOAuth({ signIn: false, upstream: { workspaceApiKey: ENV_KEY } });
  const sandbox = first.sandbox;
  const token = { authToken: SHARED };
  const [withToken, oauth, both] = await Promise.all([
    startOAuth({ signIn: false, sandbox, httpOverrides: token, upstream: { workspaceApiKey: ENV_KEY } }),
    startOAuth({ sandbox, upstream: { workspaceApiKey: ENV_KEY } }),
    startOAuth({ sandbox, httpOverrides: token, upstream: { workspaceApiKey: ENV_KEY } }),
  ]);
  for (const [mode, server] of [
    ["open", first],
    ["token", withToken],
    ["oauth", oauth],
    ["oauth+token", both],
  ] as const)
    servers.set(mode, server);
  for (const [mode, server] of [
    ["oauth", oauth],
    ["oauth+token", both],
  ] as const) {
    const { tokens } = await signInByHand(server.origin, { workspaceKey: GRANT_KEY, write: true });
    accessTokens.set(mode, tokens.access_token);
  }
});
afterAll(async () => {
  const open = servers.get("open");
  await Promise.all(
    [...servers.values()].filter((server) => server !== open).map((server) => server.close()),
  );
  await open?.close();
});

/** The SDK v2 client of an era, sending these header lines (none of the admitted rows repeats a name). */
async function connect(server: OAuthHarness, era: string, carries: Lines): Promise<Client> {
  const client =
    era === MODERN
      ? new Client({ name: "who", version: "1.0.0" }, { versionNegotiation: { mode: { pin: MODERN } } })
      : new Client({ name: "who", version: "1.0.0" }, { supportedProtocolVersions: [LEGACY] });
  const headers = Object.fromEntries(carries);
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers } }));
  return client;
}

describe.each([MODERN, LEGACY])("which key a request uses, %s", (era) => {
  it.each(ROWS)("%s server, a request carrying %s", async (mode, _carries, carries, answer) => {
    const server = servers.get(mode) as OAuthHarness;
    const sent = linesFor(mode, carries);
    const expected = ANSWERS[answer] as Expected;
    server.sandbox.requests.length = 0;
    if ("key" in expected) {
      const client = await connect(server, era, sent);
      try {
        const result = await client.callTool({ name: "whoami", arguments: {} });
        expect(result.isError, JSON.stringify(result.content)).toBe(
          expected.key === USER_KEY ? true : undefined,
        );
      } finally {
        await client.close();
      }
      expect(server.sandbox.requests.map((r) => [r.path, r.headers["x-api-key"]])).toEqual([
        ["/api/v1/business/whoami", expected.key],
      ]);
      return;
    }
    const response = await post(server.url, sent, era === MODERN ? modernWhoami() : legacyInitialize());
    expect(response.status).toBe(expected.status);
    const challenge = response.headers["www-authenticate"];
    const metadata = `resource_metadata="${server.origin}/.well-known/oauth-protected-resource/mcp"`;
    if (expected.challenge === "realm") expect(challenge).toBe('Bearer realm="agent-workspace-mcp"');
    if (expected.challenge === "sign-in")
      expect(challenge).toBe(`Bearer scope="workspace:read analytics:read", ${metadata}`);
    if (expected.challenge === "invalid_token") expect(challenge).toMatch(/^Bearer error="invalid_token", /);
    if (expected.status === 400) expect(challenge).toBeUndefined();
    for (const [, value] of sent) if (value.length > 8) expect(response.text).not.toContain(value.trim());
    expect(server.sandbox.requests).toEqual([]);
  });
});

it("a request carrying Host twice is refused before anything is read of it (RFC 9112 §3.2)", async () => {
  const server = servers.get("token") as OAuthHarness;
  server.sandbox.requests.length = 0;
  const response = await post(server.url, [["host", "other.example"], bearer(SHARED)], modernWhoami());
  expect(response.status).toBe(400);
  expect(JSON.parse(response.text).error.message).toBe(
    "Bad Request: the request carries Host more than once",
  );
  expect(server.sandbox.requests).toEqual([]);
});

describe("the audit line names who wrote", () => {
  it.each([
    // The sandbox knows the operator's key; it refuses USER_KEY, and GRANT_KEY's account has not the task.
    ["open", [] as Lines, "environment", "ok"],
    ["open", [key(USER_KEY)], "api-key", "failed"],
    ["token", [bearer(SHARED)], "shared-token", "ok"],
    ["oauth+token", [bearer(SHARED), key(USER_KEY)], "shared-token", "failed"],
    ["oauth", [key(USER_KEY)], "api-key", "failed"],
    ["oauth", [bearer(GRANT)], "grant", "failed"],
  ] as const)("%s server, %j: %s", async (mode, carries, expected, outcomeExpected) => {
    const server = servers.get(mode) as OAuthHarness;
    const client = await connect(server, MODERN, linesFor(mode, [...carries]));
    try {
      const args = {
        task_id: server.sandbox.ids.taskId,
        project_id: server.sandbox.workspaceProjectId,
        body: "audited",
      };
      await client.callTool({ name: "tasks_comments", arguments: args });
    } finally {
      await client.close();
    }
    const [audit, ...others] = logLines()
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.message === "audit");
    expect(others).toEqual([]);
    const { client: who, grant, outcome, target } = audit ?? {};
    expect({ target, grant: typeof grant }).toEqual({
      target: server.sandbox.ids.taskId,
      grant: expected === "grant" ? "string" : "undefined",
    });
    if (expected === "grant") expect(who).toMatch(/^[\w-]{20,}/);
    else expect(who).toBe(expected);
    expect(outcome).toBe(outcomeExpected);
    expect(logLines().join("")).not.toContain("audited");
  });
});
