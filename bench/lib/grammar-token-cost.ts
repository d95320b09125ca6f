// Owns: the `tokenCost` rows of `npm run bench:grammar`: per-token grammar cost (mean, p50, p99, p99.9 in µs) and
// time to first mask (compile + first mask, ms) of one grammar in each constraint engine — qtc's own (src/engine/),
// xgrammar's matcher (WASM) and llama.cpp's native grammar sampler — and the table of the rows. Walks fight the
// grammar: qtc's and xgrammar's pick uniformly among all tokens where free text is allowed (what random weights do)
// and among the allowed set elsewhere; llama.cpp's decodes the synthetic tiny model and subtracts the median
// no-grammar token time. Which grammars and vocabularies the rows cover: ./grammar-token-cost-suites.ts.

import type { LlamaModel, Token } from "node-llama-cpp";
import { compileToolGrammar } from "../../dist/grammar/index.js";
import type { XgrammarSession } from "../../dist/engines/xgrammar-check.js";
import type { CompiledGrammar } from "../../dist/grammar/types.js";
import type { ToolCallFormat } from "../../dist/formats/index.js";
import type { EngineVocab } from "../../dist/engine/engine-vocab.js";
import { allows, type Matcher, type MatcherGrammar, type NextTokens } from "../../dist/engine/matcher.js";
import { QtcMatcher } from "../../dist/engine/qtc-matcher.js";
import { BudgetGuard } from "../../dist/runtime/budget-guard.js";
import { SemanticMatcher } from "../../dist/engine/semantic/index.js";
import type { ToolDefinition } from "../../dist/tools/types.js";

export const TOKEN_COST_DEFAULTS = Object.freeze({
  /** Seeded walks per engine and tool list. */
  walks: 16,
  /** Token budget of each walk (the grammar's maxTokens too). */
  maxTokens: 256,
  /** Seeded decodes per tool list in llama.cpp (each token decodes the model too: the slowest rows of the run). */
  llamaDecodes: 4,
  /** Issue 37's targets for qtc's rows. */
  targetP50Us: 150,
  targetP99Us: 2000,
  targetFirstMaskMs: 50,
});

export type EngineName = "qtc" | "xgrammar" | "llama.cpp";

/** Which grammars a row walks: the tool lists (required calls) or a sample of MaskBench schemas (JSON answers). */
export type TokenCostSuite = "tools" | "maskbench";

export interface TokenCostRow {
  engine: EngineName;
  suite: TokenCostSuite;
  /** Which tool list, or which MaskBench sample. */
  label: string;
  /** Rows of the vocabulary the engine masks (151,936: Qwen3; 248,320: the Qwen3.5 stand-in). */
  vocabSize: number;
  /** Tool-list rows: the list's label (kept for readers of older results; the same as `label`). */
  tools?: string;
  /** Tool-list rows: how many tools the grammar holds. */
  toolCount?: number;
  /** MaskBench rows: schemas walked, and those skipped because this engine could not compile or walk them. */
  schemas?: number;
  skipped?: number;
  /** MaskBench rows: why schemas were skipped (error code or message head → count). */
  skippedBy?: Record<string, number>;
  /** Per-token cost samples taken (all walks; all schemas of a MaskBench row). */
  tokens: number;
  avgUs: number;
  p50Us: number;
  p99Us: number;
  p999Us: number;
  /** Compile + first mask, ms (MaskBench rows: the median over the schemas walked). */
  firstMaskMs: number;
  /**
   * Sampled tokens the engine refused and replaced: qtc's takeSampled at free-text positions, where the walk
   * samples over the whole vocabulary. 0 for xgrammar and llama.cpp, whose walks sample under their exact mask.
   */
  replaced: number;
  /** qtc only, with `profile`: the tokens over targetP99Us, counted by the part of the step that cost most. */
  slow?: Record<string, number>;
  /** qtc only, with `profile`: milliseconds spent in each part of the step, over every token of the row. */
  phaseMs?: Record<string, number>;
  /** qtc only: the semantic guard's share of `avgUs` (keys, distinct items: asked for bans, fed the text), µs per token. */
  semanticAvgUs?: number;
}

/** One engine's walks over one grammar: the per-token µs, compile + first mask, and the replaced tokens. */
export interface EngineCost {
  costs: number[];
  /** qtc only: the semantic guard's part of each cost, µs. */
  semantic?: number[];
  firstMaskMs: number;
  replaced: number;
  slow?: Record<string, number>;
  phaseMs?: Record<string, number>;
}

