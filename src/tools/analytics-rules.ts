// Cross-field rules of the analytics request body that a JSON Schema cannot publish compactly:
// comparison ranges given in pairs, and the filter names and value types per endpoint. Only what the
// spec states as a rule; the rest is the API's to judge.
import type { z } from "zod";
import { excerpt } from "../excerpt.js";
import type { FilterValueType } from "./schemas.js";

type Ctx = z.RefinementCtx;

interface FilterItem {
  value: unknown;
}
interface AnalyticsBody {
  [key: string]: unknown;
  filters?: {
    advanced_filters?: { conditions: { field: string; value: unknown }[] };
    [name: string]: unknown;
  };
}

export function checkAnalyticsBody(
  args: AnalyticsBody,
  ctx: Ctx,
  allowedFilters: Record<string, FilterValueType>,
): void {
  const hasComparisonStart = args.comparison_start_date !== undefined || args.previous_from !== undefined;
  const hasComparisonEnd = args.comparison_end_date !== undefined || args.previous_to !== undefined;
  if (hasComparisonStart !== hasComparisonEnd) {
    ctx.addIssue({
      code: "custom",
      path: [hasComparisonStart ? "comparison_end_date" : "comparison_start_date"],
      message: "a comparison range needs both comparison_start_date and comparison_end_date",
    });
  }
  if (args.filters) checkFilters(args.filters, ctx, allowedFilters);
}

/** A filter's type by its name, looked up as an own property: "constructor" is not a filter. */
const typeOf = (allowed: Record<string, FilterValueType>, name: string) =>
  Object.hasOwn(allowed, name) ? allowed[name] : undefined;

function checkFilters(
  filters: NonNullable<AnalyticsBody["filters"]>,
  ctx: Ctx,
  allowed: Record<string, FilterValueType>,
): void {
  const valid = Object.keys(allowed).join(", ");
  for (const [name, filter] of Object.entries(filters)) {
    if (name === "advanced_filters" || filter === undefined) continue;
    const type = typeOf(allowed, name);
    if (type === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["filters", name],
        message: `is not a filter of this tool; valid filters: ${valid}, advanced_filters`,
      });
      continue;
    }
    (filter as { items: FilterItem[] }).items.forEach((item, index) => {
      checkValueType(item.value, type, ["filters", name, "items", index, "value"], ctx);
    });
  }
  filters.advanced_filters?.conditions.forEach((condition, index) => {
    const path = ["filters", "advanced_filters", "conditions", index];
    const type = typeOf(allowed, condition.field);
    if (type === undefined) {
      ctx.addIssue({
        code: "custom",
        path: [...path, "field"],
        message: `"${excerpt(condition.field)}" is not a filter of this tool; valid fields: ${valid}`,
      });
    } else {
      checkValueType(condition.value, type, [...path, "value"], ctx);
    }
  });
}

/** A value of the filter's type, or a list of them (for operators that take several). */
function checkValueType(value: unknown, type: FilterValueType, path: (string | number)[], ctx: Ctx): void {
  if (type === "any") return;
  const ok = Array.isArray(value) ? value.every((v) => typeof v === type) : typeof value === type;
  if (!ok) {
    ctx.addIssue({ code: "custom", path, message: `must be a ${type} (or a list of them) for this filter` });
  }
}
