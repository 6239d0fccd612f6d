// The published package works: `npm pack`, install the tarball into an empty folder (dependencies from
// the local npm cache where it has them), run `npx agent-workspace-mcp --version` there, then open a
// stdio session with the SDK's Client and list the tools. Run by .ci/run; exits non-zero on any failure.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const root = new URL("..", import.meta.url).pathname;
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const EXPECTED_TOOLS = 14;
// dist/views/report-view.html: the report view, which the unbundled modules of dist/ read (cli.js embeds it).
const SHIPPED = [
  "LICENSE",
  "README.md",
  "dist/cli.js",
  "dist/views/report-view.html",
  "package.json",
  "server.json",
];

const run = (command, args, cwd) =>
  execFileSync(command, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).trim();

function fail(message) {
  console.error(`pack-check: ${message}`);
  process.exitCode = 1;
}

const work = mkdtempSync(join(tmpdir(), "pack-check-"));
try {
  const [packed] = JSON.parse(run("npm", ["pack", "--json", "--pack-destination", work], root));
  const files = packed.files.map((file) => file.path);
  console.log(`packed ${packed.filename}: ${files.length} files, ${packed.size} bytes`);
  for (const file of SHIPPED) if (!files.includes(file)) fail(`${file} is not in the tarball`);
  // dist/build/ is what only scripts and tests use; every other module of dist/ may be loaded.
  const strays = files.filter(
    (file) => !SHIPPED.includes(file) && (!/^dist\/.+\.js$/.test(file) || file.startsWith("dist/build/")),
  );
  if (strays.length > 0) fail(`the tarball ships more than what runs: ${strays.join(", ")}`);

  const app = join(work, "app");
  mkdirSync(app);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "pack-check-app", private: true }));
  run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", join(work, packed.filename)], app);

  const version = run("npx", ["--no-install", pkg.name, "--version"], app);
  if (version !== pkg.version) {
    fail(`npx ${pkg.name} --version printed "${version}", expected "${pkg.version}"`);
  } else {
    console.log(`npx ${pkg.name} --version: ${version}`);
  }

  const client = new Client({ name: "pack-check", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: join(app, "node_modules", ".bin", pkg.name),
      args: ["--demo"],
      cwd: app,
      stderr: "ignore",
    }),
  );
  try {
    const { tools } = await client.listTools();
    if (tools.length !== EXPECTED_TOOLS) fail(`listed ${tools.length} tools, expected ${EXPECTED_TOOLS}`);
    const result = await client.callTool({ name: "whoami", arguments: {} });
    if (result.isError) fail(`whoami failed: ${JSON.stringify(result.content)}`);
    const view = (await client.readResource({ uri: "ui://agent-workspace-mcp/report-view.html" }))
      .contents[0];
    const html = view && "text" in view ? view.text : undefined;
    if (view?.mimeType !== "text/html;profile=mcp-app" || !html?.startsWith("<!doctype html>")) {
      fail("the report view is not served from the installed package");
    }
    console.log(
      `stdio session from the installed package: ${tools.length} tools, whoami answered, report view ${html?.length} chars`,
    );
  } finally {
    await client.close();
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
if (process.exitCode) process.exit(process.exitCode);
console.log("pack-check: ok");
