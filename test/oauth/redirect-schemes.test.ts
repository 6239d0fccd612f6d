// Redirect URIs whose scheme hands the address to a web browser (x-safari-https:, microsoft-edge:,
// firefox:, an app scheme carrying an https URL), or whose app scheme is no reverse domain name
// (puffins:, googlechrome:, myapp:): the code could end on a website while the consent page said "an
// app on this device", so they are refused at registration, in a metadata document, and (registered
// before the rule) at the authorization request.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redirectUriProblem } from "../../src/oauth/redirects.js";
import { Keyring, signClientId } from "../../src/oauth/seal.js";
import {
  type OAuthHarness,
  openConsent,
  startFlow,
  startMetadataHost,
  startOAuth,
  TEST_SECRET,
} from "../oauth-harness.js";

// App schemes carrying a web address, or a browser's scheme with http in its name.
const HANDED = [
  "x-safari-https://evil.example/cb",
  "x-safari-http://evil.example/cb",
  "microsoft-edge:https://evil.example/cb",
  "microsoft-edge-https://evil.example/cb",
  "firefox:https://evil.example/cb",
  "firefox://open-url?url=https%3A%2F%2Fevil.example%2Fcb",
  "opera-http://evil.example/cb",
  "com.example.app:/open?next=https://evil.example/cb",
  "com.example.app:/open?next=https%253A%252F%252Fevil.example%252Fcb", // encoded twice
  "com.example.app:/cb?u=h%0Attps://evil.example", // a browser drops tab, CR and LF
  "com.example.app:/cb?u=h%09t%0Dtps%0A://evil.example",
  "com.example.app:/cb?u=%252525252568ttps://evil.example", // encoded five times
  `com.example.app:/cb?u=%${"25".repeat(15)}68ttps://evil.example`, // sixteen times
  "myapp-https://evil.example/cb",
];
const why = (scheme: string) =>
  `handed to a web browser (the ${scheme} scheme opens a website, not an app); register the https URI itself`;
// Schemes without a dot (RFC 8252 §7.1 asks for a reverse domain name): browsers' own among them,
// refused by the rule whether or not anyone listed them.
const DOTLESS = [
  "puffins://evil.example/cb",
  "ucbrowser://evil.example/cb",
  "dolphin://evil.example/cb",
  "googlechrome://evil.example/cb",
  "googlechromes://evil.example/cb",
  "intent://evil.example/cb",
  "android-app://com.android.chrome/https/evil.example/cb",
  "myapp:/callback",
  "vscode://vscode.github-authentication/did-authenticate?windowid=1",
];
const dotless = (scheme: string) =>
  `not https, loopback http or an app scheme named by a reverse domain (RFC 8252 §7.1, like com.example.app:/callback): ${scheme} has no dot`;
const problemOf = (uri: string) => (HANDED.includes(uri) ? why : dotless)(new URL(uri).protocol);

let server: OAuthHarness;
beforeAll(async () => {
  server = await startOAuth();
});
afterAll(async () => {
  await server?.close();
});

describe("redirect URIs handed to a browser, or with an app scheme that is no reverse domain", () => {
  it("are refused, whatever the browser's scheme or however the web address is carried, and a reverse-domain scheme or Cursor's is not", () => {
    for (const uri of [...HANDED, ...DOTLESS])
      expect([uri, redirectUriProblem(uri)]).toEqual([uri, problemOf(uri)]);
    for (const uri of [
      "com.example.notes:/oauth2redirect",
      "Com.Example.Notes://cb",
      "cursor://anysphere.cursor-mcp/oauth/callback",
      "https://evil.example/cb",
      "http://127.0.0.1:5/cb",
      "com.example.app:/cb?u=%252525252541&v=h%0Attp", // decoded to the end: no web address
    ])
      expect([uri, redirectUriProblem(uri)]).toEqual([uri, undefined]);
  });

  it("are refused when still percent-encoded after sixteen rounds of decoding, within the length limit", () => {
    for (const uri of [
      `com.example.app:/cb?u=%${"25".repeat(16)}41`,
      `com.example.app:/cb?u=%${"25".repeat(900)}68ttps://evil.example`,
    ])
      expect([uri.length, redirectUriProblem(uri)]).toEqual([
        uri.length,
        "percent-encoded more than 16 times over",
      ]);
  });

  it("are refused at registration with invalid_redirect_uri and why", async () => {
    for (const uri of [...HANDED.slice(0, 7), ...DOTLESS.slice(0, 4)]) {
      const answer = await fetch(`${server.origin}/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          client_name: "Notes",
          redirect_uris: [uri],
          token_endpoint_auth_method: "none",
        }),
      });
      expect([uri, answer.status, await answer.json()]).toEqual([
        uri,
        400,
        {
          error: "invalid_redirect_uri",
          error_description: `a redirect URI is ${problemOf(uri)}`,
        },
      ]);
    }
  });

  it("make a metadata document that lists one unusable, and no page is shown", async () => {
    for (const uri of ["x-safari-https://evil.example/cb", "puffins://evil.example/cb"]) {
      const host = await startMetadataHost((path, res, origin) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            client_id: `${origin}${path}`,
            client_name: "Notes",
            redirect_uris: [uri],
          }),
        );
      });
      try {
        const flow = await startFlow(server.origin);
        const url = new URL(flow.authorizationUrl);
        url.searchParams.set("client_id", `${host.origin}/client.json`);
        url.searchParams.set("redirect_uri", uri);
        const page = await openConsent(url);
        expect([page.status, page.headers.get("location")]).toEqual([400, null]);
        expect(page.html).toContain("lists a redirect URI that is not allowed");
        expect(page.html).not.toContain("<form");
      } finally {
        await host.close();
      }
    }
  });

  it("registered before the rule, no longer match: the error page, no Location", async () => {
    for (const uri of ["microsoft-edge:https://evil.example/cb", "dolphin://evil.example/cb"]) {
      const clientId = await signClientId(new Keyring([TEST_SECRET]), { r: [uri], n: "Notes", m: "none" });
      const flow = await startFlow(server.origin);
      const url = new URL(flow.authorizationUrl);
      url.searchParams.set("client_id", clientId);
      url.searchParams.set("redirect_uri", uri);
      const page = await openConsent(url);
      expect([page.status, page.headers.get("location")]).toEqual([400, null]);
      expect(page.html).toContain("The address to send you back to is not one the application registered.");
      expect(page.html).not.toContain("<form");
    }
  });
});
