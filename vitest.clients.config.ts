// `npm run test:clients`, before the real client CLIs (scripts/client-clis.sh): the docs' client set-ups
// installed (`npm install -g .`, npx) and started as written, and the Claude Desktop bundle built,
// unpacked and started as the host starts it. Needs a build (the script makes one) and npm.
import { defineConfig } from "vitest/config";
import { CLIENTS } from "./vitest.config.js";

export default defineConfig({
  test: {
    include: CLIENTS,
    setupFiles: ["test/setup-logs.ts"],
    testTimeout: 20_000,
    hookTimeout: 120_000,
  },
});
