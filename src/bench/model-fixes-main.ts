// Owns: the entry point of `npm run bench:model-fixes`: builds the trainer, makes the stand-ins, runs the
// comparison and prints the table (flags: --out DIR, --train to add the train half, --seeds N).

import path from "node:path";
import { runModelFixes, renderFixesMarkdown } from "./model-fixes.js";

const args = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const out = path.resolve(flag("--out") ?? path.join("bench", "results", `model-fixes-${new Date().toISOString().replace(/[:.]/g, "-")}`));
const report = await runModelFixes({
  out,
  halves: args.includes("--train") ? ["test", "train"] : ["test"],
  seeds: flag("--seeds") ? Number(flag("--seeds")) : undefined,
  onEvent: (e) => {
    if (e.type === "stand-in") process.stderr.write(`stand-in ${e.name} ready in ${(e.ms / 1000).toFixed(0)} s\n`);
    if (e.type === "run") process.stderr.write(`\r${e.done}/${e.planned} runs`);
  },
});
process.stdout.write(`\n${renderFixesMarkdown(report)}\nwrote ${out}\n`);
