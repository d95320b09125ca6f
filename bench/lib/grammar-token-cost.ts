// Owns: the `tokenCost` rows of `npm run bench:grammar`: per-token grammar cost (p50, p99 in µs) and time to first
// mask (compile + first mask, ms) of each constraint engine — qtc's own (src/engine/), xgrammar's matcher
// (WASM) and llama.cpp's native grammar sampler — for 5 harness tools, Claude Code's list and 100 / 200 generated
// tools, tool choice required (the grammar holds every tool). Walks fight the grammar: qtc's and xgrammar's pick
// uniformly among all tokens where free text is allowed (what random weights do) and among the allowed set
// elsewhere; llama.cpp's decodes the synthetic tiny model and subtracts the median no-grammar token time.

import type { LlamaModel, Token } from "node-llama-cpp";
import { compileToolGrammar } from "../../dist/grammar/index.js";
import { compileXgrammar } from "../../dist/grammar/xgrammar.js";
import { XgrammarSession } from "../../dist/engines/xgrammar-check.js";
import type { CompiledGrammar } from "../../dist/grammar/types.js";
import { EngineVocab } from "../../dist/engine/engine-vocab.js";
import { QtcMatcher } from "../../dist/engine/qtc-matcher.js";
import { BudgetGuard } from "../../dist/runtime/budget-guard.js";
import type { TokenTables } from "../../dist/engine/token-tables.js";
import type { ToolDefinition } from "../../dist/tools/types.js";
import type { VocabTrie } from "../../dist/engine/vocab-trie.js";

export const TOKEN_COST_DEFAULTS = Object.freeze({
  /** Seeded walks per engine and tool list. */
  walks: 16,
  /** Token budget of each walk (the grammar's maxTokens too). */
  maxTokens: 256,
  /** Issue 37's targets for qtc's rows. */
  targetP50Us: 150,
  targetP99Us: 2000,
  targetFirstMaskMs: 50,
});

export type EngineName = "qtc" | "xgrammar" | "llama.cpp";

export interface TokenCostRow {
  engine: EngineName;
  tools: string;
  toolCount: number;
  p50Us: number;
  p99Us: number;
  firstMaskMs: number;
  tokens: number;
  /** qtc only: sampled tokens refused at free-text positions and replaced. */
  replaced?: number;
  /** qtc only, with `profile`: the tokens over targetP99Us, counted by the part of the step that cost most. */
  slow?: Record<string, number>;
}

/** The parts of one qtc step the profile tells apart. */
type Phase = "forced" | "guard" | "mask" | "take";

export function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
}

function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => ((s = (s * 1103515245 + 12345) >>> 0) / 2 ** 32);
}

const grammarOf = (tools: readonly ToolDefinition[], maxTokens: number): CompiledGrammar => {
  const g = compileToolGrammar(tools, { format: "hermes", toolChoice: "required", maxTokens });
  if (!g.ok) throw new Error(`${g.error.code}: ${g.error.message}`);
  return g.value;
};

/** qtc's engine: a fresh engine cache per list (cold compile), then seeded walks timing each token's whole work. */
export function qtcTokenCost(label: string, tools: readonly ToolDefinition[], tables: TokenTables, trie: VocabTrie, tokenize: (t: string) => number[], o: { walks: number; maxTokens: number; profile?: boolean } = TOKEN_COST_DEFAULTS): TokenCostRow {
  const grammar = grammarOf(tools, o.maxTokens);
  const vocab = new EngineVocab(tables, trie, tokenize);
  const t0 = performance.now();
  const first = QtcMatcher.create(grammar, vocab);
  first.acceptAll(first.forcedContinuation(o.maxTokens).tokens);
  first.nextTokens();
  const firstMaskMs = performance.now() - t0;
  const costs: number[] = [];
  let replaced = 0;
  const slow: Record<string, number> = {};
  for (let w = 0; w < o.walks; w++) {
    const random = rng(100 + w);
    const m = QtcMatcher.create(grammar, vocab);
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
      const next = m.nextTokens();
      const t3 = performance.now();
      const pick = next.kind === "set" ? next.tokens[Math.floor(random() * next.tokens.length)]! : Math.floor(random() * tables.vocabSize);
      if (tables.eogTokens.includes(pick) && m.canBeNext(pick)) break;
      const before = m.replaced;
      used += m.takeSampled(pick).length;
      const t4 = performance.now();
      const us = (t4 - t) * 1000;
      costs.push(us);
      if (o.profile && us > TOKEN_COST_DEFAULTS.targetP99Us) {
        const parts: [Phase, number][] = [["forced", t1 - t], ["guard", t2 - t1], ["mask", t3 - t2], ["take", t4 - t3]];
        const [phase] = parts.reduce((a, b) => (b[1] > a[1] ? b : a));
        const key = `${phase}${phase === "mask" ? ` (${next.kind})` : phase === "take" && m.replaced > before ? " (replaced)" : ""}`;
        slow[key] = (slow[key] ?? 0) + 1;
      }
    }
    replaced += m.replaced;
  }
  return { engine: "qtc", tools: label, toolCount: tools.length, p50Us: quantile(costs, 0.5), p99Us: quantile(costs, 0.99), firstMaskMs, tokens: costs.length, replaced, ...(o.profile ? { slow } : {}) };
}

