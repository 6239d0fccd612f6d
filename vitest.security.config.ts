// `npm run test:security`: the renderer fuzzer (test/security/renderers-fuzz.test.ts) run long, with the
// judge's corpus beside it. FUZZ_RUNS and FUZZ_SEED, when set, choose the length and the seed.
import { defineConfig } from "vitest/config";

// Set before the workers start, which inherit it; production builds as in vitest.config.ts.
process.env.FUZZ_RUNS ??= "3000";
process.env.NODE_ENV = "production";

export default defineConfig({
  test: {
    include: ["test/security/renderers*.test.ts"],
    setupFiles: ["test/setup-logs.ts"],
  },
});
