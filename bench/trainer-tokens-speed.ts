// Owns: `npm run bench:trainer-tokens`: how the trainer's tokenization (native/qtc-tokenize.hpp) scales with the
// tags a sample's content spells: a user message of N `<tool_call>`/`</tool_call>` spellings, tokenized by the
// driver's `--dump-tokens` on the synthetic tiny model's vocabulary. Prints a table and writes JSON (default
// bench/results/trainer-tokens-speed.json).

import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { ensureSyntheticModel } from "../dist/index.js";
import { buildTrainer, encodeTrainerInput } from "./lib/internals.js";
import { runBenchScript } from "./lib/script-args.js";

export const TRAINER_TOKENS_BENCH_DEFAULTS = Object.freeze({
  /** Tags in the content of each case. */
  tags: [10_000, 20_000, 40_000, 80_000] as readonly number[],
  /** Runs per case; the median is reported. */
  runs: 3,
  out: "bench/results/trainer-tokens-speed.json",
});

/** One sample: a user message spelling `tags` call tags, a two-letter answer. */
function input(tags: number): Buffer {
  const content = "<tool_call>x</tool_call>\n".repeat(tags / 2);
  const piece = (text: string, special: boolean, assistant: boolean) => ({ text, special, assistant });
  return encodeTrainerInput([
    {
      task: "bench",
      message: 1,
      text: "",
      assistant: [0, 0],
      pieces: [
        piece("<|im_start|>user\n", true, false),
        piece(content, false, false),
        piece("<|im_end|>\n<|im_start|>assistant\n", true, false),
        piece("ok", false, true),
        piece("<|im_end|>", true, true),
        piece("\n", true, false),
      ],
    },
  ]);
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const o = TRAINER_TOKENS_BENCH_DEFAULTS;
  const [trainer, model] = [await buildTrainer(), await ensureSyntheticModel("tiny")];
  const dir = mkdtempSync(join(tmpdir(), "qtc-bench-trainer-tokens-"));
  const rows: { tags: number; bytes: number; medianMs: number; msPerThousandTags: number }[] = [];
  try {
    for (const tags of o.tags) {
      const file = join(dir, `${tags}.qtc`);
      const data = input(tags);
      writeFileSync(file, data);
      const ms: number[] = [];
      for (let r = 0; r < o.runs; r++) {
        const t0 = performance.now();
        await promisify(execFile)(trainer, ["--model", model, "--data", file, "--dump-tokens", join(dir, "out.txt")]);
        ms.push(performance.now() - t0);
      }
      const m = median(ms);
      rows.push({ tags, bytes: data.length, medianMs: Math.round(m), msPerThousandTags: Math.round((m / tags) * 1000 * 10) / 10 });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const report = { bench: "trainer-tokens", model: "synthetic:tiny (Qwen3 vocabulary, vocab only)", cpu: cpus()[0]?.model ?? "unknown", runs: o.runs, rows };
  mkdirSync(dirname(o.out), { recursive: true });
  writeFileSync(o.out, JSON.stringify(report, null, 2) + "\n");
  process.stdout.write(`tags      bytes   median ms  ms per 1k tags   (driver --dump-tokens, process start and vocabulary load included)\n`);
  for (const r of rows) process.stdout.write(`${String(r.tags).padStart(6)} ${String(r.bytes).padStart(10)} ${String(r.medianMs).padStart(10)} ${String(r.msPerThousandTags).padStart(14)}\n`);
  process.stdout.write(`wrote ${o.out}\n`);
}

await runBenchScript("qtc bench:trainer-tokens", main);
