// Owns: the `npm run tasks:check` entry point: checks every task under bench/tasks (or the folder given as
// the first argument), prints one line per task, and exits 1 on any violation. `--unsafe-no-sandbox` runs the
// suites without the OS sandbox (where bubblewrap is unavailable).

import path from "node:path";
import { fileURLToPath } from "node:url";
import { QtcException } from "../dist/index.js";
import { checkTasks } from "./lib/internals.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const unconfined = args.includes("--unsafe-no-sandbox");
const folder = args.find((a) => !a.startsWith("--"));
const root = path.resolve(folder ?? path.join(here, "..", "bench", "tasks"));
const started = performance.now();
const results = await checkTasks(root, {
  concurrency: 2,
  limits: unconfined ? { sandbox: "off" } : {},
  onResult: (r) => {
    process.stdout.write(`${r.ok ? "ok  " : "FAIL"} ${r.id.padEnd(24)} ${String(r.tests ?? "-").padStart(3)} tests ${String(r.ms).padStart(5)} ms\n`);
    for (const p of r.problems) process.stdout.write(`       ${p}\n`);
  },
}).catch((e: unknown) => {
  if (!(e instanceof QtcException)) throw e;
  process.stderr.write(`tasks:check: ${e.message}\n`);
  process.exit(e.exitCode);
});
const failed = results.filter((r) => !r.ok);
const seconds = ((performance.now() - started) / 1000).toFixed(1);
process.stdout.write(
  `${results.length} tasks in ${root}: ${results.length - failed.length} ok, ${failed.length} failing, ${results.reduce((n, r) => n + (r.tests ?? 0), 0)} tests (${seconds} s)\n`,
);
if (results.length === 0) process.stdout.write("no tasks found\n");
process.exitCode = failed.length > 0 || results.length === 0 ? 1 : 0;
