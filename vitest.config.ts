// Two tiers, each runnable alone (`vitest run --project unit`, or `e2e`); `npm test` runs both.
// unit: the server in the test process, its client in memory; upstreams on loopback. No build needed.
// e2e: transports and packaging over real sockets: the HTTP transport in process, the built CLI spawned.
// The scale-out test runs apart (vitest.scale.config.ts), as does the conformance script.
import { defineConfig } from "vitest/config";

const E2E = [
  "test/http-*.test.ts",
  "test/hostile-input.test.ts",
  "test/key-scrub.test.ts",
  "test/resilience-cancel.test.ts",
  "test/confirm-writes-e2e.test.ts",
  "test/selection.test.ts",
  "test/e2e.test.ts",
  "test/client-snippets-run.test.ts",
  "test/eras.test.ts",
  "test/prompts-eras.test.ts",
  "test/protocol.test.ts",
  "test/startup.test.ts",
  "test/shutdown-drain.test.ts",
  "test/bench-driver.test.ts",
  "test/mcpb.test.ts",
  "test/report-view-eras.test.ts",
];
const SCALE = "test/**/*.scale.test.ts";

export default defineConfig({
  test: {
    setupFiles: ["test/setup-logs.ts"],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["test/**/*.test.ts"],
          exclude: [SCALE, ...E2E],
          // Its files mostly wait (on loopback sockets, on retry timers): one per core, where the default
          // leaves a core free. A project with its own worker count runs in a group of its own: first.
          maxWorkers: "100%",
          sequence: { groupOrder: 0 },
        },
      },
      { extends: true, test: { name: "e2e", include: E2E, exclude: [SCALE], sequence: { groupOrder: 1 } } },
    ],
  },
});