/** Each part's share of the time a row spent, largest first ("guard 41%, mask 30%, …"). */
function phaseShares(phaseMs: Record<string, number>): string {
  const total = Object.values(phaseMs).reduce((a, b) => a + b, 0);
  return Object.entries(phaseMs)
    .sort((a, b) => b[1] - a[1])
    .map(([k, ms]) => `${k} ${total > 0 ? Math.round((100 * ms) / total) : 0}%`)
    .join(", ");
}

/** The parts of one qtc step the profile tells apart. */
type Phase = "forced" | "guard" | "mask" | "semantic" | "take";

export function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
}

export function mean(xs: readonly number[]): number {
  let sum = 0;
  for (const x of xs) sum += x;
  return xs.length === 0 ? 0 : sum / xs.length;
}

/** The cost columns of a row, all from the same samples. */
export function costStats(costs: readonly number[]): Pick<TokenCostRow, "tokens" | "avgUs" | "p50Us" | "p99Us" | "p999Us"> {
  const s = [...costs].sort((a, b) => a - b);
  const at = (q: number) => (s.length === 0 ? 0 : s[Math.min(s.length - 1, Math.floor(q * s.length))]!);
  return { tokens: s.length, avgUs: mean(s), p50Us: at(0.5), p99Us: at(0.99), p999Us: at(0.999) };
}

/**
 * A full collection before each walk of every engine (when node runs with --expose-gc, as the bench scripts do):
 * a walk then pays for its own garbage, not for what building the grammars and the earlier walks left.
 */
function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => ((s = (s * 1103515245 + 12345) >>> 0) / 2 ** 32);
}

/**
 * The token a walk samples, as random weights would: uniformly among the mask's allowed tokens (a listed set, or
 * the set bits of a bitset). Undefined when nothing is allowed.
 */
export function pickNext(next: NextTokens, vocabSize: number, random: () => number): number | undefined {
  if (next.kind === "set") return next.tokens.length === 0 ? undefined : next.tokens[Math.floor(random() * next.tokens.length)];
  if (next.count === 0) return undefined;
  // Most tokens allowed: by rejection; else the k-th set bit.
  if (next.count * 4 >= vocabSize) {
    for (;;) {
      const t = Math.floor(random() * vocabSize);
      if (allows(next, t)) return t;
    }
  }
  let k = Math.floor(random() * next.count);
  for (let t = 0; t < vocabSize; t++) if (allows(next, t) && k-- === 0) return t;
  return undefined;
}

/** The tools' grammar (tool choice required, so every tool is in it) in `format`. */
export const toolGrammarOf = (tools: readonly ToolDefinition[], maxTokens: number, format: ToolCallFormat | "hermes" = "hermes"): CompiledGrammar => {
  const g = compileToolGrammar(tools, { format, toolChoice: "required", maxTokens });
  if (!g.ok) throw new Error(`${g.error.code}: ${g.error.message}`);
  return g.value;
};

/**
 * qtc's engine: matcher creation (the engine compiles the GBNF unless `vocab`'s cache holds it) + first mask, then
 * seeded walks timing each token's grammar work (forced text, budget guard, mask, take; not the pick itself).
 */
