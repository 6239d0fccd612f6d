// What one REST endpoint is, as data: everything registration, validation and forwarding need.
import type { z } from "zod";
import type { UpstreamEndpoint } from "../clients/http.js";
import type { ConciseSpec } from "./answers.js";

export type { ApiName } from "../clients/http.js";

/** Also what the clients read (UpstreamEndpoint: api, method, path, projectScoped, readOnly). */
export interface EndpointDefinition extends UpstreamEndpoint {
  /** Tool name: the path after its version segment, without `business`, `/` and `-` as `_`. */
  name: string;
  title: string;
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
  concise?: ConciseSpec;
}

export const defineEndpoints = <const T extends readonly EndpointDefinition[]>(definitions: T): T =>
  definitions;
