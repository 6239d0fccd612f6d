// `npm run test:scale`: the tests that need more than Node and npm: nginx in front of replicas, and
// Debian's redis-server for the Redis store and replicas sharing it.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.scale.test.ts"],
    setupFiles: ["test/setup-logs.ts"],
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
