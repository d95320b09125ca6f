// Owns: `npm run fuzz`: runs the parse fuzz (parse-fuzz.ts) and prints its counts; exits 1 on any failure.
// Flags: --count N (default 200,000), --seed N (default 1), --max-seconds N, --json (print the report as JSON).

import { PARSE_FUZZ_DEFAULTS, runParseFuzz, type FuzzReport } from "./lib/parse-fuzz.js";

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

function num(name: string, fallback: number): number {
  const raw = arg(name);
  if (raw === undefined) return fallback;
  const n = Number(raw.replace(/_/g, ""));
  if (!Number.isInteger(n) || n < 0) {
    console.error(`--${name} takes a whole number, got ${JSON.stringify(raw)}`);
    process.exit(2);
  }
  return n;
}

function print(r: FuzzReport): void {
  const failures = Object.values(r.counts).reduce((a, b) => a + b, 0);
  console.log(`parse fuzz: seed ${r.seed}, ${r.cases.toLocaleString("en")} outputs (thinking auto ${r.byThinking.auto}, open ${r.byThinking.open}, closed ${r.byThinking.closed}), ${r.parses.toLocaleString("en")} parses in ${r.seconds} s`);
  console.log(`  calls emitted ${r.calls}, blocks rejected ${r.rejected}, valid answer calls the oracle expected ${r.expected}`);
  console.log(`  divergences (stream != batch) ${r.counts.divergence}`);
  console.log(`  calls emitted from a fence or reasoning ${r.counts.fenced_call}`);
  console.log(`  expected calls missed ${r.counts.missed_call}, invalid calls accepted ${r.counts.invalid_accepted}, throws ${r.counts.threw}`);
  for (const e of r.examples) console.log(`  ${e.kind} case ${e.caseSeed} (thinking ${e.thinking}): ${e.detail.slice(0, 300)}`);
  console.log(failures === 0 ? "OK" : `FAILED: ${failures}`);
}

const d = PARSE_FUZZ_DEFAULTS;
const report = runParseFuzz({ count: num("count", d.count), seed: num("seed", d.seed), maxSeconds: num("max-seconds", d.maxSeconds) });
if (process.argv.includes("--json")) console.log(JSON.stringify(report, null, 2));
else print(report);
process.exitCode = Object.values(report.counts).some((n) => n > 0) ? 1 : 0;
