// Per-request context and per-sandbox state shared by all handlers.

import type { AnalyticsData } from "./analytics-types.js";
import { canonicalJson, fnv1a, type Rng } from "./random.js";
import type { Attachment, WorkspaceData } from "./types.js";
import {
  type Check,
  INVALID,
  type Invalid,
  type Issue,
  issue,
  type Loc,
  missing,
  valueError,
} from "./validate.js";

/** What one API key may see. */
export interface Account {
  key: string;
  userId: string;
  workspaceId: string;
}

export type Body =
  | { kind: "none" }
  | { kind: "json"; value: unknown }
  | { kind: "invalid"; raw: string; error: string };

export interface IssuedLink {
  attachment: Attachment;
  expiresAt: number;
}

export interface SandboxState {
  workspace: WorkspaceData;
  analytics: AnalyticsData;
  accounts: Map<string, Account>;
  /** Runtime randomness (new comment ids, link tokens); seeded, so runs repeat. */
  rng: Rng;
  commentCounter: number;
  links: Map<string, IssuedLink>;
  now: () => Date;
  baseUrl: string;
}

export interface Ctx {
  state: SandboxState;
  account: Account;
  headers: Record<string, string>;
  body: Body;
  path: string;
  search: URLSearchParams;
}

/** A non-JSON answer (downloaded file contents). */
export class RawReply {
  constructor(
    readonly contentType: string,
    readonly payload: Buffer,
  ) {}
}

/** Validates the JSON body; a missing body or broken JSON become issues too. */
export function parseBody<T>(body: Body, check: Check<T>, issues: Issue[]): T | Invalid {
  if (body.kind === "none") {
    issues.push(missing(["body"], null));
    return INVALID;
  }
  if (body.kind === "invalid") {
    issues.push(issue("json_invalid", ["body"], "JSON decode error", body.raw, { error: body.error }));
    return INVALID;
  }
  return check(body.value, ["body"], issues);
}

/** Hash that ties a cursor to the query that produced it. */
export function queryHash(parts: unknown): string {
  return fnv1a(canonicalJson(parts));
}

// Cursors are opaque to clients: base64url of {offset, query hash}.
export function encodeCursor(offset: number, hash: string): string {
  return Buffer.from(JSON.stringify({ o: offset, h: hash })).toString("base64url");
}

export function decodeCursor(raw: string, hash: string, loc: Loc, issues: Issue[]): number | Invalid {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(raw, "base64url").toString("utf8"));
  } catch {
    decoded = null;
  }
  const value = decoded as { o?: unknown; h?: unknown } | null;
  if (!value || typeof value !== "object" || !Number.isInteger(value.o) || (value.o as number) < 0) {
    issues.push(valueError(loc, "invalid cursor", raw));
    return INVALID;
  }
  if (value.h !== hash) {
    issues.push(valueError(loc, "cursor does not belong to this query", raw));
    return INVALID;
  }
  return value.o as number;
}
