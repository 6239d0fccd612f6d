// The names the prompts' arguments take (projects, topics, websites), read from the APIs through the
// same clients the tools use, and kept a short while per API key: a person typing one argument asks
// for completions at every keystroke.
import type { Upstreams } from "../clients/index.js";
import { keyDigest } from "../clients/limiter.js";
import type { EndpointDefinition } from "../tools/definition.js";
import { PREPARED_TOOLS } from "../tools/register.js";

/** One thing an argument can name. */
export interface Named {
  id: string;
  name: string;
  /** A project's url, where the API gives one. */
  url?: string;
}

export interface Listing {
  items: Named[];
  /** False when the API holds more than was fetched (a listing capped at one page). */
  complete: boolean;
}

/** What a lookup reads: the tool whose endpoint it calls, the body, and where the rows are. */
export interface LookupSpec {
  tool: string;
  body: Record<string, unknown>;
  rows: "data" | "projects";
}

/** One page of a listing: the most that a completion can show (MCP caps it at 100 values). */
const PAGE = 100;

export const LOOKUPS = {
  analyticsProjects: (): LookupSpec => ({ tool: "geo_projects", body: {}, rows: "data" }),
  workspaceProjects: (): LookupSpec => ({ tool: "whoami", body: {}, rows: "projects" }),
  topics: (projectId: string): LookupSpec => ({
    tool: "geo_topics",
    body: { project_id: projectId, order_by: [{ field: "name", order: "asc" }], pagination: { limit: PAGE } },
    rows: "data",
  }),
  /** The models answering the project's prompts. */
  models: (projectId: string): LookupSpec => ({
    tool: "geo_models",
    body: { project_id: projectId },
    rows: "data",
  }),
  /** The websites most mentioned in the latest run: the competitors worth naming. */
  websites: (projectId: string): LookupSpec => ({
    tool: "geo_websites",
    body: {
      project_id: projectId,
      metrics: ["mentions_count"],
      order_by: [{ field: "mentions_count", order: "desc" }],
      pagination: { limit: PAGE },
    },
    rows: "data",
  }),
};

const asText = (value: unknown) => (typeof value === "string" ? value : undefined);

function listingOf(value: unknown, rows: LookupSpec["rows"]): Listing {
  const body = (value ?? {}) as Record<string, unknown>;
  const raw = Array.isArray(body[rows]) ? (body[rows] as Record<string, unknown>[]) : [];
  const items: Named[] = [];
  for (const row of raw) {
    const id = asText(row?.id);
    const name = asText(row?.name);
    if (id && name) items.push({ id, name, ...(asText(row.url) ? { url: asText(row.url) } : {}) });
  }
  const total = (body.info as { total_rows?: unknown } | undefined)?.total_rows;
  return { items, complete: typeof total !== "number" || total <= raw.length };
}

/** A lookup that failed, with the endpoint it called: the tools' error mapper explains it. */
export class LookupFailure extends Error {
  override name = "LookupFailure";
  constructor(
    readonly definition: EndpointDefinition,
    override readonly cause: unknown,
  ) {
    super(`${definition.name} lookup failed`);
  }
}

/** A lookup through a tool the caller's grant does not allow: nothing was sent. */
export class LookupBeyondGrant extends Error {
  override name = "LookupBeyondGrant";
  constructor(readonly tool: string) {
    super(`${tool} lookup is beyond the grant`);
  }
}

interface Entry {
  listing: Promise<Listing>;
  expiresAt: number;
}

export interface LookupCacheOptions {
  ttlMs?: number;
  maxEntries?: number;
}

/**
 * Listings per API key (its digest, never the key), upstream, workspace and request: another user's
 * key over HTTP never reads this user's entries. A failed lookup is forgotten at once.
 */
export class LookupCache {
  private readonly entries = new Map<string, Entry>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;

  constructor({ ttlMs = 30_000, maxEntries = 500 }: LookupCacheOptions = {}) {
    this.ttlMs = ttlMs;
    this.maxEntries = maxEntries;
  }

  /** Forgets every listing (tests start from an empty cache). */
  clear(): void {
    this.entries.clear();
  }

  /**
   * The listing, fetched once per key and request while fresh. No caller's cancellation aborts the
   * shared request: it is one small read, bounded by the upstream timeout.
   */
  get(upstreams: Upstreams, spec: LookupSpec): Promise<Listing> {
    const definition = PREPARED_TOOLS.get(spec.tool)?.definition;
    if (!definition) return Promise.reject(new Error(`no tool ${spec.tool}`));
    const { settings } = upstreams;
    const analytics = definition.api === "analytics";
    const key = analytics ? (settings.analyticsApiKey ?? settings.workspaceApiKey) : settings.workspaceApiKey;
    const id = JSON.stringify([
      key === undefined ? null : keyDigest(key),
      analytics ? settings.analyticsBaseUrl : settings.workspaceBaseUrl,
      analytics ? null : (settings.workspaceId ?? null),
      spec.tool,
      spec.body,
    ]);
    const now = Date.now();
    const cached = this.entries.get(id);
    if (cached && cached.expiresAt > now) return cached.listing;
    // A client may throw before it sends (a setting missing): that too becomes a rejected lookup.
    const listing = (async () => {
      try {
        return listingOf((await upstreams.call(definition, spec.body, {})).value, spec.rows);
      } catch (error) {
        throw new LookupFailure(definition, error);
      }
    })();
    const entry = { listing, expiresAt: now + this.ttlMs };
    this.entries.delete(id);
    this.entries.set(id, entry);
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    listing.catch(() => {
      if (this.entries.get(id) === entry) this.entries.delete(id);
    });
    return listing;
  }
}

/** Shared by every server of the process: stateless HTTP builds a server per request. */
export const lookupCache = new LookupCache();
