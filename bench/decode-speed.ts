// Owns: `npm run bench:speed`: decode speed of constrained tool calls against free decoding on one model
// (default synthetic:0.6b, the real Qwen3-0.6B dimensions), measured side by side in one process: (a) no grammar
// over the same number of tokens, (b) constrained without jump-forward, (c) constrained with everything on; both
// as decode rates and end to end (what a user waits for: prompt evaluation and grammar set-up included), with the
// milliseconds of each phase. Prints a table and writes JSON (default bench/results/decode-speed.json).

import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { createRuntime, type GenerateRequest, type GenerateResult } from "../dist/index.js";
import { HARNESS_TOOLS, makeStandIn, type RequestProfile } from "./lib/internals.js";
import { readBenchFlags } from "./lib/script-args.js";

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
  /** Wall time of the whole request, as the caller sees it. */
  wallSeconds: number;
  /** Where the request's time went (ms). */
  phases: RequestProfile;
  valid: boolean;
}

const PHASES = ["setup", "prompt", "grammarStart", "firstToken", "decode", "finish", "grammar", "total"] as const;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s[(s.length - 1) >> 1]! + s[s.length >> 1]!) / 2 : NaN;
};
const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))]! : NaN;
};

function sample(round: number, tool: string, variant: Variant, r: GenerateResult, wallSeconds: number, phases: RequestProfile): Sample {
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
    wallSeconds,
    phases,
    // (a) is free text: only the constrained variants must hold valid calls and nothing rejected.
    valid: variant === "a_free" || (r.toolCalls.length > 0 && r.errors.length === 0),
  };
}

async function main(): Promise<void> {
  const values = readBenchFlags("qtc bench:speed", {
    model: { type: "string", default: SPEED_BENCH_DEFAULTS.model },
    rounds: { type: "string", default: String(SPEED_BENCH_DEFAULTS.rounds) },
    "max-tokens": { type: "string", default: String(SPEED_BENCH_DEFAULTS.maxTokens) },
    threads: { type: "string", default: String(SPEED_BENCH_DEFAULTS.threads) },
    out: { type: "string", default: SPEED_BENCH_DEFAULTS.out },
  });
  const rounds = Number(values.rounds);
  const maxTokens = Number(values["max-tokens"]);
  const threads = Number(values.threads);
  let profile: RequestProfile | undefined;
  const rt = await createRuntime({ model: values.model, threads, contextSize: 2048, onProfile: (p) => (profile = p), standIns: makeStandIn });
  const samples: Sample[] = [];
  const timed = async (req: GenerateRequest) => {
    const t0 = performance.now();
    const result = await rt.generate(req);
    return { result, wall: (performance.now() - t0) / 1000, phases: profile! };
  };
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
        // The same prompt in every variant, each after it: each reuses the same cached prefix and evaluates the rest.
        const c = await timed({ ...req, mode: "constrained", jumpForward: true });
        const b = await timed({ ...req, mode: "constrained", jumpForward: false });
        // (a): the same number of tokens (c produced) without a grammar.
        const a = await timed({ ...req, mode: "unconstrained", toolChoice: "auto", maxTokens: Math.max(1, c.result.usage.completionTokens) });
        samples.push(
          sample(round, name, "a_free", a.result, a.wall, a.phases),
          sample(round, name, "b_constrained_no_jump", b.result, b.wall, b.phases),
          sample(round, name, "c_constrained", c.result, c.wall, c.phases),
        );
        const rates = [a, b, c].map((v) => v.result.timings.decodeTokensPerSecond.toFixed(1));
        const walls = [a, b, c].map((v) => v.wall.toFixed(2));
        process.stderr.write(`round ${round + 1}/${rounds} ${name}: decode a ${rates[0]}, b ${rates[1]}, c ${rates[2]} tok/s; wall a ${walls[0]}, b ${walls[1]}, c ${walls[2]} s\n`);
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
  // End to end: tokens per second of wall time, per round over all tools, and per request against its (a).
  const wallPerRound = (variant: Variant) =>
    Array.from({ length: rounds }, (_, round) => {
      const xs = samples.filter((s) => s.round === round && s.variant === variant);
      return xs.reduce((n, s) => n + s.tokens, 0) / xs.reduce((n, s) => n + s.wallSeconds, 0);
    });
  const wall = { a: wallPerRound("a_free"), b: wallPerRound("b_constrained_no_jump"), c: wallPerRound("c_constrained") };
  const wallRatio = (xs: number[]) => median(xs.map((x, i) => x / wall.a[i]!));
  const perRequest = (variant: Variant) =>
    samples
      .filter((s) => s.variant === variant)
      .map((s) => {
        const a = samples.find((x) => x.variant === "a_free" && x.round === s.round && x.tool === s.tool)!;
        return s.tokens / s.wallSeconds / (a.tokens / a.wallSeconds);
      });
  const phaseMeans = (variant: Variant) => {
    const xs = samples.filter((s) => s.variant === variant);
    return Object.fromEntries(PHASES.map((k) => [k, xs.reduce((n, s) => n + s.phases[k], 0) / xs.length])) as Record<(typeof PHASES)[number], number>;
  };
  const grammarMs = (v: Variant) => samples.filter((s) => s.variant === v).map((s) => s.grammarMsPerToken);
  const constrained = samples.filter((s) => s.variant !== "a_free");
  const report = {
    config: { model: values.model, synthetic: rt.modelInfo.synthetic, rounds, maxTokens, threads, node: process.version, date: new Date().toISOString() },
    medianTokensPerSecond: { a: median(rate.a), b: median(rate.b), c: median(rate.c) },
    ratios: { bOverA: ratio(rate.b), cOverA: ratio(rate.c) },
    endToEnd: {
      medianTokensPerSecond: { a: median(wall.a), b: median(wall.b), c: median(wall.c) },
      ratios: { bOverA: wallRatio(wall.b), cOverA: wallRatio(wall.c) },
      perRequestCOverA: { p50: median(perRequest("c_constrained")), min: Math.min(...perRequest("c_constrained")), max: Math.max(...perRequest("c_constrained")) },
    },
    /** Mean milliseconds per request of each phase, per variant. */
    phasesMs: { a: phaseMeans("a_free"), b: phaseMeans("b_constrained_no_jump"), c: phaseMeans("c_constrained") },
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
  const e = report.endToEnd;
  console.log(`end to end (wall time, prompt and grammar set-up included): a ${f(e.medianTokensPerSecond.a)}, b ${f(e.medianTokensPerSecond.b)}, c ${f(e.medianTokensPerSecond.c)} tok/s`);
  console.log(`  ratios b/a ${f(e.ratios.bOverA)}, c/a ${f(e.ratios.cOverA)}; per request c/a p50 ${f(e.perRequestCOverA.p50)} (${f(e.perRequestCOverA.min)}–${f(e.perRequestCOverA.max)})`);
  console.log(`mean ms per request  ${PHASES.map((k) => k.padStart(12)).join("")}`);
  for (const v of ["a", "b", "c"] as const) console.log(`  (${v})               ${PHASES.map((k) => report.phasesMs[v][k].toFixed(1).padStart(12)).join("")}`);
  console.log(`forced share (c): ${(report.forcedShare.c * 100).toFixed(1)}%; every constrained output valid: ${report.allConstrainedValid}`);
  console.log(`JSON: ${values.out}`);
  if (!report.allConstrainedValid) process.exitCode = 1;
}

await main();
