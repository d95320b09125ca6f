// Owns: `npm run bench:speed`: decode speed of constrained tool calls against free decoding on one model
// (default synthetic:0.6b, the real Qwen3-0.6B dimensions), measured side by side in one process: (a) no grammar
// over the same number of tokens, (b) constrained without jump-forward, (c) constrained with everything on.
// Prints a table and writes JSON (default bench/results/decode-speed.json).

import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { parseArgs } from "node:util";
import { HARNESS_TOOLS } from "../harness/tools.js";
import { createRuntime } from "../runtime/runtime.js";
import type { GenerateRequest, GenerateResult } from "../runtime/types.js";

export const SPEED_BENCH_DEFAULTS = Object.freeze({
  /** Model spec. Default: "synthetic:0.6b". */
  model: "synthetic:0.6b",
  /** Rounds; each round runs every tool in every variant, and the medians are over rounds. Default: 5. */
  rounds: 5,
  /** Token budget of each constrained call. Default: 256. */
  maxTokens: 256,
  /** CPU threads. Default: 2. */
  threads: 2,
  /** Default: "bench/results/decode-speed.json". */
  out: "bench/results/decode-speed.json",
});

type Variant = "a_free" | "b_constrained_no_jump" | "c_constrained";

interface Sample {
  round: number;
  tool: string;
  variant: Variant;
  tokens: number;
  forced: number;
  seconds: number;
  grammarMsPerToken: number;
  valid: boolean;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s[(s.length - 1) >> 1]! + s[s.length >> 1]!) / 2 : NaN;
};
const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))]! : NaN;
};

function sample(round: number, tool: string, variant: Variant, r: GenerateResult): Sample {
  const tokens = r.usage.completionTokens;
  return {
    round,
    tool,
    variant,
    tokens,
    forced: r.usage.forcedTokens,
    seconds: tokens / Math.max(r.timings.decodeTokensPerSecond, 1e-9),
    // qtc-side grammar work (compiles, jump-forward probes, state updates); llama.cpp's sampler time is in `seconds`.
    grammarMsPerToken: tokens ? r.timings.grammarMs / tokens : 0,
    // (a) is free text: only the constrained variants must hold valid calls and nothing rejected.
    valid: variant === "a_free" || (r.toolCalls.length > 0 && r.errors.length === 0),
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      model: { type: "string", default: SPEED_BENCH_DEFAULTS.model },
      rounds: { type: "string", default: String(SPEED_BENCH_DEFAULTS.rounds) },
      "max-tokens": { type: "string", default: String(SPEED_BENCH_DEFAULTS.maxTokens) },
      threads: { type: "string", default: String(SPEED_BENCH_DEFAULTS.threads) },
      out: { type: "string", default: SPEED_BENCH_DEFAULTS.out },
    },
  });
  const rounds = Number(values.rounds);
  const maxTokens = Number(values["max-tokens"]);
  const threads = Number(values.threads);
  const rt = await createRuntime({ model: values.model, threads, contextSize: 2048 });
  const samples: Sample[] = [];
  try {
    for (let round = 0; round < rounds; round++) {
      for (const tool of HARNESS_TOOLS) {
        const name = tool.function.name;
        const req: GenerateRequest = {
          messages: [{ role: "user", content: `Use ${name} on the project.` }],
          tools: [...HARNESS_TOOLS],
          toolChoice: { name },
          maxTokens,
          seed: 100 + round,
          temperature: 0.7,
        };
        const c = await rt.generate({ ...req, mode: "constrained", jumpForward: true });
        const b = await rt.generate({ ...req, mode: "constrained", jumpForward: false });
        // (a): the same number of tokens (c produced) without a grammar.
        const a = await rt.generate({ ...req, mode: "unconstrained", toolChoice: "auto", maxTokens: Math.max(1, c.usage.completionTokens) });
        samples.push(sample(round, name, "a_free", a), sample(round, name, "b_constrained_no_jump", b), sample(round, name, "c_constrained", c));
        process.stderr.write(`round ${round + 1}/${rounds} ${name}: a ${a.timings.decodeTokensPerSecond.toFixed(1)}, b ${b.timings.decodeTokensPerSecond.toFixed(1)}, c ${c.timings.decodeTokensPerSecond.toFixed(1)} tok/s\n`);
      }
    }
  } finally {
    await rt.close();
  }
  // Per round: tokens produced per second of decoding, over all tools; medians over rounds.
  const perRound = (variant: Variant) =>
    Array.from({ length: rounds }, (_, round) => {
      const xs = samples.filter((s) => s.round === round && s.variant === variant);
      return xs.reduce((n, s) => n + s.tokens, 0) / xs.reduce((n, s) => n + s.seconds, 0);
    });
  const rate = { a: perRound("a_free"), b: perRound("b_constrained_no_jump"), c: perRound("c_constrained") };
  const ratio = (xs: number[]) => median(xs.map((x, i) => x / rate.a[i]!));
  const grammarMs = (v: Variant) => samples.filter((s) => s.variant === v).map((s) => s.grammarMsPerToken);
  const constrained = samples.filter((s) => s.variant !== "a_free");
  const report = {
    config: { model: values.model, synthetic: rt.modelInfo.synthetic, rounds, maxTokens, threads, node: process.version, date: new Date().toISOString() },
    medianTokensPerSecond: { a: median(rate.a), b: median(rate.b), c: median(rate.c) },
    ratios: { bOverA: ratio(rate.b), cOverA: ratio(rate.c) },
    grammarMsPerToken: {
      b: { p50: median(grammarMs("b_constrained_no_jump")), p99: quantile(grammarMs("b_constrained_no_jump"), 0.99) },
      c: { p50: median(grammarMs("c_constrained")), p99: quantile(grammarMs("c_constrained"), 0.99) },
    },
    forcedShare: {
      c: samples.filter((s) => s.variant === "c_constrained").reduce((n, s) => n + s.forced, 0) /
        samples.filter((s) => s.variant === "c_constrained").reduce((n, s) => n + s.tokens, 0),
    },
    allConstrainedValid: constrained.every((s) => s.valid),
    samples,
  };
  mkdirSync(dirname(values.out), { recursive: true });
  writeFileSync(values.out, JSON.stringify(report, null, 2) + "\n");
  const f = (x: number) => x.toFixed(2);
  console.log(`model ${values.model}${report.config.synthetic ? " (synthetic)" : ""}, ${threads} threads, ${rounds} rounds × 5 tools, medians over rounds`);
  console.log("variant                          tok/s    ratio  grammar ms/token p50 / p99");
  console.log(`(a) no grammar                   ${f(report.medianTokensPerSecond.a).padStart(6)}   1.00`);
  console.log(`(b) constrained, no jump-forward ${f(report.medianTokensPerSecond.b).padStart(6)}   ${f(report.ratios.bOverA)}   ${f(report.grammarMsPerToken.b.p50)} / ${f(report.grammarMsPerToken.b.p99)}`);
  console.log(`(c) constrained, jump-forward    ${f(report.medianTokensPerSecond.c).padStart(6)}   ${f(report.ratios.cOverA)}   ${f(report.grammarMsPerToken.c.p50)} / ${f(report.grammarMsPerToken.c.p99)}`);
  console.log(`forced share (c): ${(report.forcedShare.c * 100).toFixed(1)}%; every constrained output valid: ${report.allConstrainedValid}`);
  console.log(`JSON: ${values.out}`);
  if (!report.allConstrainedValid) process.exitCode = 1;
}

await main();
