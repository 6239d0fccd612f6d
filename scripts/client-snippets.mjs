// The one source of every client set-up the docs show: README.md and docs/clients.md carry these
// blocks as rendered here (`npm run docs:clients` writes them, test/docs/client-snippets.test.ts checks them),
// and test/docs/client-snippets-run.test.ts starts each one as its client would, against --demo.

/** The server's name in every client's configuration. */
export const NAME = "agent-workspace";
/** Where a clone lives, in the absolute form; the tests put the real path in its place. */
export const CLONE = "/absolute/path/to/agent-workspace-mcp";

/** The three ways a client starts the server over stdio. */
export const LAUNCH = {
  /** After `npm install -g .` in the clone: the command on the PATH. */
  path: { command: "agent-workspace-mcp", args: [] },
  /** Node and the built entry of the clone, with no install step. */
  absolute: { command: "node", args: [`${CLONE}/dist/cli.js`] },
  /** The package from the npm registry, once it is published there. */
  published: { command: "npx", args: ["-y", "agent-workspace-mcp"] },
};

/** What a user puts in place of the placeholders. */
export const ENV = {
  WORKSPACE_API_KEY: "<your API key>",
  WORKSPACE_BASE_URL: "<agent-workspace API base URL>",
  ANALYTICS_BASE_URL: "<analytics API base URL>",
};
export const REMOTE_URL = "https://mcp.example.com/mcp";
export const HEADERS = {
  Authorization: "Bearer <server token>",
  "X-API-KEY": "<your API key>",
  "X-Project-Id": "<project uuid>",
  "X-Workspace-Id": "<workspace uuid>",
};

/** JSON as people write it: two-space indents, but arrays of plain values and objects inside arrays on one line. */
function json(value, indent = "") {
  if (Array.isArray(value)) {
    return `[${value.map((item) => (typeof item === "object" ? oneLine(item) : JSON.stringify(item))).join(", ")}]`;
  }
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  const inner = `${indent}  `;
  const entries = Object.entries(value).map(
    ([key, item]) => `${inner}${JSON.stringify(key)}: ${json(item, inner)}`,
  );
  return `{\n${entries.join(",\n")}\n${indent}}`;
}
const oneLine = (value) =>
  `{ ${Object.entries(value)
    .map(([key, item]) => `${JSON.stringify(key)}: ${JSON.stringify(item)}`)
    .join(", ")} }`;

/** One server entry of a JSON configuration: command, args (when there are any), env (when given). */
function stdioEntry(launch, env, extra = {}) {
  return {
    ...extra,
    command: launch.command,
    ...(launch.args.length ? { args: launch.args } : {}),
    ...(env ? { env } : {}),
  };
}

/** Claude Desktop, Cursor and Gemini CLI files: `mcpServers`. */
const mcpServers = (entry) => json({ mcpServers: { [NAME]: entry } });

/** A shell command split over lines, each option on its own. */
const shellLines = (head, parts) => [head, ...parts.map((part) => `  ${part}`)].join(" \\\n");

const quoted = (text) => (/^[\w@%+=:,./<>-]+$/.test(text) && !/[<>]/.test(text) ? text : `"${text}"`);
const envOptions = (flag, env) =>
  Object.entries(env).map(([key, value]) => `${flag} ${quoted(`${key}=${value}`)}`);
const headerOptions = (flag, headers) =>
  Object.entries(headers).map(([key, value]) => `${flag} ${quoted(`${key}: ${value}`)}`);
const commandLine = (launch) => [launch.command, ...launch.args].map(quoted).join(" ");

/** `claude mcp add` for a stdio launch; Claude Code takes the command after `--`. */
const claudeStdio = (launch, env = ENV) =>
  shellLines(`claude mcp add ${NAME}`, [...envOptions("--env", env), `-- ${commandLine(launch)}`]);
/** `gemini mcp add`: name, command and its arguments, then the options. */
const geminiStdio = (launch, env = ENV) =>
  shellLines(`gemini mcp add ${NAME} ${commandLine(launch)}`, [...envOptions("-e", env), "--scope user"]);

const REMOTE_HEADERS_CLI = {
  Authorization: HEADERS.Authorization,
  "X-API-KEY": HEADERS["X-API-KEY"],
  "X-Project-Id": HEADERS["X-Project-Id"],
};

/**
 * Every block, by id: `lang` is its fence, `text` what the docs show. `client` says how the tests read
 * it: `json` (a configuration file), `claude` or `gemini` (an `mcp add` command line), `inspector`,
 * `shell` (commands run as written).
 */
