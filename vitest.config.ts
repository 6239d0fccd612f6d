// Two tiers, each runnable alone (`vitest run --project unit`, or `e2e`); `npm test` runs both at once.
// unit: the server in the test process, its client in memory; upstreams on loopback. No build needed.
// e2e: transports and packaging over real sockets: the HTTP transport in process, the built CLI spawned.
// The scale-out, telemetry, container image and client set-up tests run apart (vitest.scale.config.ts,
// vitest.telemetry.config.ts, vitest.image.config.ts, vitest.clients.config.ts), as does the conformance
// script.
import { defineConfig } from "vitest/config";

// Dependencies that ship a development build resolve to the build users run: vitest picks the workers'
// condition from NODE_ENV, and micromark's development build (under remark, one of the renderers the
// sanitizer's tests judge with) asserts on every character.
process.env.NODE_ENV = "production";

const E2E = [
  "test/http/*.test.ts",
  "test/security/hostile-input.test.ts",
  "test/security/key-scrub.test.ts",
  "test/resilience/cancel.test.ts",
  "test/tools/confirm-writes-e2e.test.ts",
  "test/tools/selection.test.ts",
  "test/cli/e2e.test.ts",
  "test/cli/startup.test.ts",
  "test/cli/shutdown-drain.test.ts",
  "test/protocol/*.test.ts",
  "test/bench/driver.test.ts",
  "test/oauth/*.test.ts",
  "test/tools/confirm-writes-seal.test.ts",
  "test/cli/settings-problems.test.ts",
  "test/packaging/deploy.test.ts",
  "test/telemetry/e2e.test.ts",
];
/**
 * How clients start the server, run by `npm run test:clients` (vitest.clients.config.ts) beside the real
 * client CLIs: the docs' set-ups installed and started as written, and the Claude Desktop bundle.
 */
export const CLIENTS = ["test/docs/client-snippets-run.test.ts", "test/packaging/mcpb.test.ts"];
const SCALE = "test/**/*.scale.test.ts";
/** Needs Prometheus: npm run test:telemetry (vitest.telemetry.config.ts). */
const PROMETHEUS = "test/**/*.prometheus.test.ts";
const IMAGE = "test/**/*.image.test.ts";
/** `vitest run --project unit` (or e2e): one tier alone. */
const ONE_TIER = process.argv.some((arg) => arg === "--project" || arg.startsWith("--project="));

export default defineConfig({
  test: {
    setupFiles: ["test/setup-logs.ts"],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // One pool for both tiers, a file per core: the unit files mostly wait on loopback sockets, the e2e
    // files on the processes they spawn, so neither fills a core alone.
    maxWorkers: "100%",
    // A worker keeps its modules from one file to the next (the schemas are converted once per worker,
    // not per file); test/setup-logs.ts resets the one piece of shared state a test may change.
    isolate: false,
    // Run whole, both tiers share the pool: vitest gives each project workers of its own, which would
    // import the server's modules again (about 7 CPU-s more). The projects are there to run one tier.
    ...(ONE_TIER
      ? {
          projects: [
            {
              extends: true,
              test: {
                name: "unit",
                include: ["test/**/*.test.ts"],
                exclude: [SCALE, IMAGE, PROMETHEUS, ...CLIENTS, ...E2E],
              },
            },
            { extends: true, test: { name: "e2e", include: E2E, exclude: [SCALE, PROMETHEUS] } },
          ],
        }
      : { include: ["test/**/*.test.ts"], exclude: [SCALE, IMAGE, PROMETHEUS, ...CLIENTS] }),
  },
});
