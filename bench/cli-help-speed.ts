// Owns: `npm run bench:cli`: how long `node bin/qtc.js --help` takes, the median of 5 runs (more with --runs N),
// for this checkout's bin and for any other qtc checkout named after it (e.g. a build of an older commit), the
// runs alternating between them so that machine load hits each alike. Prints the load average before and after.

import { spawnSync } from "node:child_process";
import { loadavg } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const runsAt = args.indexOf("--runs");
const runs = runsAt >= 0 ? Number(args.splice(runsAt, 2)[1]) : 5;
if (!Number.isInteger(runs) || runs < 1) throw new Error("--runs takes a positive whole number");
const bins = [path.join(repo, "bin", "qtc.js"), ...args.map((a) => (a.endsWith(".js") ? path.resolve(a) : path.resolve(a, "bin", "qtc.js")))];

function once(bin: string): number {
  const started = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [bin, "--help"], { encoding: "utf8" });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (r.status !== 0 || !r.stdout.includes("Usage: qtc")) throw new Error(`${bin} --help failed (exit ${r.status}): ${r.stderr}`);
  return ms;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

const load = (): string => loadavg().map((l) => l.toFixed(2)).join(" ");
const before = load();
for (const bin of bins) once(bin); // warm the file cache; not counted
const times = bins.map(() => [] as number[]);
for (let i = 0; i < runs; i++) bins.forEach((bin, j) => times[j]!.push(once(bin)));
console.log(`node ${process.version}, ${runs} runs each, alternating; load average ${before} before, ${load()} after`);
bins.forEach((bin, j) => {
  const t = times[j]!;
  console.log(`${bin} --help: median ${median(t).toFixed(0)} ms (min ${Math.min(...t).toFixed(0)}, max ${Math.max(...t).toFixed(0)})`);
});
