// Analytics API plumbing: the common request body (dates, comparison range,
// order_by, pagination, filters), project access, the projects endpoint and a
// generic listing runner that the per-endpoint definitions plug into.

import {
  applyFilters,
  COMMON_FILTERS,
  describeFilters,
  type Filters,
  parseFilters,
  type Resolver,
} from "./analytics-filters.js";
import type { AnalyticsProject, ProjectData } from "./analytics-types.js";
import { type Ctx, parseBody } from "./context.js";
import { DAY, iso } from "./random.js";
import { LATEST_RUN, TODAY_END } from "./seed-analytics.js";
import {
  anyValue,
  arr,
  type Check,
  datetime,
  fail,
  INVALID,
  type Instant,
  type Issue,
  int,
  isPlainObject,
  missing,
  obj,
  oneOf,
  opt,
  reject,
  req,
  str,
  uuid,
  type Valid,
  valueError,
} from "./validate.js";

export interface Range {
  from: number | null;
  to: number;
}

export interface OrderBy {
  field: string;
  order: "asc" | "desc";
}

export const inRange = (ms: number, range: Range) =>
  (range.from === null || ms >= range.from) && ms <= range.to;

export const COMMON_SHAPE = {
  project_id: req(uuid),
  start_date: opt(datetime),
  end_date: opt(datetime),
  current_from: opt(datetime),
  current_to: opt(datetime),
  comparison_start_date: opt(datetime),
  comparison_end_date: opt(datetime),
  previous_from: opt(datetime),
  previous_to: opt(datetime),
  order_by: opt(arr(obj({ field: req(str()), order: opt(oneOf(["asc", "desc"])) }))),
  pagination: opt(obj({ limit: opt(int({ ge: 1, le: 100 })), offset: opt(int({ ge: 0 })) })),
  filters: opt(anyValue),
};
const commonCheck = obj(COMMON_SHAPE);
type CommonBody = Valid<typeof commonCheck>;

export interface CommonQuery {
  project: AnalyticsProject;
  data: ProjectData;
  range: Range;
  comparison: Range | null;
  orderBy: OrderBy[] | null;
  pagination: { limit: number; offset: number } | null;
  filters: Filters;
  /** info.query entries shared by every endpoint. */
  echo: Record<string, unknown>;
}

export interface RequestSpec<B> {
  filterNames: readonly string[];
  sortFields: (body: B) => readonly string[];
  /** Metric queries default to the latest run's range instead of all time. */
  isMetricQuery: (body: B) => boolean;
}

/** A date-only end bound covers that whole day. */
const endOf = (instant: Instant) => (instant.dateOnly ? instant.ms + DAY - 1 : instant.ms);

/** Validates the body, then access (403), then resolves dates and filters. */
export function analyticsRequest<B extends CommonBody>(
  ctx: Ctx,
  check: Check<B>,
  spec: RequestSpec<B>,
): { body: B; query: CommonQuery } {
  const issues: Issue[] = [];
  const body = parseBody(ctx.body, check, issues);
  let filters: Filters | typeof INVALID = INVALID;
  if (body === INVALID) {
    // Still report filter faults alongside the others, as one 422.
    const raw =
      ctx.body.kind === "json" && isPlainObject(ctx.body.value) ? ctx.body.value.filters : undefined;
    parseFilters(raw, spec.filterNames, issues);
    reject(issues);
  }
  filters = parseFilters(body.filters, spec.filterNames, issues);
  const allowedSort = spec.sortFields(body);
  body.order_by?.forEach((entry, i) => {
    if (!allowedSort.includes(entry.field))
      oneOf(allowedSort)(entry.field, ["body", "order_by", i, "field"], issues);
  });

  const start = body.start_date ?? body.current_from;
  const end = body.end_date ?? body.current_to;
  const cStart = body.comparison_start_date ?? body.previous_from;
  const cEnd = body.comparison_end_date ?? body.previous_to;
  if (cStart && !cEnd)
    issues.push(missing(["body", "comparison_end_date"], (ctx.body as { value: unknown }).value));
  if (cEnd && !cStart)
    issues.push(missing(["body", "comparison_start_date"], (ctx.body as { value: unknown }).value));
  if (start && end && start.ms > endOf(end)) {
    issues.push(valueError(["body", "end_date"], "end_date must not be before start_date", body.end_date));
  }
  if (cStart && cEnd && cStart.ms > endOf(cEnd)) {
    const msg = "comparison_end_date must not be before comparison_start_date";
    issues.push(valueError(["body", "comparison_end_date"], msg, body.comparison_end_date));
  }
  if (issues.length > 0 || filters === INVALID) reject(issues);

  const project = ctx.state.analytics.projects.find((p) => p.id === body.project_id);
  const data = project && ctx.state.analytics.data.get(project.id);
  if (!project || !data || !project.keys.includes(ctx.account.key)) {
    fail(403, "API key has no access to this project");
  }

  const range: Range =
    !start && !end && spec.isMetricQuery(body)
      ? { ...LATEST_RUN }
      : { from: start ? start.ms : null, to: end ? endOf(end) : TODAY_END };
  const comparison = cStart && cEnd ? { from: cStart.ms, to: endOf(cEnd) } : null;
  const orderBy = body.order_by?.map((o) => ({ field: o.field, order: o.order ?? "asc" })) ?? null;
  const pagination = body.pagination
    ? { limit: body.pagination.limit ?? 10, offset: body.pagination.offset ?? 0 }
    : null;
  const echo: Record<string, unknown> = {
    start_date: range.from === null ? null : iso(range.from),
    end_date: iso(range.to),
    order_by: orderBy ?? [],
    pagination,
    filters: describeFilters(filters),
  };
  if (comparison) {
    echo.comparison_start_date = iso(comparison.from);
    echo.comparison_end_date = iso(comparison.to);
  }
  return { body, query: { project, data, range, comparison, orderBy, pagination, filters, echo } };
}

