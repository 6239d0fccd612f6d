// The report view in a real browser (Debian's chromium, driven by playwright-core): `npm run test:browser`,
// run by .ci/run, which installs chromium; not part of `npm test` (that needs only Node and npm).
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/browser/**/*.browser.ts"],
    // In-process servers' log lines are shown only for a failing test.
    setupFiles: ["test/setup-logs.ts"],
    testTimeout: 60_000,
    hookTimeout: 90_000,
    fileParallelism: false,
  },
});
