import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Tests that need more than Node and npm run apart (npm run test:scale needs nginx).
    exclude: ["test/**/*.scale.test.ts"],
    setupFiles: ["test/setup-logs.ts"],
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
