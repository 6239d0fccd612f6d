// Signs in to a server run with --oauth as a client would (registration, the consent form, the code for
// tokens, PKCE S256), for the benchmark of calls made with an access token.
import { createHash, randomBytes } from "node:crypto";

const field = (html: string, name: string) =>
  new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? "";

/** An access token of a sign-in with `apiKey` at the server of `mcpUrl`. */
export async function accessTokenFor(mcpUrl: string, apiKey: string): Promise<string> {
  const origin = new URL(mcpUrl).origin;
  const redirectUri = "http://127.0.0.1:53682/callback";
  const registered = await fetch(`${origin}/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ redirect_uris: [redirectUri], token_endpoint_auth_method: "none" }),
  });
  const { client_id: clientId } = (await registered.json()) as { client_id: string };
  const verifier = randomBytes(32).toString("base64url");
  const query = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
    resource: mcpUrl,
  });
  const page = await fetch(`${origin}/authorize?${query}`);
  const cookie = (page.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  const html = await page.text();
  const post = (fields: Record<string, string>) =>
    fetch(`${origin}/authorize`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie },
      body: new URLSearchParams({ request: field(html, "request"), csrf: field(html, "csrf"), ...fields }),
    });
  const checked = await post({ step: "key", workspace_key: apiKey });
  if (checked.status !== 200) throw new Error(`the key step answered ${checked.status}`);
  const allowed = await post({ step: "allow" });
  const code = new URL(allowed.headers.get("location") ?? "").searchParams.get("code") ?? "";
  const token = await fetch(`${origin}/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code,
      redirect_uri: redirectUri,
      code_verifier: verifier,
      client_id: clientId,
    }),
  });
  if (token.status !== 200) throw new Error(`the token endpoint answered ${token.status}`);
  return ((await token.json()) as { access_token: string }).access_token;
}
