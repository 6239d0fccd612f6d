// Types of gen-docs.mjs for the test that runs it on the sources.
export type DocModules = Record<
  | "register"
  | "answers"
  | "errors"
  | "clientErrors"
  | "config"
  | "retry"
  | "contextCost"
  | "selection"
  | "schemas"
  | "tokens",
  unknown
>;
export function loadCode(dir: string): Promise<DocModules>;
/** Every generated file as it should read: file name → text. */
export function generatedDocs(modules: DocModules): Promise<Record<string, string>>;