export function listProjects(ctx: Ctx): unknown {
  // The body is an empty object; a missing body is tolerated.
  if (ctx.body.kind !== "none") {
    const issues: Issue[] = [];
    if (parseBody(ctx.body, obj({}), issues) === INVALID) reject(issues);
  }
  const visible = ctx.state.analytics.projects.filter((p) => p.keys.includes(ctx.account.key));
  return { data: visible.map(({ id, name, url, created_at }) => ({ id, name, url, created_at })) };
}

/** Comparable form of a field value: arrays by length, text case-insensitively. */
function sortable(value: unknown): string | number | null {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return value.length;
  if (typeof value === "number") return value;
  if (typeof value === "boolean") return value ? 1 : 0;
  return String(value).toLowerCase();
}

/** Sorts by each order_by entry in turn (nulls last), then by `tiebreak`. */
export function sortRows<R>(
  rows: R[],
  order: OrderBy[],
  fieldValue: (row: R, field: string) => unknown,
  tiebreak: (row: R) => string,
) {
  const keyed = rows.map((row) => ({
    row,
    keys: order.map((o) => sortable(fieldValue(row, o.field))),
    tie: tiebreak(row),
  }));
  keyed.sort((a, b) => {
    for (let i = 0; i < order.length; i++) {
      const [x, y] = [a.keys[i] ?? null, b.keys[i] ?? null];
      if (x === y) continue;
      if (x === null) return 1;
      if (y === null) return -1;
      return (x < y ? -1 : 1) * (order[i]!.order === "asc" ? 1 : -1);
    }
    return a.tie < b.tie ? -1 : a.tie > b.tie ? 1 : 0;
  });
  return keyed.map((k) => k.row);
}

export function paginate<R>(rows: R[], pagination: CommonQuery["pagination"]): R[] {
  return pagination ? rows.slice(pagination.offset, pagination.offset + pagination.limit) : rows;
}

export interface ListingDef<R extends { id: string }> {
  metrics: readonly string[];
  /** Metrics that also get a `previous_` value when a comparison range is given. */
  numeric: readonly string[];
  sortFields: readonly string[];
  extraFilters: readonly string[];
  defaultOrder: OrderBy;
  rows(data: ProjectData, range: Range, metricQuery: boolean): R[];
  base(row: R): Record<string, unknown>;
  metric(row: R, name: string, range: Range, data: ProjectData): unknown;
  resolvers(data: ProjectData): Partial<Record<string, Resolver<R>>>;
}

type ListingBody = CommonBody & { metrics?: string[] };

export function listing<R extends { id: string }>(def: ListingDef<R>): (ctx: Ctx) => unknown {
  const shape =
    def.metrics.length > 0 ? { ...COMMON_SHAPE, metrics: opt(arr(oneOf(def.metrics))) } : COMMON_SHAPE;
  const check = obj(shape) as Check<ListingBody>;
  const spec: RequestSpec<ListingBody> = {
    filterNames: [...COMMON_FILTERS, ...def.extraFilters],
    sortFields: () => [...def.metrics, ...def.sortFields],
    isMetricQuery: (body) => (body.metrics?.length ?? 0) > 0,
  };
  return (ctx) => {
    const { body, query } = analyticsRequest(ctx, check, spec);
    const metrics = [...new Set(body.metrics ?? [])];
    const rows = applyFilters(
      def.rows(query.data, query.range, metrics.length > 0),
      query.filters,
      def.resolvers(query.data),
    );
    const fieldValue = (row: R, field: string) =>
      def.metrics.includes(field) ? def.metric(row, field, query.range, query.data) : def.base(row)[field];
    const sorted = sortRows(rows, query.orderBy ?? [def.defaultOrder], fieldValue, (row) => row.id);
    const page = paginate(sorted, query.pagination).map((row) => {
      const out = def.base(row);
      for (const m of metrics) out[m] = def.metric(row, m, query.range, query.data);
      if (query.comparison) {
        for (const m of metrics) {
          if (def.numeric.includes(m))
            out[`previous_${m}`] = def.metric(row, m, query.comparison, query.data);
        }
      }
      return out;
    });
    const info = { total_rows: sorted.length, query: { metrics, ...query.echo } };
    return { data: page, info };
  };
}
