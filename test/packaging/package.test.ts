// What the MCP Registry and npm read about the package agrees with itself and with the code.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { USAGE } from "../../src/config/help.js";
import { SETTINGS } from "../../src/config/settings.js";

const read = (file: string) => JSON.parse(readFileSync(new URL(`../../${file}`, import.meta.url), "utf8"));
const pkg = read("package.json");
const server = read("server.json");

describe("package.json and server.json", () => {
  it("name the same server, package and version", () => {
    expect(server.name).toBe(pkg.mcpName);
    expect(server.version).toBe(pkg.version);
    expect(server.packages).toHaveLength(1);
    expect(server.packages[0]).toMatchObject({
      registryType: "npm",
      identifier: pkg.name,
      version: pkg.version,
      transport: { type: "stdio" },
    });
    expect(server.description.length).toBeLessThanOrEqual(100);
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
});
