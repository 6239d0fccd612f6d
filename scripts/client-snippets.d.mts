// Types of client-snippets.mjs, for the tests that import it.
export interface Snippet {
  lang: "sh" | "json";
  client: "json" | "claude" | "gemini" | "inspector" | "shell";
  text: string;
}
export declare const NAME: string;
export declare const CLONE: string;
export declare const LAUNCH: Record<"path" | "absolute" | "published", { command: string; args: string[] }>;
export declare const ENV: Record<string, string>;
export declare const REMOTE_URL: string;
export declare const HEADERS: Record<string, string>;
export declare const SNIPPETS: Record<string, Snippet> & { install: Snippet };
export declare const MCP_JSON_EXAMPLE: string;
export declare function fenced(id: string): string;
export declare function renderMarked(markdown: string): string;
export declare const PLACEHOLDERS: Record<string, string>;
export declare function filledIn(id: string, values: Record<string, string | undefined>): string;
