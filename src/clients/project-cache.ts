// The default project whoami implies, per API key and workspace, shared by every client of the process:
// in stateless HTTP mode each request builds fresh clients, and the lookup must not repeat per request.
export interface ProjectCacheOptions {
  /** Entries kept at most; the least recently used goes first. */
  maxEntries?: number;
  /** A user may gain a second project: an answer is trusted this long. */
  ttlMs?: number;
}

interface Entry {
  project: Promise<string>;
  expiresAt: number;
}

export class ImpliedProjectCache {
  private readonly entries = new Map<string, Entry>();
  private readonly maxEntries: number;
  private readonly ttlMs: number;

  constructor({ maxEntries = 1000, ttlMs = 10 * 60_000 }: ProjectCacheOptions = {}) {
    this.maxEntries = maxEntries;
    this.ttlMs = ttlMs;
  }

  get size(): number {
    return this.entries.size;
  }

  /**
   * The cached lookup for this key and workspace, or `lookUp()` run once and remembered unless it fails.
   * `keyId` is the API key's digest (keyDigest), so the raw key is kept nowhere it could be dumped or logged.
   */
  get(keyId: string, workspaceId: string | undefined, lookUp: () => Promise<string>): Promise<string> {
    const id = `${keyId}\0${workspaceId ?? ""}`;
    const cached = this.entries.get(id);
    const now = Date.now();
    if (cached && cached.expiresAt > now) {
      this.entries.delete(id);
      this.entries.set(id, cached);
      return cached.project;
    }
    const entry: Entry = { project: lookUp(), expiresAt: now + this.ttlMs };
    this.entries.delete(id);
    this.entries.set(id, entry);
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    entry.project.catch(() => {
      if (this.entries.get(id) === entry) this.entries.delete(id);
    });
    return entry.project;
  }
}
