// Owns: the settings of the real-client acceptance suite (test/clients/, a package of its own: `npm ci` in
// test/clients/ installs the clients, `npm run test:clients` at the root runs them). Timeouts, workers and
// setup are the root suite's; only which files run differs.
import { configDefaults, defineConfig } from "vitest/config";
import root from "../vitest.config.js";

export default defineConfig({ test: { ...root.test, include: ["test/clients/**/*.test.ts"], exclude: [...configDefaults.exclude] } });