/** xgrammar's matcher (WASM): compile of its dialect + first mask, then its per-token mask time over seeded walks. */
export async function xgrammarTokenCost(label: string, tools: readonly ToolDefinition[], session: XgrammarSession, o: { walks: number; maxTokens: number } = TOKEN_COST_DEFAULTS): Promise<TokenCostRow> {
  const g = compileXgrammar(tools, { format: "hermes", toolChoice: "required", maxTokens: o.maxTokens });
  if (!g.ok) throw new Error(g.error.message);
  const t0 = performance.now();
  const compiled = await session.compile(g.value.ebnf);
  const compileMs = performance.now() - t0;
  const firstWalk = await session.walk(compiled, { seed: 1, maxTokens: 1 });
  const firstMaskMs = compileMs + (firstWalk.maskMicros[0] ?? 0) / 1000;
  const costs: number[] = [];
  for (let w = 0; w < o.walks; w++) costs.push(...(await session.walk(compiled, { seed: 100 + w, maxTokens: o.maxTokens })).maskMicros);
  compiled.dispose();
  return { engine: "xgrammar", tools: label, toolCount: tools.length, p50Us: quantile(costs, 0.5), p99Us: quantile(costs, 0.99), firstMaskMs, tokens: costs.length };
}

/** llama.cpp's grammar sampler: decode the tiny model with and without it; per token, the time over the no-grammar median. */
export async function llamaTokenCost(label: string, tools: readonly ToolDefinition[], model: LlamaModel, prompt: Token[], baseUs: number, o: { walks: number; maxTokens: number } = TOKEN_COST_DEFAULTS): Promise<TokenCostRow> {
  const grammar = grammarOf(tools, o.maxTokens);
  const { LlamaGrammarEvaluationState } = await import("node-llama-cpp");
  const t0 = performance.now();
  const g = await model.llama.createGrammar({ grammar: grammar.gbnf });
  new LlamaGrammarEvaluationState({ model, grammar: g });
  const compileMs = performance.now() - t0;
  const times = await decodeTimes(model, prompt, Math.max(2, Math.floor(o.walks / 2)), o.maxTokens, () => new LlamaGrammarEvaluationState({ model, grammar: g }));
  const costs = times.rest.map((us) => Math.max(0, us - baseUs));
  return { engine: "llama.cpp", tools: label, toolCount: tools.length, p50Us: quantile(costs, 0.5), p99Us: quantile(costs, 0.99), firstMaskMs: compileMs + Math.max(0, quantile(times.first, 0.5) - baseUs) / 1000, tokens: costs.length };
}

/** Per-token µs of seeded decodes (first token of each apart: it carries the prompt). */
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
      for await (const _token of sequence.evaluate(prompt, { temperature: 1, seed: 100 + i, ...(grammarEvaluationState ? { grammarEvaluationState } : {}) })) {
        const now = performance.now();
        (n === 0 ? first : rest).push((now - t) * 1000);
        t = now;
        if (++n >= maxTokens) break;
      }
    }
  } finally {
    await context.dispose();
  }
  return { first, rest };
}

/** The four tool lists of the rows: 5 harness, Claude Code's (when its fixture is there), 100 and 200 generated. */
export function tokenCostLists(harness: ToolDefinition[], clients: [string, ToolDefinition[]][], generated: (n: number) => ToolDefinition[]): [string, ToolDefinition[]][] {
  const claude = clients.find(([label]) => label.toLowerCase().includes("claude"));
  return [["5 harness", harness], ...(claude ? [claude] : []), ["100 generated", generated(100)], ["200 generated", generated(200)]];
}

/** The table's lines. */
export function tokenCostTable(rows: readonly TokenCostRow[]): string[] {
  const out = ["", "token cost (required, hermes)           engine      p50 µs    p99 µs  first mask ms  tokens"];
  for (const r of rows) {
    out.push(`  ${r.tools.padEnd(36)} ${r.engine.padEnd(10)} ${r.p50Us.toFixed(0).padStart(7)} ${r.p99Us.toFixed(0).padStart(9)} ${r.firstMaskMs.toFixed(1).padStart(14)} ${String(r.tokens).padStart(7)}`);
    if (r.slow) out.push(`    over ${TOKEN_COST_DEFAULTS.targetP99Us} µs: ${Object.entries(r.slow).map(([k, n]) => `${k} ${n}`).join(", ") || "none"}${r.replaced ? `; replaced ${r.replaced}` : ""}`);
  }
  const o = TOKEN_COST_DEFAULTS;
  out.push(`  targets (qtc): p50 ≤ ${o.targetP50Us} µs, p99 ≤ ${o.targetP99Us} µs, p50 at 200 ≤ 1.5× at 5, first mask for Claude Code's list ≤ ${o.targetFirstMaskMs} ms cold`);
  return out;
}
