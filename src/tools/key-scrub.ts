// The API keys in use never leave the server: replaced in any failure's text (redact) and in a
// successful answer that echoes one (scrubKeys).
import type { UpstreamSettings } from "../config/types.js";

const REDACTED = "[redacted]";

/** The keys in use (from the environment, or a user's X-API-KEY), too long to be an accident. */
function secretsOf(settings: UpstreamSettings): string[] {
  const secrets: string[] = [];
  for (const secret of [settings.workspaceApiKey, settings.analyticsApiKey]) {
    if (secret && secret.length >= 4) secrets.push(secret);
  }
  return secrets;
}

/** Belt and braces: whatever text a failure carries, the keys in use never leave the server. */
export function redact(text: string, settings: UpstreamSettings): string {
  let safe = text;
  for (const secret of secretsOf(settings)) safe = safe.split(secret).join(REDACTED);
  return safe;
}

/**
 * A success body and its JSON text with every key in use replaced, as in errors: an upstream that
 * echoes the caller's key must not hand it to the assistant. The usual cost is one native scan of the
 * text per key (see docs/failure-behaviour.md); only a body that holds a key is rebuilt.
 */
export function scrubKeys(
  body: Record<string, unknown>,
  text: string,
  settings: UpstreamSettings,
): { body: Record<string, unknown>; text: string } {
  const secrets = secretsOf(settings);
  if (secrets.length === 0) return { body, text };
  // Escapes JSON.stringify would not write (\u for a printable character, \/) may spell a key
  // without the text holding it: such a body is judged by JSON.stringify's text instead.
  const plain = text.includes("\\u") || text.includes("\\/") ? JSON.stringify(body) : text;
  const escaped = secrets.map((secret) => JSON.stringify(secret).slice(1, -1));
  if (!escaped.some((secret) => plain.includes(secret))) return { body, text };
  const scrub = (value: string) => secrets.reduce((safe, secret) => safe.split(secret).join(REDACTED), value);
  // Every string and every object key, rebuilt from the text: the parsed body is not changed in place.
  const clean = JSON.parse(plain, (_key, value: unknown) => {
    if (typeof value === "string") return scrub(value);
    if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
    const entries = Object.entries(value);
    if (!entries.some(([key]) => scrub(key) !== key)) return value;
    return Object.fromEntries(entries.map(([key, item]) => [scrub(key), item]));
  }) as Record<string, unknown>;
  return { body: clean, text: JSON.stringify(clean) };
}
