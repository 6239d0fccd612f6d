// Types of client-docs.mjs, for the tests that import it.
export declare const GENERATED: string[];
export declare function generate(file: string, current: string): string;
