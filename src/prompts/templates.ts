// The templates of the workflows' calls (workflows.ts): JSON with slots, filled for a prompt with what its
// arguments resolve to, or for a skill with placeholders.

/** Values a template refers to: what the arguments resolve to. */
export type Slot =
  | "project_id"
  | "project_url"
  | "start_date"
  | "end_date"
  | "comparison_start_date"
  | "comparison_end_date"
  | "topic"
  | "competitor"
  | "model";

/** A template: JSON in which `"{slot}"` is a slot's value, `{$when}` a part present only with that slot, `{$each}` one item per value. */
export type Template =
  | string
  | number
  | boolean
  | Template[]
  | { $when: Slot; value: Template }
  | { $each: Slot; value: Template }
  | { [key: string]: Template };

export type Values = Partial<Record<Slot, string | string[]>>;
const SLOT = /^\{(\w+)\}$/;
type When = { $when: Slot; value: Template };
type Each = { $each: Slot; value: Template };
const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);
const isWhen = (value: unknown): value is When => isObject(value) && "$when" in value;
const isEach = (value: unknown): value is Each => isObject(value) && "$each" in value;

/**
 * A template filled: each "{slot}" string by its value (or `shown(slot)` when the slot has none and is
 * not optional), `$when` parts dropped when their slot has no value, `$each` parts one per value.
 */
export function fill(template: Template, values: Values, shown?: (slot: Slot) => string): unknown {
  if (typeof template === "string") {
    const slot = SLOT.exec(template)?.[1] as Slot | undefined;
    if (!slot) return template;
    const value = values[slot];
    return typeof value === "string" ? value : (shown?.(slot) ?? template);
  }
  if (Array.isArray(template)) {
    return template.flatMap((item): unknown[] => {
      if (isEach(item)) {
        const list = values[item.$each];
        const each = Array.isArray(list) ? list : [shown?.(item.$each) ?? ""];
        return each.map((value) => fill(item.value, { ...values, [item.$each]: value }, shown));
      }
      return [fill(item, values, shown)];
    });
  }
  if (typeof template !== "object") return template;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(template)) {
    if (isWhen(value)) {
      if (values[value.$when] === undefined) continue;
      out[key] = fill(value.value, values, shown);
      continue;
    }
    const filled = fill(value, values, shown);
    // A filter object left with no filter in it is not sent.
    if (key === "filters" && filled && typeof filled === "object" && Object.keys(filled).length === 0)
      continue;
    out[key] = filled;
  }
  return out;
}
