import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "src/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    pool: "forks",
    // The devnet and the indexer run once per test run, as processes of their own (test/helpers/stack.ts).
    globalSetup: ["test/global-setup.ts"],
    // Integration tests share the devnet port for now; run files one at a time.
    fileParallelism: false,
    reporters: ["default"],
    // Vite writes its own BASE_URL ("/", its public path) into process.env, where it would clash
    // with ours (a URL). Empty counts as unset in src/config.ts, so the default applies.
    env: { BASE_URL: "" },
  },
});
