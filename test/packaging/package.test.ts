// What the MCP Registry and npm read about the package agrees with itself and with the code.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { USAGE } from "../../src/config/help.js";
import { SETTINGS } from "../../src/config/settings.js";
import { SHAPING_HEADERS } from "../../src/transports/http/user-servers.js";

const read = (file: string) => JSON.parse(readFileSync(new URL(`../../${file}`, import.meta.url), "utf8"));
const pkg = read("package.json");
const server = read("server.json");

describe("package.json and server.json", () => {
  it("name the same server, package and version", () => {
    expect(server.name).toBe(pkg.mcpName);
    expect(server.version).toBe(pkg.version);
    expect(server.packages.map(({ registryType }: { registryType: string }) => registryType)).toEqual([
      "npm",
      "oci",
    ]);
    expect(server.packages[0]).toMatchObject({
      registryType: "npm",
      identifier: pkg.name,
      version: pkg.version,
      transport: { type: "stdio" },
    });
    expect(server.description.length).toBeLessThanOrEqual(100);
  });

  it("say, for every dependency with an install script, whether npm may run it (allowScripts)", () => {
    const lock = read("package-lock.json");
    const scripted = Object.entries(lock.packages as Record<string, { hasInstallScript?: boolean }>)
      .filter(([, entry]) => entry.hasInstallScript)
      .map(([path]) => path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length))
      .sort();
    expect(Object.keys(pkg.allowScripts).sort()).toEqual(scripted);
  });

  it("list the hosted form as a streamable-http remote at a deployment's own host", () => {
    expect(server.remotes).toMatchObject([
      {
        type: "streamable-http",
        url: "https://{host}/mcp",
        variables: { host: { description: expect.stringContaining("--oauth"), isRequired: true } },
      },
    ]);
    // Signed in by OAuth, a client sends no header: none of them is required.
    expect(server.remotes[0].headers.filter((header: { isRequired?: boolean }) => header.isRequired)).toEqual(
      [],
    );
  });

  it("ship only what runs, on Node 20.18 or later", () => {
    // dist/build/: what only scripts and tests use (the bundle manifest, the context-cost figures).
    expect(pkg.files).toEqual(["dist", "!dist/build", "README.md", "LICENSE", "server.json"]);
    expect(pkg.engines).toEqual({ node: ">=20.18" });
    expect(pkg.bin).toEqual({ [pkg.name]: "dist/cli.js" });
  });

  it("describe every environment variable, each one the server reads, the keys as secrets", () => {
    const variables: { name: string; description?: string; isSecret?: boolean }[] =
      server.packages[0].environmentVariables;
    for (const variable of variables) {
      expect(variable.description, variable.name).toMatch(/^\S.{10,}/);
      expect(USAGE, variable.name).toContain(variable.name);
    }
    // server.json describes the stdio package: every setting but the HTTP server's and the transport.
    const served = SETTINGS.filter(
      ({ section, env }) => section !== "HTTP options" && env !== "MCP_TRANSPORT",
    );
    expect(variables.map((variable) => variable.name).sort()).toEqual(served.map(({ env }) => env).sort());
    const secrets = variables.filter((variable) => variable.isSecret).map((variable) => variable.name);
    expect(secrets).toEqual(served.filter(({ secret }) => secret).map(({ env }) => env));
    expect(secrets).toEqual(["WORKSPACE_API_KEY", "ANALYTICS_API_KEY"]);
  });

  it("give each variable the default and choices of the settings table", () => {
    const variables: { name: string; default?: string; choices?: string[] }[] =
      server.packages[0].environmentVariables;
    for (const setting of SETTINGS) {
      const variable = variables.find(({ name }) => name === setting.env);
      if (!variable) continue;
      if (typeof setting.default === "number" || typeof setting.default === "string") {
        expect(variable.default, setting.env).toBe(String(setting.default));
      }
      if (setting.kind.name === "choice") expect(variable.choices, setting.env).toEqual(setting.kind.words);
    }
  });

  it("name the container image as an OCI package serving streamable HTTP, with the settings a container needs", () => {
    const oci = server.packages[1];
    // Since the 2025-10-11 schema an OCI package carries its version in the image reference, not beside it.
    expect(oci.identifier).toBe(`ghcr.io/agent-workspace/agent-workspace-mcp:${pkg.version}`);
    expect(oci.version).toBeUndefined();
    const port = /MCP_PORT=(\d+)/.exec(
      readFileSync(new URL("../../Containerfile", import.meta.url), "utf8"),
    )?.[1];
    expect(oci.transport).toEqual({ type: "streamable-http", url: `http://localhost:${port}/mcp` });
    const variables: { name: string; isSecret?: boolean; isRequired?: boolean }[] = oci.environmentVariables;
    const settings = variables.map(({ name }) => SETTINGS.find(({ env }) => env === name));
    expect(settings.every(Boolean), JSON.stringify(variables.map(({ name }) => name))).toBe(true);
    expect(variables.filter(({ isSecret }) => isSecret).map(({ name }) => name)).toEqual(
      settings.filter((setting) => setting?.secret).map((setting) => setting?.env),
    );
    // What the bind guard asks of a server listening beyond loopback, and what /readyz waits for.
    expect(variables.filter(({ isRequired }) => isRequired).map(({ name }) => name)).toEqual([
      "WORKSPACE_BASE_URL",
      "ANALYTICS_BASE_URL",
      "MCP_ALLOWED_HOSTS",
      "MCP_AUTH_TOKEN",
    ]);
  });

  it("describe the hosted server as a remote: a URL template, the bearer token, the per-user headers", () => {
    expect(server.remotes).toHaveLength(1);
    const [remote] = server.remotes;
    expect(remote.type).toBe("streamable-http");
    const placeholders = [...remote.url.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
    expect(placeholders).toEqual(Object.keys(remote.variables));
    const headers: {
      name: string;
      isSecret?: boolean;
      value?: string;
      variables?: Record<string, object>;
    }[] = remote.headers;
    const [authorization, ...others] = headers;
    expect(authorization).toMatchObject({ name: "Authorization", value: "Bearer {token}", isSecret: true });
    expect(authorization?.variables?.token).toMatchObject({ isSecret: true, isRequired: true });
    for (const header of others) expect(SHAPING_HEADERS, header.name).toContain(header.name.toLowerCase());
    expect(headers.find(({ name }) => name === "X-API-KEY")?.isSecret).toBe(true);
  });

  it("keep to the fields of the registry schema it names", () => {
    expect(server.$schema).toBe(
      "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
    );
    const PACKAGE_FIELDS = [
      "registryType",
      "registryBaseUrl",
      "identifier",
      "version",
      "fileSha256",
      "runtimeHint",
      "transport",
      "runtimeArguments",
      "packageArguments",
      "environmentVariables",
    ];
    const INPUT_FIELDS = ["name", "description", "isRequired", "format", "value", "isSecret", "default"];
    const inputFields = [...INPUT_FIELDS, "placeholder", "choices", "variables"];
    const inputs: Record<string, unknown>[] = [];
    for (const entry of server.packages) {
      expect(PACKAGE_FIELDS).toEqual(expect.arrayContaining(Object.keys(entry)));
      expect(["npm", "pypi", "oci", "nuget", "mcpb"]).toContain(entry.registryType);
      expect(entry.version).not.toBe("latest");
      expect(["stdio", "streamable-http", "sse"]).toContain(entry.transport.type);
      inputs.push(...entry.environmentVariables);
    }
    for (const remote of server.remotes)
      inputs.push(...remote.headers, ...(Object.values(remote.variables ?? {}) as Record<string, unknown>[]));
    for (const input of inputs) {
      expect(inputFields).toEqual(expect.arrayContaining(Object.keys(input)));
      if (input.format !== undefined)
        expect(["string", "number", "boolean", "filepath"]).toContain(input.format);
    }
  });
});
