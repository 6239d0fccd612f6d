// Prompt arguments checked against what the key can see: a name or an id that names exactly one thing,
// or an error that says what exists.
import { excerpt } from "../excerpt.js";
import type { Listing, Named } from "./lookups.js";

/** A prompt argument that is missing, malformed or names nothing: -32602 with this message. */
export class PromptArgumentError extends Error {
  override name = "PromptArgumentError";
}

/** How many known names an error lists. */
const LISTED = 10;

/** The items `given` names: the one with that id, else those with that name, in any case. */
export function findNamed(listing: Listing, given: string): Named[] {
  const wanted = given.trim().toLowerCase();
  const byId = listing.items.filter((item) => item.id.toLowerCase() === wanted);
  return byId.length > 0 ? byId : listing.items.filter((item) => item.name.toLowerCase() === wanted);
}

/** The one item `given` names; else a PromptArgumentError saying what exists. */
export function resolveNamed(listing: Listing, given: string, what: string, source: string): Named {
  const found = findNamed(listing, given);
  if (found.length === 1) return found[0] as Named;
  const quoted = `"${excerpt(given.trim(), 60)}"`;
  if (found.length > 1) {
    const ids = found.slice(0, LISTED).map((item) => item.id);
    throw new PromptArgumentError(
      `${found.length} ${what}s are named ${quoted}: give one's id (${ids.join(", ")})`,
    );
  }
  if (listing.items.length === 0) {
    throw new PromptArgumentError(`${source} lists no ${what} for this API key, so ${quoted} cannot be one`);
  }
  const names = listing.items.slice(0, LISTED).map((item) => item.name);
  const more = listing.items.length > LISTED || !listing.complete ? ", …" : "";
  throw new PromptArgumentError(
    `no ${what} ${quoted} for this API key; ${source} lists: ${names.join(", ")}${more}`,
  );
}
