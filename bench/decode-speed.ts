// Owns: `npm run bench:speed`: decode speed of constrained tool calls against free decoding on one model
// (default synthetic:0.6b, the real Qwen3-0.6B dimensions), measured side by side in one process: (a) no grammar
// over the same number of tokens, (b) constrained without jump-forward, (c) constrained with everything on; both
// as decode rates and end to end (what a user waits for: prompt evaluation and grammar set-up included), with the
// milliseconds of each phase. `--tools 5,26,200` measures several tool lists in one run (5: the harness tools; any
// other count: that many generated tools), `--tool-choice required` puts every tool in the grammar, and `--gpu cuda`
// names the backend (the GPU row of issue 50). Prints a table per list and writes JSON (default
// bench/results/decode-speed.json).

import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { createRuntime, type GenerateRequest, type GenerateResult } from "../dist/index.js";
import { GPU_CHOICES, HARNESS_TOOLS, makeStandIn, type GpuChoice, type RequestProfile } from "./lib/internals.js";
import { generatedTools } from "./lib/tool-lists.js";
import { readBenchFlags, refuseFlag, runBenchScript } from "./lib/script-args.js";

export const SPEED_BENCH_DEFAULTS = Object.freeze({
  /** Model spec. Default: "synthetic:0.6b". */
  model: "synthetic:0.6b",
  /** Rounds; each round runs every tool in every variant, and the medians are over rounds. Default: 5. */
  rounds: 5,
  /** Token budget of each constrained call. Default: 256. */
  maxTokens: 256,
  /** CPU threads. Default: 2. */
  threads: 2,
  /** Tool lists, as counts: 5 is the harness tools, any other count that many generated tools. Default: "5". */
  tools: "5",
  /** "name" (each request names one tool) or "required" (any tool). Default: "name". */
  toolChoice: "name",
  /** Compute backend. Default: "auto". */
  gpu: "auto",
  /** Context size in tokens; 200 generated tools need about 20,000. Default: 2048. */
  contextSize: 2048,
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

interface ToolList {
  label: string;
  tools: NonNullable<GenerateRequest["tools"]>;
  names: string[];
}

/** 5: the harness tools (what the bench has always measured); any other count: that many generated tools. */
function toolList(count: number): ToolList {
  if (count === HARNESS_TOOLS.length) return { label: `${count} harness tools`, tools: [...HARNESS_TOOLS], names: HARNESS_TOOLS.map((t) => t.function.name) };
  const tools = generatedTools(count);
  return { label: `${count} generated tools`, tools, names: tools.map((t) => t.name) };
}

const SCRIPT = "qtc bench:speed";

function parseCounts(text: string): number[] {
  const counts = text.split(",").map((x) => Number(x.trim()));
  if (counts.some((n) => !Number.isInteger(n) || n < 1 || n > 1000)) {
    refuseFlag(SCRIPT, `--tools takes tool counts from 1 to 1000 separated by commas (e.g. 5,26,200), got "${text}"`);
  }
  return counts;
}

const REQUESTS_PER_ROUND = 5;

async function main(): Promise<void> {
  const values = readBenchFlags(SCRIPT, {
    model: { type: "string", default: SPEED_BENCH_DEFAULTS.model },
    rounds: { type: "string", default: String(SPEED_BENCH_DEFAULTS.rounds) },
    "max-tokens": { type: "string", default: String(SPEED_BENCH_DEFAULTS.maxTokens) },
    threads: { type: "string", default: String(SPEED_BENCH_DEFAULTS.threads) },
    tools: { type: "string", default: SPEED_BENCH_DEFAULTS.tools },
    "tool-choice": { type: "string", default: SPEED_BENCH_DEFAULTS.toolChoice },
    gpu: { type: "string", default: SPEED_BENCH_DEFAULTS.gpu },
    context: { type: "string", default: String(SPEED_BENCH_DEFAULTS.contextSize) },
    "project-step-ms": { type: "string" },
    out: { type: "string", default: SPEED_BENCH_DEFAULTS.out },
  });
  const rounds = Number(values.rounds);
  const maxTokens = Number(values["max-tokens"]);
  const threads = Number(values.threads);
  const lists = parseCounts(values.tools).map(toolList);
  // A device's step (ms per token of free decoding) to project (b)'s ratio onto, e.g. 2.13 for the 0.6b shape on an H200.
  const stepMs = values["project-step-ms"] === undefined ? undefined : Number(values["project-step-ms"]);
  if (stepMs !== undefined && !(stepMs > 0)) refuseFlag(SCRIPT, `--project-step-ms takes a positive number of milliseconds, got "${values["project-step-ms"]}"`);
  const choice = values["tool-choice"];
  if (choice !== "name" && choice !== "required") refuseFlag(SCRIPT, `--tool-choice is name (each request names one tool) or required (any tool), got "${choice}"`);
  if (!(GPU_CHOICES as readonly string[]).includes(values.gpu)) refuseFlag(SCRIPT, `--gpu is one of ${GPU_CHOICES.join(", ")}, got "${values.gpu}"`);
  let profile: RequestProfile | undefined;
  const rt = await createRuntime({
    model: values.model,
    threads,
    gpu: values.gpu as GpuChoice,
    contextSize: Number(values.context),
    onProfile: (p) => (profile = p),
    standIns: makeStandIn,
  });
  const timed = async (req: GenerateRequest) => {
    const t0 = performance.now();
    const result = await rt.generate(req);
    return { result, wall: (performance.now() - t0) / 1000, phases: profile! };
  };
  const reports: ListReport[] = [];
  try {
    for (const list of lists) {
      // Evaluate the list's prompt once unmeasured, so no variant pays for it on its first request.
      await rt.generate({ messages: [{ role: "user", content: "Warm up." }], tools: list.tools, mode: "unconstrained", toolChoice: "auto", maxTokens: 1 });
      const samples: Sample[] = [];
      for (let round = 0; round < rounds; round++) {
        for (let i = 0; i < REQUESTS_PER_ROUND; i++) {
          // Named: request i names tool i (the harness list's five, as before); required: any tool, a seed each.
          const named = list.names[i % list.names.length]!;
          const label = choice === "name" ? named : `request ${i + 1}`;
          const req: GenerateRequest = {
            messages: [{ role: "user", content: choice === "name" ? `Use ${named} on the project.` : "Use one of the tools on the project." }],
            tools: list.tools,
            toolChoice: choice === "name" ? { name: named } : "required",
            maxTokens,
            seed: choice === "name" ? 100 + round : 100 + round * REQUESTS_PER_ROUND + i,
            temperature: 0.7,
          };
          // The same prompt in every variant, each after it: each reuses the same cached prefix and evaluates the rest.
          const c = await timed({ ...req, mode: "constrained", jumpForward: true });
          const b = await timed({ ...req, mode: "constrained", jumpForward: false });
          // (a): the same number of tokens (c produced) without a grammar.
          const a = await timed({ ...req, mode: "unconstrained", toolChoice: "auto", maxTokens: Math.max(1, c.result.usage.completionTokens) });
          samples.push(
            sample(round, label, "a_free", a.result, a.wall, a.phases),
            sample(round, label, "b_constrained_no_jump", b.result, b.wall, b.phases),
            sample(round, label, "c_constrained", c.result, c.wall, c.phases),
          );
          const rates = [a, b, c].map((v) => v.result.timings.decodeTokensPerSecond.toFixed(1));
          const walls = [a, b, c].map((v) => v.wall.toFixed(2));
          process.stderr.write(`${list.label}, round ${round + 1}/${rounds} ${label}: decode a ${rates[0]}, b ${rates[1]}, c ${rates[2]} tok/s; wall a ${walls[0]}, b ${walls[1]}, c ${walls[2]} s\n`);
        }
      }
      reports.push(listReport(list.label, list.tools.length, rounds, samples));
    }
  } finally {
    await rt.close();
  }
  const report = {
    config: {
      model: values.model,
      synthetic: rt.modelInfo.synthetic,
      gpu: rt.settings.gpu,
      rounds,
      maxTokens,
      threads,
      toolChoice: choice,
      contextSize: Number(values.context),
      ...(stepMs !== undefined ? { projectStepMs: stepMs } : {}),
      node: process.version,
      date: new Date().toISOString(),
    },
    lists: reports.map((r) => (stepMs === undefined ? r : { ...r, projectedBOverA: projectedRatio(r, stepMs) })),
  };
  mkdirSync(dirname(values.out), { recursive: true });
  writeFileSync(values.out, JSON.stringify(report, null, 2) + "\n");
  console.log(`model ${values.model}${report.config.synthetic ? " (synthetic)" : ""} on ${report.config.gpu || "cpu"}, ${threads} threads, ${rounds} rounds × ${REQUESTS_PER_ROUND} requests (tool choice ${choice}), medians over rounds`);
  for (const r of reports) printList(r, stepMs);
  console.log(`JSON: ${values.out}`);
  if (!reports.every((r) => r.allConstrainedValid)) process.exitCode = 1;
}

type ListReport = ReturnType<typeof listReport>;

/** (b)'s ratio to free decoding on a device whose step is `stepMs`: a faster device shortens the model's step, not what constraining adds on the CPU. */
function projectedRatio(r: ListReport, stepMs: number): number {
  return stepMs / (stepMs + Math.max(0, r.addedMsPerToken.b));
}

/** One list's figures: decode rates and ratios per round (medians over rounds), end to end, phases, grammar work. */
function listReport(label: string, tools: number, rounds: number, samples: Sample[]) {
  // Per round: tokens produced per second of decoding, over all requests; medians over rounds.
  const perRound = (variant: Variant, seconds: (s: Sample) => number) =>
    Array.from({ length: rounds }, (_, round) => {
      const xs = samples.filter((s) => s.round === round && s.variant === variant);
      return xs.reduce((n, s) => n + s.tokens, 0) / xs.reduce((n, s) => n + seconds(s), 0);
    });
  const decodeSeconds = (s: Sample) => s.seconds;
  const wallSeconds = (s: Sample) => s.wallSeconds;
  const rate = { a: perRound("a_free", decodeSeconds), b: perRound("b_constrained_no_jump", decodeSeconds), c: perRound("c_constrained", decodeSeconds) };
  const wall = { a: perRound("a_free", wallSeconds), b: perRound("b_constrained_no_jump", wallSeconds), c: perRound("c_constrained", wallSeconds) };
  const ratio = (xs: number[], base: number[]) => median(xs.map((x, i) => x / base[i]!));
  const perRequest = samples
    .filter((s) => s.variant === "c_constrained")
    .map((s) => {
      const a = samples.find((x) => x.variant === "a_free" && x.round === s.round && x.tool === s.tool)!;
      return s.tokens / s.wallSeconds / (a.tokens / a.wallSeconds);
    });
  const phaseMeans = (variant: Variant) => {
    const xs = samples.filter((s) => s.variant === variant);
    return Object.fromEntries(PHASES.map((k) => [k, xs.reduce((n, s) => n + s.phases[k], 0) / xs.length])) as Record<(typeof PHASES)[number], number>;
  };
  const grammarMs = (v: Variant) => samples.filter((s) => s.variant === v).map((s) => s.grammarMsPerToken);
  const c = samples.filter((s) => s.variant === "c_constrained");
  return {
    label,
    tools,
    medianTokensPerSecond: { a: median(rate.a), b: median(rate.b), c: median(rate.c) },
    /**
     * What constraining adds to each token's decode time (ms), median over rounds: (b) pays for every token it
     * samples; (c) is below (b) where jump-forward evaluates forced tokens in batches (negative: faster than free).
     */
    addedMsPerToken: { b: median(rate.b.map((x, i) => 1000 / x - 1000 / rate.a[i]!)), c: median(rate.c.map((x, i) => 1000 / x - 1000 / rate.a[i]!)) },
    ratios: { bOverA: ratio(rate.b, rate.a), cOverA: ratio(rate.c, rate.a) },
    endToEnd: {
      medianTokensPerSecond: { a: median(wall.a), b: median(wall.b), c: median(wall.c) },
      ratios: { bOverA: ratio(wall.b, wall.a), cOverA: ratio(wall.c, wall.a) },
      perRequestCOverA: { p50: median(perRequest), min: Math.min(...perRequest), max: Math.max(...perRequest) },
    },
    /** Mean milliseconds per request of each phase, per variant. */
    phasesMs: { a: phaseMeans("a_free"), b: phaseMeans("b_constrained_no_jump"), c: phaseMeans("c_constrained") },
    grammarMsPerToken: {
      b: { p50: median(grammarMs("b_constrained_no_jump")), p99: quantile(grammarMs("b_constrained_no_jump"), 0.99) },
      c: { p50: median(grammarMs("c_constrained")), p99: quantile(grammarMs("c_constrained"), 0.99) },
    },
    forcedShare: { c: c.reduce((n, s) => n + s.forced, 0) / c.reduce((n, s) => n + s.tokens, 0) },
    allConstrainedValid: samples.filter((s) => s.variant !== "a_free").every((s) => s.valid),
    samples,
  };
}

function printList(r: ListReport, stepMs: number | undefined): void {
  const f = (x: number) => x.toFixed(2);
  console.log(`\n${r.label}`);
  console.log("variant                          tok/s    ratio  grammar ms/token p50 / p99");
  console.log(`(a) no grammar                   ${f(r.medianTokensPerSecond.a).padStart(6)}   1.00`);
  console.log(`(b) constrained, no jump-forward ${f(r.medianTokensPerSecond.b).padStart(6)}   ${f(r.ratios.bOverA)}   ${f(r.grammarMsPerToken.b.p50)} / ${f(r.grammarMsPerToken.b.p99)}`);
  console.log(`(c) constrained, jump-forward    ${f(r.medianTokensPerSecond.c).padStart(6)}   ${f(r.ratios.cOverA)}   ${f(r.grammarMsPerToken.c.p50)} / ${f(r.grammarMsPerToken.c.p99)}`);
  const e = r.endToEnd;
  console.log(`end to end (wall time, prompt and grammar set-up included): a ${f(e.medianTokensPerSecond.a)}, b ${f(e.medianTokensPerSecond.b)}, c ${f(e.medianTokensPerSecond.c)} tok/s`);
  console.log(`  ratios b/a ${f(e.ratios.bOverA)}, c/a ${f(e.ratios.cOverA)}; per request c/a p50 ${f(e.perRequestCOverA.p50)} (${f(e.perRequestCOverA.min)}–${f(e.perRequestCOverA.max)})`);
  console.log(`mean ms per request  ${PHASES.map((k) => k.padStart(12)).join("")}`);
  for (const v of ["a", "b", "c"] as const) console.log(`  (${v})               ${PHASES.map((k) => r.phasesMs[v][k].toFixed(1).padStart(12)).join("")}`);
  console.log(`forced share (c): ${(r.forcedShare.c * 100).toFixed(1)}%; every constrained output valid: ${r.allConstrainedValid}`);
  console.log(`added ms per token: (b) ${r.addedMsPerToken.b.toFixed(3)}, (c) ${r.addedMsPerToken.c.toFixed(3)}`);
  if (stepMs !== undefined) {
    console.log(`projected (b)/(a) at a ${stepMs} ms step: ${projectedRatio(r, stepMs).toFixed(2)}`);
  }
}

await runBenchScript(SCRIPT, main);
