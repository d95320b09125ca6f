// Vitest settings for the whole suite. Model-backed tests load GGUFs and take seconds, so timeouts are
// generous; two workers match the 2-core CI machine.
import { configDefaults, defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    root: new URL("..", import.meta.url).pathname,
    include: ["test/**/*.test.ts"],
    // The real-client acceptance suite is a package of its own (test/clients/package.json, its own config).
    exclude: [...configDefaults.exclude, "test/clients/**"],
    // Points QTC_MODELS_DIR at the repo's models/ folder (qtc's default is the user's cache folder).
    setupFiles: ["test/helpers/models.ts"],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    pool: "forks",
    maxWorkers: 2,
    reporters: ["default"],
  },
});
