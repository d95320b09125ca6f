// Owns: `npm run bench:grammar-runtime`: the runtime's own `timings.grammarMs` per completion token through the
// library (createRuntime + generate, synthetic tiny model, tool choice required, so the grammar holds every tool),
// at 5 (harness), Claude Code's list, 100 and 200 generated tools, over seeds; medians. Prints and writes JSON.
// qtc's engine only: the llama.cpp row left with llama.cpp's grammar evaluator (issue 48); its figures stay in
// docs/performance.md.

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { createRuntime } from "../dist/index.js";
import { grammarsDir } from "./lib/internals.js";
import { clientToolLists, generatedTools } from "./lib/tool-lists.js";
import { runBenchScript } from "./lib/script-args.js";

export const GRAMMAR_RUNTIME_BENCH_DEFAULTS = Object.freeze({
  seeds: 3,
  maxTokens: 256,
  threads: 1,
  out: "bench/results/grammar-runtime.json",
});

export interface RuntimeGrammarRow {
  engine: "qtc";
  tools: string;
  toolCount: number;
  /** Median over seeds of grammarMs / completionTokens. */
  msPerToken: number;
  completionTokens: number;
  validCalls: number;
  calls: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function runRuntimeGrammarBench(opts: Partial<typeof GRAMMAR_RUNTIME_BENCH_DEFAULTS> = {}): Promise<RuntimeGrammarRow[]> {
  const o = { ...GRAMMAR_RUNTIME_BENCH_DEFAULTS, ...opts };
  const harness = JSON.parse(readFileSync(join(grammarsDir(), "harness-tools.json"), "utf8")) as object[];
  const claude = clientToolLists().find(([label]) => label.toLowerCase().includes("claude"));
  const lists: [string, object[]][] = [["5 harness", harness]];
  if (claude) lists.push([claude[0], claude[1] as object[]]);
  lists.push(["100 generated", generatedTools(100)], ["200 generated", generatedTools(200)]);
  const rows: RuntimeGrammarRow[] = [];
  const engine = "qtc" as const;
  {
    const runtime = await createRuntime({ model: "synthetic:tiny", threads: o.threads, contextSize: 8192 * 4 });
    try {
      for (const [label, tools] of lists) {
        const per: number[] = [];
        let tokens = 0;
        let valid = 0;
        let calls = 0;
        for (let seed = 1; seed <= o.seeds; seed++) {
          const out = await runtime.generate({
            messages: [{ role: "user", content: "Do the task." }],
            tools: tools as never,
            toolChoice: "required",
            maxTokens: o.maxTokens,
            seed,
            temperature: 1,
          });
          per.push(out.timings.grammarMs / Math.max(1, out.usage.completionTokens));
          tokens += out.usage.completionTokens;
          valid += out.toolCalls.length;
          calls += out.toolCalls.length + out.errors.length;
        }
        const row = { engine, tools: label, toolCount: tools.length, msPerToken: median(per), completionTokens: tokens, validCalls: valid, calls };
        process.stdout.write(`${engine.padEnd(10)} ${label.padEnd(28)} grammar ms/token ${row.msPerToken.toFixed(3)}  tokens ${tokens}  valid ${valid}/${calls}\n`);
        rows.push(row);
      }
    } finally {
      await runtime.close();
    }
  }
  return rows;
}

async function main(): Promise<void> {
  const rows = await runRuntimeGrammarBench();
  mkdirSync(dirname(GRAMMAR_RUNTIME_BENCH_DEFAULTS.out), { recursive: true });
  writeFileSync(GRAMMAR_RUNTIME_BENCH_DEFAULTS.out, JSON.stringify({ model: "synthetic tiny Qwen3 (random weights)", rows }, null, 2) + "\n");
  process.stdout.write(`wrote ${GRAMMAR_RUNTIME_BENCH_DEFAULTS.out}\n`);
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  void runBenchScript("qtc bench:grammar-runtime", main);
}
