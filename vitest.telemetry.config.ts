// `npm run test:telemetry`: telemetry against a real Prometheus (Debian's prometheus and promtool).
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.prometheus.test.ts"],
    setupFiles: ["test/setup-logs.ts"],
    testTimeout: 120_000,
    hookTimeout: 90_000,
  },
});
