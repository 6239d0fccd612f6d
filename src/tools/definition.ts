// What one REST endpoint is, as data: everything registration, validation and forwarding need.
import type { z } from "zod";
import type { ConciseForm } from "./answers.js";

export type ApiName = "workspace" | "analytics";

export interface EndpointDefinition {
  /** Tool name: the path after its version segment, without `business`, `/` and `-` as `_`. */
  name: string;
  title: string;
  api: ApiName;
  method: "GET" | "POST";
  /** Path below the API's base URL. */
  path: string;
  /**
   * Whether the endpoint acts on one project: workspace tools then send `X-Project-Id`, analytics
   * tools the body field `project_id`; either way a default applies when the caller gives none.
   */
  projectScoped: boolean;
  /** False only for endpoints that create data: they are annotated, and retried, differently. */
  readOnly: boolean;
  description: string;
  /** Documentation only, never published: what the tool does in a few words (README's tools table). */
  summary: string;
  /**
   * Documentation only, never published: what `input`'s refinements check beyond the published
   * schema, in words, for the reference in docs/tools.md (`npm run docs`).
   */
  checks?: readonly string[];
  /** Arguments as the assistant sends them: the REST body fields, plus the routing ids. */
  input: z.ZodObject;
  /** The response shape the spec gives, lenient (see schemas.ts). */
  output: z.ZodObject;
  /**
   * What to send for a body field that a 422 names, where the spec leaves the field's name open;
   * appended to that 422 entry.
   */
  fieldHint?: (field: string) => string | undefined;
  /** The concise form of the answer (answers.ts); without one, concise is the body as it came. */
  concise?: ConciseForm | ((args: Record<string, unknown>) => ConciseForm | undefined);
}

export const defineEndpoints = <const T extends readonly EndpointDefinition[]>(definitions: T): T =>
  definitions;