export function qtcCost(
  grammar: MatcherGrammar,
  vocab: EngineVocab,
  o: { walks: number; maxTokens: number; profile?: boolean; seed?: number; semantic?: (grammar: QtcMatcher, vocab: EngineVocab) => Matcher },
): EngineCost {
  const t0 = performance.now();
  const first = QtcMatcher.create(grammar, vocab);
  first.acceptAll(first.forcedContinuation(o.maxTokens).tokens);
  first.nextTokens();
  const firstMaskMs = performance.now() - t0;
  const { vocabSize, eogTokens } = vocab.tables;
  const costs: number[] = [];
  const semantic: number[] = [];
  let replaced = 0;
  const slow: Record<string, number> = {};
  const phaseMs: Record<string, number> = {};
  for (let w = 0; w < o.walks; w++) {
    collectGarbage();
    const random = rng((o.seed ?? 100) + w);
    const inner = QtcMatcher.create(grammar, vocab);
    // The engine's matcher as a turn runs it: with the call's semantic state (keys, distinct items) where it has one.
    const m = o.semantic?.(inner, vocab) ?? inner;
    const semanticMs = () => (m instanceof SemanticMatcher ? m.semanticMs : 0);
    const guard = new BudgetGuard(m);
    let used = 0;
    while (used < o.maxTokens) {
      const t = performance.now();
      const forced = m.acceptAll(m.forcedContinuation(o.maxTokens - used).tokens);
      used += forced.length;
      const t1 = performance.now();
      const close = guard.check(o.maxTokens - used);
      if (close) break;
      const t2 = performance.now();
      const s0 = semanticMs();
      const next = m.nextTokens();
      const t3 = performance.now();
      const s1 = semanticMs();
      // Sampling is the model's work, not the grammar's: the pick stays outside the timed parts.
      const pick = pickNext(next, vocabSize, random);
      if (pick === undefined || (eogTokens.includes(pick) && m.canBeNext(pick))) break;
      const before = inner.replaced;
      const t3b = performance.now();
      const s2 = semanticMs();
      const taken = m.takeSampled(pick);
      used += taken.length;
      const t4 = performance.now();
      const us = (t3 - t + (t4 - t3b)) * 1000;
      costs.push(us);
      semantic.push((s1 - s0 + (semanticMs() - s2)) * 1000);
      if (!o.profile) continue;
      const parts: [Phase, number][] = [["forced", t1 - t], ["guard", t2 - t1], ["mask", t3 - t2 - (s1 - s0)], ["semantic", s1 - s0 + (semanticMs() - s2)], ["take", t4 - t3b - (semanticMs() - s2)]];
      for (const [phase, ms] of parts) phaseMs[phase] = (phaseMs[phase] ?? 0) + ms;
      if (us > TOKEN_COST_DEFAULTS.targetP99Us) {
        const [phase] = parts.reduce((a, b) => (b[1] > a[1] ? b : a));
        const key = `${phase}${phase === "mask" ? ` (${next.kind})` : phase === "take" && inner.replaced > before ? " (replaced)" : ""}`;
        slow[key] = (slow[key] ?? 0) + 1;
      }
    }
    replaced += inner.replaced;
  }
  return { costs, semantic, firstMaskMs, replaced, ...(o.profile ? { slow, phaseMs } : {}) };
}

/** xgrammar's matcher (WASM): compile of its dialect + first mask, then its per-token mask time over seeded walks. */
export async function xgrammarCost(ebnf: string, session: XgrammarSession, o: { walks: number; maxTokens: number; seed?: number }): Promise<EngineCost> {
  const t0 = performance.now();
  const compiled = await session.compile(ebnf);
  const compileMs = performance.now() - t0;
  try {
    const firstWalk = await session.walk(compiled, { seed: 1, maxTokens: 1 });
    const firstMaskMs = compileMs + (firstWalk.maskMicros[0] ?? 0) / 1000;
    const costs: number[] = [];
    for (let w = 0; w < o.walks; w++) costs.push(...(collectGarbage(), await session.walk(compiled, { seed: (o.seed ?? 100) + w, maxTokens: o.maxTokens })).maskMicros);
    return { costs, firstMaskMs, replaced: 0 };
  } finally {
    compiled.dispose();
  }
}

/** llama.cpp's grammar sampler: decode the tiny model with and without it; per token, the time over the no-grammar median. */
export async function llamaCost(gbnf: string, model: LlamaModel, prompt: Token[], baseUs: number, o: { decodes: number; maxTokens: number }): Promise<EngineCost> {
  const { LlamaGrammarEvaluationState } = await import("node-llama-cpp");
  const t0 = performance.now();
  const g = await model.llama.createGrammar({ grammar: gbnf });
  new LlamaGrammarEvaluationState({ model, grammar: g });
  const compileMs = performance.now() - t0;
  const times = await decodeTimes(model, prompt, o.decodes, o.maxTokens, () => new LlamaGrammarEvaluationState({ model, grammar: g }));
  const costs = times.rest.map((us) => Math.max(0, us - baseUs));
  return { costs, firstMaskMs: compileMs + Math.max(0, quantile(times.first, 0.5) - baseUs) / 1000, replaced: 0 };
}

