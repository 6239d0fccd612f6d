// `npm run test:image`: the container image, built from the Containerfile and run by podman (needs podman,
// runc and debootstrap, and root; .ci/run installs them). The first run debootstraps its base: minutes.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.image.test.ts"],
    setupFiles: ["test/setup-logs.ts"],
    testTimeout: 120_000,
    hookTimeout: 1_500_000,
  },
});
