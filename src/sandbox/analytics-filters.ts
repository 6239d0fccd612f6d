// The analytics `filters` object: validation against the names an endpoint
// allows, and evaluation against seeded rows.
//
//   filters = {
//     <name>: { condition?: "AND" | "OR" (default AND),
//               items: [{ operator?: "is" | "contains" | "gte" | "lte" (default is), value }] },
//     advanced_filters?: { join?: "and" | "or" (default and),
//                          conditions: [{ field: <name>, operator?, value }] }
//   }
// Named filters are ANDed with each other and with the advanced block. A
// filter the seeded data has nothing for is accepted and has no effect.

import {
  anyValue,
  arr,
  bool,
  type Check,
  INVALID,
  type Invalid,
  type Issue,
  isPlainObject,
  issue,
  num,
  obj,
  oneOf,
  opt,
  req,
  str,
} from "./validate.js";

export const COMMON_FILTERS = [
  "topics",
  "prompts",
  "tags",
  "markets",
  "intent",
  "branded",
  "platform",
  "has_shopping_card",
  "has_ads_data",
  "visibility",
  "rank",
  "website_mentioned_in_answer",
  "cited_page_url",
  "cited_domain",
  "website_mentioned_in_citation",
] as const;

const BOOLEAN_FILTERS = new Set(["branded", "has_shopping_card", "has_ads_data", "disabled"]);
const NUMBER_FILTERS = new Set(["visibility", "rank"]);
const OPERATORS = ["is", "contains", "gte", "lte"] as const;
type Operator = (typeof OPERATORS)[number];
type Scalar = string | number | boolean;

interface Item {
  operator: Operator;
  value: Scalar;
}
interface NamedFilter {
  condition: "AND" | "OR";
  items: Item[];
}
interface Condition extends Item {
  field: string;
}
export interface Filters {
  named: Record<string, NamedFilter>;
  advanced: { join: "and" | "or"; conditions: Condition[] } | null;
}

/** Candidate values of a row for one filter name. */
export type Resolver<R> = (row: R) => Scalar[];

function valueCheck(name: string): Check<Scalar> {
  if (BOOLEAN_FILTERS.has(name)) return bool;
  if (NUMBER_FILTERS.has(name)) return num;
  return str();
}

export function parseFilters(raw: unknown, allowed: readonly string[], issues: Issue[]): Filters | Invalid {
  const loc = ["body", "filters"];
  const out: Filters = { named: {}, advanced: null };
  if (raw === undefined || raw === null) return out;
  if (!isPlainObject(raw)) {
    issues.push(issue("dict_type", loc, "Input should be a valid dictionary", raw));
    return INVALID;
  }
  const before = issues.length;
  for (const [name, value] of Object.entries(raw)) {
    if (name === "advanced_filters") {
      const check = obj({
        join: opt(oneOf(["and", "or"])),
        conditions: req(
          arr(obj({ field: req(oneOf(allowed)), operator: opt(oneOf(OPERATORS)), value: req(anyValue) })),
        ),
      });
      const parsed = check(value, [...loc, name], issues);
      if (parsed === INVALID) continue;
      const conditions: Condition[] = [];
      parsed.conditions.forEach((c, i) => {
        const v = valueCheck(c.field)(c.value, [...loc, name, "conditions", i, "value"], issues);
        if (v !== INVALID) conditions.push({ field: c.field, operator: c.operator ?? "is", value: v });
      });
      out.advanced = { join: parsed.join ?? "and", conditions };
      continue;
    }
    if (!allowed.includes(name)) {
      issues.push(issue("extra_forbidden", [...loc, name], "Extra inputs are not permitted", value));
      continue;
    }
    const check = obj({
      condition: opt(oneOf(["AND", "OR"])),
      items: req(arr(obj({ operator: opt(oneOf(OPERATORS)), value: req(valueCheck(name)) }))),
    });
    const parsed = check(value, [...loc, name], issues);
    if (parsed === INVALID) continue;
    out.named[name] = {
      condition: parsed.condition ?? "AND",
      items: parsed.items.map((item) => ({ operator: item.operator ?? "is", value: item.value })),
    };
  }
  return issues.length > before ? INVALID : out;
}

/** The normalized filters, as echoed in info.query.filters. */
export function describeFilters(filters: Filters): Record<string, unknown> {
  const out: Record<string, unknown> = { ...filters.named };
  if (filters.advanced) out.advanced_filters = filters.advanced;
  return out;
}

function itemMatches(candidates: Scalar[], { operator, value }: Item): boolean {
  return candidates.some((candidate) => {
    if (typeof value === "boolean" || typeof candidate === "boolean") return candidate === value;
    if (operator === "contains") return String(candidate).toLowerCase().includes(String(value).toLowerCase());
    const numeric = typeof candidate === "number" && typeof value === "number";
    const [a, b] = numeric
      ? [candidate, value]
      : [String(candidate).toLowerCase(), String(value).toLowerCase()];
    if (operator === "gte") return a >= b;
    if (operator === "lte") return a <= b;
    return a === b;
  });
}

export function applyFilters<R>(
  rows: R[],
  filters: Filters,
  resolvers: Partial<Record<string, Resolver<R>>>,
): R[] {
  const test = (row: R, field: string, item: Item) => {
    const resolve = resolvers[field];
    return resolve ? itemMatches(resolve(row), item) : true;
  };
  return rows.filter((row) => {
    for (const [name, filter] of Object.entries(filters.named)) {
      if (filter.items.length === 0) continue;
      const hits = filter.items.map((item) => test(row, name, item));
      if (filter.condition === "AND" ? !hits.every(Boolean) : !hits.some(Boolean)) return false;
    }
    const advanced = filters.advanced;
    if (advanced && advanced.conditions.length > 0) {
      const hits = advanced.conditions.map((c) => test(row, c.field, c));
      if (advanced.join === "and" ? !hits.every(Boolean) : !hits.some(Boolean)) return false;
    }
    return true;
  });
}
