// Owns: the root vitest config, so `npx vitest run test/parse` from the repo root uses the suite's settings
// (timeouts, the synthetic-model setup) kept in test/vitest.config.ts.
export { default } from "./test/vitest.config.ts";
