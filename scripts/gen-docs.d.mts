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
  | "tokens"
  | "prompts"
  | "workflowExamples"
  | "benchLines",
  unknown
>;
/** The modules of src/ as built in `dir` (all but benchLines, which comes from the bench's build). */
export function loadCode(dir: string): Promise<Omit<DocModules, "benchLines">>;
/** Every generated file as it should read: file name → text. */
export function generatedDocs(modules: DocModules): Promise<Record<string, string>>;