/**
 * Per-token µs of seeded decodes (first token of each apart: it carries the prompt). A decode stops at the first
 * end-of-generation token: past it a finished grammar allows only that token again, which times nothing of it.
 */
export async function decodeTimes(model: LlamaModel, prompt: Token[], runs: number, maxTokens: number, state?: () => unknown): Promise<{ first: number[]; rest: number[] }> {
  const context = await model.createContext({ contextSize: 1024, threads: 1, sequences: 1 });
  const sequence = context.getSequence();
  const first: number[] = [];
  const rest: number[] = [];
  try {
    for (let i = 0; i < runs; i++) {
      await sequence.clearHistory();
      let n = 0;
      let t = performance.now();
      const grammarEvaluationState = state?.() as never;
      for await (const token of sequence.evaluate(prompt, { temperature: 1, seed: 100 + i, ...(grammarEvaluationState ? { grammarEvaluationState } : {}) })) {
        const now = performance.now();
        (n === 0 ? first : rest).push((now - t) * 1000);
        t = now;
        if (++n >= maxTokens || model.isEogToken(token)) break;
      }
    }
  } finally {
    await context.dispose();
  }
  return { first, rest };
}

/** The tool lists of the rows: 5 harness, Claude Code's (when its fixture is there), 100 and 200 generated. */
export function tokenCostLists(harness: ToolDefinition[], clients: [string, ToolDefinition[]][], generated: (n: number) => ToolDefinition[]): [string, ToolDefinition[]][] {
  const claude = clients.find(([label]) => label.toLowerCase().includes("claude"));
  return [["5 harness", harness], ...(claude ? [claude] : []), ["100 generated", generated(100)], ["200 generated", generated(200)]];
}

const fixed = (x: number, digits: number, width: number) => x.toFixed(digits).padStart(width);

/** The table's lines. */
export function tokenCostTable(rows: readonly TokenCostRow[]): string[] {
  const out = [
    "",
    "token cost (hermes required calls; maskbench: JSON answers)  µs per token; first mask in ms",
    `  ${"suite".padEnd(9)} ${"label".padEnd(34)} ${"vocab".padStart(6)} ${"engine".padEnd(9)} ${"avg".padStart(7)} ${"p50".padStart(7)} ${"p99".padStart(8)} ${"p99.9".padStart(8)} ${"first".padStart(8)} ${"tokens".padStart(7)} ${"replaced".padStart(8)} ${"semantic".padStart(8)}`,
  ];
  for (const r of rows) {
    const vocab = `${Math.round(r.vocabSize / 1000)}k`;
    out.push(
      `  ${r.suite.padEnd(9)} ${r.label.padEnd(34)} ${vocab.padStart(6)} ${r.engine.padEnd(9)} ${fixed(r.avgUs, 0, 7)} ${fixed(r.p50Us, 0, 7)} ${fixed(r.p99Us, 0, 8)} ${fixed(r.p999Us, 0, 8)} ${fixed(r.firstMaskMs, 1, 8)} ${String(r.tokens).padStart(7)} ${String(r.replaced).padStart(8)} ${r.semanticAvgUs === undefined ? "".padStart(8) : fixed(r.semanticAvgUs, 1, 8)}`,
    );
    if (r.schemas !== undefined) out.push(`    schemas walked ${r.schemas}, skipped ${r.skipped ?? 0}${r.skippedBy && Object.keys(r.skippedBy).length > 0 ? ` (${Object.entries(r.skippedBy).map(([k, n]) => `${k} ${n}`).join(", ")})` : ""}`);
    if (r.slow) out.push(`    over ${TOKEN_COST_DEFAULTS.targetP99Us} µs: ${Object.entries(r.slow).map(([k, n]) => `${k} ${n}`).join(", ") || "none"}${r.replaced ? `; replaced ${r.replaced}` : ""}`);
    if (r.phaseMs) out.push(`    time by part: ${phaseShares(r.phaseMs)}`);
  }
  const o = TOKEN_COST_DEFAULTS;
  out.push(`  targets (qtc): p50 ≤ ${o.targetP50Us} µs, p99 ≤ ${o.targetP99Us} µs, p50 at 200 ≤ 1.5× at 5, first mask for Claude Code's list ≤ ${o.targetFirstMaskMs} ms cold`);
  out.push("  replaced: qtc's refused free-text samples; xgrammar and llama.cpp sample under their exact mask (always 0)");
  return out;
}