export const SNIPPETS = {
  install: {
    lang: "sh",
    client: "shell",
    text: [
      "npm install      # in the clone: installs, then builds dist/",
      "npm install -g . # puts agent-workspace-mcp on the PATH, a link to this folder",
    ].join("\n"),
  },
  "claude-desktop": { lang: "json", client: "json", text: mcpServers(stdioEntry(LAUNCH.path, ENV)) },
  "claude-desktop-demo": {
    lang: "json",
    client: "json",
    text: mcpServers(stdioEntry({ ...LAUNCH.path, args: ["--demo"] })),
  },
  "claude-desktop-absolute": {
    lang: "json",
    client: "json",
    text: mcpServers(stdioEntry(LAUNCH.absolute, ENV)),
  },
  "claude-desktop-published": {
    lang: "json",
    client: "json",
    text: mcpServers(stdioEntry(LAUNCH.published, ENV)),
  },
  "claude-code": { lang: "sh", client: "claude", text: claudeStdio(LAUNCH.path) },
  "claude-code-absolute": { lang: "sh", client: "claude", text: claudeStdio(LAUNCH.absolute) },
  "claude-code-published": { lang: "sh", client: "claude", text: claudeStdio(LAUNCH.published) },
  cursor: { lang: "json", client: "json", text: mcpServers(stdioEntry(LAUNCH.path, ENV)) },
  vscode: {
    lang: "json",
    client: "json",
    text: json({
      inputs: [
        {
          type: "promptString",
          id: "workspace-api-key",
          description: "Agent workspace API key",
          password: true,
        },
      ],
      servers: {
        [NAME]: stdioEntry(
          LAUNCH.path,
          // VS Code's own variable syntax, written as it is.
          // biome-ignore lint/suspicious/noTemplateCurlyInString: not a template
          { ...ENV, WORKSPACE_API_KEY: "${input:workspace-api-key}" },
          { type: "stdio" },
        ),
      },
    }),
  },
  gemini: { lang: "sh", client: "gemini", text: geminiStdio(LAUNCH.path) },
  windows: {
    lang: "json",
    client: "json",
    text: mcpServers(stdioEntry({ command: "cmd", args: ["/c", LAUNCH.path.command] }, ENV)),
  },
  "windows-published": {
    lang: "json",
    client: "json",
    text: mcpServers(
      stdioEntry({ command: "cmd", args: ["/c", ...commandLine(LAUNCH.published).split(" ")] }, ENV),
    ),
  },
  "windows-claude-code": {
    lang: "sh",
    client: "claude",
    text: claudeStdio({ command: "cmd", args: ["/c", LAUNCH.path.command] }),
  },
  "remote-claude-code": {
    lang: "sh",
    client: "claude",
    text: shellLines(
      `claude mcp add --transport http ${NAME} ${REMOTE_URL}`,
      headerOptions("--header", REMOTE_HEADERS_CLI),
    ),
  },
  "remote-gemini": {
    lang: "sh",
    client: "gemini",
    text: shellLines(`gemini mcp add --transport http ${NAME} ${REMOTE_URL}`, [
      ...headerOptions("-H", REMOTE_HEADERS_CLI),
      "--scope user",
    ]),
  },
  "remote-cursor": { lang: "json", client: "json", text: mcpServers({ url: REMOTE_URL, headers: HEADERS }) },
  "remote-vscode": {
    lang: "json",
    client: "json",
    text: json({ servers: { [NAME]: { type: "http", url: REMOTE_URL, headers: HEADERS } } }),
  },
  "inspector-ui": {
    lang: "sh",
    client: "inspector",
    text: "npx -y @modelcontextprotocol/inspector agent-workspace-mcp --demo",
  },
  "inspector-cli": {
    lang: "sh",
    client: "inspector",
    text: [
      `npx -y @modelcontextprotocol/inspector --cli agent-workspace-mcp --demo --method tools/list`,
      `npx -y @modelcontextprotocol/inspector --cli agent-workspace-mcp --demo \\`,
      `  --method tools/call --tool-name geo_models --tool-arg 'pagination={"limit":2}'`,
    ].join("\n"),
  },
  "inspector-http": {
    lang: "sh",
    client: "inspector",
    text: [
      `npx -y @modelcontextprotocol/inspector --cli ${REMOTE_URL} --transport http \\`,
      `  --header "Authorization: Bearer <server token>" --header "X-API-KEY: <your API key>" --method tools/list`,
    ].join("\n"),
  },
};

/** mcp.json.example: the Claude Desktop entry, whole. */
export const MCP_JSON_EXAMPLE = `${SNIPPETS["claude-desktop"].text}\n`;

/** A block as the docs carry it: its marker comment, then the fenced text. */
export const fenced = (id) =>
  `<!-- snippet: ${id} -->\n\`\`\`${SNIPPETS[id].lang}\n${SNIPPETS[id].text}\n\`\`\``;

/** Replaces each marked block of a markdown text with the block rendered from SNIPPETS. */
export function renderMarked(markdown) {
  return markdown.replace(/<!-- snippet: ([\w-]+) -->\n```[^\n]*\n(?:[^`][\s\S]*?\n)?```/g, (_block, id) => {
    if (!SNIPPETS[id]) throw new Error(`unknown snippet id "${id}"`);
    return fenced(id);
  });
}

/** Each placeholder of the snippets, by the name a test gives its value. */
export const PLACEHOLDERS = {
  clone: CLONE,
  url: REMOTE_URL,
  token: "<server token>",
  key: "<your API key>",
  workspaceBaseUrl: "<agent-workspace API base URL>",
  analyticsBaseUrl: "<analytics API base URL>",
  project: "<project uuid>",
  workspace: "<workspace uuid>",
};

/** A snippet's text with every placeholder replaced by the value given for it; throws if one is left. */
export function filledIn(id, values) {
  let text = SNIPPETS[id].text;
  for (const [name, placeholder] of Object.entries(PLACEHOLDERS)) {
    if (values[name] !== undefined) text = text.split(placeholder).join(values[name]);
  }
  const left = Object.entries(PLACEHOLDERS).filter(([, placeholder]) => text.includes(placeholder));
  if (left.length) throw new Error(`${id}: no value for ${left.map(([name]) => name).join(", ")}`);
  return text;
}
