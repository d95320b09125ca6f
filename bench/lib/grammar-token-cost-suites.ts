// Owns: what the `tokenCost` rows cover and the run over it: each vocabulary (Qwen3's 151,936 rows on the synthetic
// tiny model; the Qwen3.5 stand-in's 248,320) × each engine × each suite — the tool lists (5 harness, Claude Code's,
// a string with maxLength 64, 100 and 200 generated; hermes calls, tool choice required) and, given MaskBench's data,
// a fixed sample of its schemas, each a JSON answer as bench:maskbench compiles it. A schema an engine cannot
// compile or walk is skipped and counted in its row. The per-engine walks are ./grammar-token-cost.ts.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Llama, LlamaModel, Token } from "node-llama-cpp";
import { ensureSyntheticModel } from "../../dist/index.js";
import { compileSchema } from "../../dist/grammar/compile.js";
import { compileXgrammar, compileXgrammarSchema } from "../../dist/grammar/xgrammar.js";
import { XgrammarSession, type XgVocabulary } from "../../dist/engines/xgrammar-check.js";
import { EngineVocab } from "../../dist/engine/engine-vocab.js";
import type { MatcherGrammar } from "../../dist/engine/matcher.js";
import { hermes, HERMES_SETTINGS, jsonCallFormat, QWEN35_TOKENS, type ToolCallFormat } from "../../dist/formats/index.js";
import { readQwen35Vocab } from "../../dist/model/qwen35-vocab.js";
import { readSyntheticInfo } from "../../dist/model/synthetic.js";
import { readVocabulary, type ModelVocabulary } from "../../dist/model/vocabulary.js";
import { mismatchedTag } from "../../dist/runtime/format-vocab.js";
import { KeyGuard, KeyVocab, SemanticMatcher, semanticStateFor, type KeyTracker } from "../../dist/engine/semantic/index.js";
import type { JsonSchema, ToolDefinition } from "../../dist/tools/types.js";
import { costStats, decodeTimes, llamaCost, qtcCost, quantile, TOKEN_COST_DEFAULTS, tokenCostLists, toolGrammarOf, xgrammarCost, type EngineCost, type EngineName, type TokenCostRow } from "./grammar-token-cost.js";
import { selectSchemaFiles } from "./maskbench-data.js";
import { MASKBENCH_DEFAULTS } from "./maskbench.js";
import { createLlama, loadModel } from "./internals.js";

export const TOKEN_COST_SUITE_DEFAULTS = Object.freeze({
  /** MaskBench schemas in the sample (every k-th of the sorted files, as `bench:maskbench --sample`). Default: 40. */
  maskbenchSample: 40,
  /** Seeded walks per engine and schema. Default: 4. */
  maskbenchWalks: 4,
  /** Seeded decodes per schema in llama.cpp. Default: 1. */
  maskbenchLlamaDecodes: 1,
  /** Tokens each MaskBench walk takes at most (the grammar keeps bench:maskbench's byte budget). Default: 128. */
  maskbenchMaxTokens: 128,
  /** The maxLength of the string row's one argument. Default: 64. */
  maxLength: 64,
});

/** The vocabularies the rows run on: the synthetic tiny model's tokenizer. */
export const COST_VOCABULARIES = ["qwen3", "qwen3.5"] as const;
export type CostVocabularyName = (typeof COST_VOCABULARIES)[number];

export const ALL_ENGINES: readonly EngineName[] = ["qtc", "xgrammar", "llama.cpp"];

/** What one run covers. */
export interface TokenCostPlan {
  /** Engines whose rows run. Default: all three. */
  engines: readonly EngineName[];
  /** Vocabularies the rows run on. Default: both. */
  vocabularies: readonly CostVocabularyName[];
  /** qtc rows count their tokens over the p99 target by the step part that cost most. Default: false. */
  profile: boolean;
  /** MaskBench's data folder (its `*.json` schema files); undefined: the maskbench suite is skipped. */
  maskbenchDir?: string;
  /** Schemas in the MaskBench sample. Default: TOKEN_COST_SUITE_DEFAULTS.maskbenchSample. */
  maskbenchSample?: number;
  /** Only the tool lists whose label holds one of these texts (to time or profile a row alone). Default: every list. */
  lists?: readonly string[];
  /** Lists each engine walks before its rows, in caches of its own (warmUpLists); empty: none. */
  warmUp: readonly CostList[];
}

const PROMPT = "<|im_start|>user\nFind the failing test and fix it.<|im_end|>\n<|im_start|>assistant\n";

/** One vocabulary's model and what each engine needs of it. */
interface CostVocabulary {
  name: CostVocabularyName;
  /** The model file (the synthetic tiny model with this tokenizer). */
  path: string;
  /**
   * The Qwen3.5 stand-in's ids: "real" (Qwen3.5's own BPE) or "approximate" (Qwen3's BPE under Qwen3.5's special
   * ids, the 96,401 rows between them empty: a 248,320-row mask with Qwen3's real tokens in it).
   */
  ids?: string;
  model: LlamaModel;
  vocab: ModelVocabulary;
  vocabSize: number;
  /** hermes spelled with this vocabulary's tag ids (the Qwen3.5 stand-in's `<tool_call>` is 248058). */
  format: ToolCallFormat;
}

/** hermes' spelling at Qwen3.5's special ids: the rows keep one grammar shape, only the vocabulary differs. */
const HERMES_AT_QWEN35: ToolCallFormat = jsonCallFormat({
  ...HERMES_SETTINGS,
  open: QWEN35_TOKENS.toolCallOpen,
  close: QWEN35_TOKENS.toolCallClose,
  think: { open: QWEN35_TOKENS.thinkOpen, close: QWEN35_TOKENS.thinkClose, openedByPrompt: false },
});

async function openVocabulary(llama: Llama, name: CostVocabularyName): Promise<CostVocabulary> {
  const path = await ensureSyntheticModel("tiny", { vocabulary: name });
  const model = await loadModel(llama, { path });
  const vocab = readVocabulary(model);
  if (!vocab.trie) throw new Error(`the token-cost rows need a byte-level vocabulary (${name}'s is not)`);
  const format = name === "qwen3" ? hermes : HERMES_AT_QWEN35;
  // A tag id the stand-in spells otherwise would time a grammar that forces the wrong token.
  const bad = mismatchedTag(format, (t) => model.detokenize([t as Token], true), vocab.tables.vocabSize);
  if (bad) throw new Error(`the ${name} stand-in spells token ${bad.tag.token} as ${JSON.stringify(bad.spelled)}, not ${bad.tag.text}`);
  const ids = (await readSyntheticInfo(path))?.ids;
  return { name, path, ...(ids ? { ids } : {}), model, vocab, vocabSize: vocab.tables.vocabSize, format };
}

/** xgrammar over this vocabulary: Qwen3's as vLLM builds it, or the tokenizer the Qwen3.5 stand-in was written from. */
async function xgrammarSession(v: CostVocabulary): Promise<XgrammarSession> {
  if (v.name === "qwen3") return XgrammarSession.create();
  const q = await readQwen35Vocab();
  if (q.tokens.length !== v.vocabSize) throw new Error(`Qwen3.5's tokenizer has ${q.tokens.length} rows, its stand-in ${v.vocabSize}`);
  return XgrammarSession.create({ tokens: q.tokens, tokenTypes: q.tokenTypes, stops: [QWEN35_TOKENS.imEnd.token, QWEN35_TOKENS.endOfText.token] });
}

/** One grammar in each engine's form; `ebnf` holds the xgrammar dialect's refusal where it has one. */
interface CostGrammar {
  matcher: MatcherGrammar;
  ebnf: { ok: true; value: string } | { ok: false; why: string };
  /** The engine's semantic state for a walk of this grammar (keys, distinct items), on a vocabulary's texts. */
  semantic: (vocab: KeyVocab) => KeyTracker | undefined;
}

/** One tool list of the tools suite. */
export interface CostList {
  label: string;
  tools: ToolDefinition[];
  /** xgrammar's grammar holds this maxLength on the list's one string argument (see boundedStringEbnf). */
  xgMaxLength?: number;
}

/** The tool lists: the four of tokenCostLists, and the maxLength string before the generated ones. */
export function costLists(harness: ToolDefinition[], clients: [string, ToolDefinition[]][], generated: (n: number) => ToolDefinition[]): CostList[] {
  const lists: CostList[] = tokenCostLists(harness, clients, generated).map(([label, tools]) => ({ label, tools }));
  const n = TOKEN_COST_SUITE_DEFAULTS.maxLength;
  const at = lists.findIndex((l) => l.label.startsWith("100"));
  lists.splice(at < 0 ? lists.length : at, 0, { label: `maxLength ${n} string`, tools: maxLengthTools(n), xgMaxLength: n }, { label: "uniqueItems 3 tools", tools: uniqueItemsTools() });
  return lists;
}

/**
 * The lists the engines walk before the rows, in caches of their own: the real clients' lists beside Claude Code's,
 * 60 more generated tools (tool_200 to tool_259), a string of maxLength 48 and the uniqueItems tools under other
 * names. They take the paths the rows take (bounded strings, keys, distinct items, cut characters) in grammars no
 * row compiles, so that a row's first tokens do not pay for compiling the engine's own code: V8 optimizes a function
 * after thousands of calls, on a second thread, and the old warm-up (two walks of three tools) left the first
 * vocabulary's rows about twice as slow as the same rows on the second (measured: docs/performance.md).
 */
export function warmUpLists(clients: [string, ToolDefinition[]][], generated: (n: number) => ToolDefinition[]): CostList[] {
  const others = clients.filter(([label]) => !label.toLowerCase().includes("claude")).map(([label, tools]) => ({ label: `warm-up: ${label}`, tools }));
  const renamed = uniqueItemsTools().map((t) => ({ ...t, name: `${t.name}_warm_up` }));
  return [
    ...others,
    { label: "warm-up: 60 generated", tools: generated(260).slice(200) },
    { label: "warm-up: maxLength 48 string", tools: maxLengthTools(48) },
    { label: "warm-up: uniqueItems 3 tools", tools: renamed },
  ];
}

/** Issue 49's three uniqueItems tools (integers, strings, objects): the cost of the guard's item state. */
export function uniqueItemsTools(): ToolDefinition[] {
  const tool = (name: string, items: Record<string, unknown>, minItems: number, maxItems: number) =>
    ({ name, description: `Takes ${minItems} to ${maxItems} distinct items.`, parameters: { type: "object", properties: { xs: { type: "array", uniqueItems: true, items, minItems, maxItems } }, required: ["xs"], additionalProperties: false } }) as ToolDefinition;
  return [
    tool("pick_digits", { type: "integer", minimum: 0, maximum: 9 }, 4, 6),
    tool("tag", { type: "string", maxLength: 6 }, 3, 5),
    tool("flags", { type: "object", properties: { k: { enum: ["a", "b"] }, on: { type: "boolean" } }, required: ["k", "on"], additionalProperties: false }, 3, 4),
  ];
}

/** A string of at most `maxLength` characters as a tool's one argument. */
export function maxLengthTools(maxLength: number): ToolDefinition[] {
  const parameters = { type: "object", properties: { text: { type: "string", maxLength } }, required: ["text"], additionalProperties: false };
  return [{ name: "write_note", description: `Writes a note of at most ${maxLength} characters.`, parameters } as ToolDefinition];
}

/**
 * The maxLength row's grammar in xgrammar with the bound held, as xgrammar's own JSON-schema converter holds one (a
 * character class repeated `{0,n}`, no escapes): qtc's xgrammar dialect leaves string lengths to the validator
 * (src/grammar/xgrammar-values.ts says why: this is where xgrammar is slow), which would time an unbounded string.
 */
export function boundedStringEbnf(ebnf: string, maxLength: number): string {
  const open = '"\\"" xg-string-rest';
  const parts = ebnf.split(open);
  if (parts.length !== 2) throw new Error(`the maxLength row expects one plain string in its xgrammar grammar, found ${parts.length - 1}`);
  return parts.join(`"\\"" [^"\\\\\\x00-\\x1f]{0,${maxLength}} "\\""`);
}

function toolGrammar(list: Pick<CostList, "tools" | "xgMaxLength">, format: ToolCallFormat): CostGrammar {
  const o = TOKEN_COST_DEFAULTS;
  const xg = compileXgrammar(list.tools, { format, toolChoice: "required", maxTokens: o.maxTokens });
  const ebnf = xg.ok && list.xgMaxLength !== undefined ? boundedStringEbnf(xg.value.ebnf, list.xgMaxLength) : xg.ok ? xg.value.ebnf : undefined;
  const matcher = toolGrammarOf(list.tools, o.maxTokens, format);
  return { matcher, ebnf: ebnf !== undefined ? { ok: true, value: ebnf } : { ok: false, why: xg.ok ? "" : xg.error.code }, semantic: (kv) => semanticStateFor(format, matcher.tools, kv) };
}

/** The MaskBench sample: each schema compiled once as bench:maskbench compiles it (GBNF; xgrammar's dialect beside). */
interface SchemaGrammar {
  file: string;
  grammar?: CostGrammar;
  /** Why qtc's compiler refused the schema (every engine skips it then). */
  refused?: string;
}

export function readMaskbenchSample(dir: string, sample: number): { label: string; files: number; schemas: SchemaGrammar[] } {
  const files = selectSchemaFiles(dir, { sample });
  const o = { maxTokens: MASKBENCH_DEFAULTS.maxTokens, unsupported: MASKBENCH_DEFAULTS.unsupported, budgetSplit: MASKBENCH_DEFAULTS.budgetSplit, guardedUnique: true };
  const schemas = files.map((file): SchemaGrammar => {
    try {
      const schema = (JSON.parse(readFileSync(join(dir, file), "utf8")) as { schema: JsonSchema | boolean }).schema;
      const gbnf = compileSchema(schema, o);
      if (!gbnf.ok) return { file, refused: gbnf.error.code };
      const xg = compileXgrammarSchema(schema, o);
      // The value closers a JSON answer's matcher has in a turn (hermes'): without them the budget guard's closing
      // walk ran into free text and fell back to a search over the grammar's states, most of the row's time.
      const matcher: MatcherGrammar = { gbnf: gbnf.value.gbnf, specialTokens: [], closeToken: -1, valueClosers: hermes.valueClosers };
      const { unique } = gbnf.value;
      const semantic = (kv: KeyVocab) => new KeyGuard(kv, unique && { kind: "value", plan: unique, shapes: unique.root });
      return { file, grammar: { matcher, ebnf: xg.ok ? { ok: true, value: xg.value.ebnf } : { ok: false, why: xg.error.code }, semantic } };
    } catch (e) {
      return { file, refused: errorKey(e) };
    }
  });
  return { label: `maskbench ${files.length} of ${selectSchemaFiles(dir).length}`, files: files.length, schemas };
}

/** A short key for why an engine failed on a schema: its error code, else the head of its message. */
function errorKey(e: unknown): string {
  const code = (e as { code?: unknown }).code;
  if (typeof code === "string") return code;
  return (e instanceof Error ? e.message : String(e)).split("\n")[0]!.slice(0, 40);
}

/** Walk options of a suite. */
interface WalkOptions {
  walks: number;
  /** llama.cpp's walks: seeded decodes of the model under the grammar. */
  llamaDecodes: number;
  maxTokens: number;
  /**
   * A fresh qtc grammar cache for this grammar (each tool list is timed cold, compiled in a cache of its own; the
   * vocabulary's indexes are the model's, built once, as xgrammar's tokenizer info is built once per session).
   */
  fresh: boolean;
}

/** One engine on one vocabulary, ready to walk grammars. */
interface EngineRun {
  walk(g: CostGrammar, o: WalkOptions): Promise<EngineCost>;
  dispose(): void;
}

async function engineRun(engine: EngineName, v: CostVocabulary, profile: boolean): Promise<EngineRun> {
  const { tables, trie, tokenizeText } = v.vocab;
  if (engine === "qtc") {
    const shared = new EngineVocab(tables, trie!, tokenizeText);
    const keyVocab = new KeyVocab(tables.texts);
    return {
      walk: async (g, o) => qtcCost(g.matcher, o.fresh ? shared.withEmptyGrammarCache() : shared, {
          ...o,
          profile,
          semantic: (inner, vocab) => {
            const state = g.semantic(keyVocab);
            return state ? SemanticMatcher.wrap(inner, state, keyVocab, vocab) : inner;
          },
        }),
      dispose: () => undefined,
    };
  }
  if (engine === "xgrammar") {
    const session = await xgrammarSession(v);
    return {
      walk: async (g, o) => {
        if (!g.ebnf.ok) throw Object.assign(new Error(g.ebnf.why), { code: g.ebnf.why });
        return xgrammarCost(g.ebnf.value, session, o);
      },
      dispose: () => session.dispose(),
    };
  }
  const prompt = v.model.tokenize(PROMPT, true) as Token[];
  const base = await decodeTimes(v.model, prompt, 2, TOKEN_COST_DEFAULTS.maxTokens);
  const baseUs = quantile(base.rest, 0.5);
  return { walk: (g, o) => llamaCost(g.matcher.gbnf, v.model, prompt, baseUs, { decodes: o.llamaDecodes, maxTokens: o.maxTokens }), dispose: () => undefined };
}

function row(engine: EngineName, v: CostVocabulary, suite: TokenCostRow["suite"], label: string, c: EngineCost): TokenCostRow {
  const semantic = c.semantic && c.semantic.length > 0 ? { semanticAvgUs: c.semantic.reduce((a, b) => a + b, 0) / c.semantic.length } : {};
  return { engine, suite, label, vocabSize: v.vocabSize, ...costStats(c.costs), firstMaskMs: c.firstMaskMs, replaced: c.replaced, ...semantic, ...(c.slow ? { slow: c.slow } : {}), ...(c.phaseMs ? { phaseMs: c.phaseMs } : {}) };
}

/** The MaskBench row of one engine: every walked schema's tokens pooled; the first mask is the median over schemas. */
async function maskbenchRow(engine: EngineName, v: CostVocabulary, sample: ReturnType<typeof readMaskbenchSample>, run: EngineRun): Promise<TokenCostRow> {
  const s = TOKEN_COST_SUITE_DEFAULTS;
  const costs: number[] = [];
  const semantic: number[] = [];
  const firsts: number[] = [];
  const skippedBy: Record<string, number> = {};
  let replaced = 0;
  let slow: Record<string, number> | undefined;
  let phaseMs: Record<string, number> | undefined;
  const skip = (why: string) => (skippedBy[why] = (skippedBy[why] ?? 0) + 1);
  for (const [i, schema] of sample.schemas.entries()) {
    if (!schema.grammar) {
      skip(schema.refused ?? "refused");
      continue;
    }
    try {
      const c = await run.walk(schema.grammar, { walks: s.maskbenchWalks, llamaDecodes: s.maskbenchLlamaDecodes, maxTokens: s.maskbenchMaxTokens, fresh: false });
      costs.push(...c.costs);
      if (c.semantic) semantic.push(...c.semantic);
      firsts.push(c.firstMaskMs);
      replaced += c.replaced;
      if (c.slow) slow = addCounts(slow ?? {}, c.slow);
      if (c.phaseMs) phaseMs = addCounts(phaseMs ?? {}, c.phaseMs);
    } catch (e) {
      skip(errorKey(e));
    }
    // llama.cpp's grammars live outside the JS heap: collect them now and then (when node runs with --expose-gc).
    if (i % 20 === 19) (globalThis as { gc?: () => void }).gc?.();
  }
  const skipped = Object.values(skippedBy).reduce((a, b) => a + b, 0);
  return { ...row(engine, v, "maskbench", sample.label, { costs, ...(engine === "qtc" ? { semantic } : {}), firstMaskMs: quantile(firsts, 0.5), replaced, ...(slow ? { slow } : {}), ...(phaseMs ? { phaseMs } : {}) }), schemas: firsts.length, skipped, skippedBy };
}

function addCounts(into: Record<string, number>, more: Record<string, number>): Record<string, number> {
  for (const [k, n] of Object.entries(more)) into[k] = (into[k] ?? 0) + n;
  return into;
}

/** What a run wrote beside its rows. */
export interface TokenCostRun {
  vocabularies: { name: CostVocabularyName; vocabSize: number; model: string; ids?: string; format: string }[];
  /** The MaskBench sample, or why the suite did not run. */
  maskbench: { dir: string; label: string; schemas: number } | { skipped: string };
  rows: TokenCostRow[];
}

/** Every row of the plan, vocabulary by vocabulary (one model loaded at a time); progress on stderr. */
export async function runTokenCostRows(all: readonly CostList[], plan: TokenCostPlan): Promise<TokenCostRun> {
  const lists = plan.lists ? all.filter((l) => plan.lists!.some((text) => l.label.includes(text))) : all;
  if (lists.length === 0) throw new Error(`no tool list's label holds ${plan.lists!.map((t) => JSON.stringify(t)).join(" or ")} (the lists: ${all.map((l) => l.label).join(", ")})`);
  const sample = plan.maskbenchDir ? readMaskbenchSample(plan.maskbenchDir, plan.maskbenchSample ?? TOKEN_COST_SUITE_DEFAULTS.maskbenchSample) : undefined;
  const llama = await createLlama({ gpu: "cpu" });
  const rows: TokenCostRow[] = [];
  const vocabularies: TokenCostRun["vocabularies"] = [];
  const t0 = performance.now();
  try {
    for (const name of plan.vocabularies) {
      const v = await openVocabulary(llama, name);
      vocabularies.push({ name, vocabSize: v.vocabSize, model: v.path.split("/").pop()!, ...(v.ids ? { ids: v.ids } : {}), format: `hermes (tags at ${v.format.open.token}/${v.format.close.token})` });
      try {
        const grammars = lists.map((l) => [l.label, l.tools.length, toolGrammar(l, v.format)] as const);
        const warmUp = plan.warmUp.map((l) => toolGrammar(l, v.format));
        for (const engine of plan.engines) {
          const warmMs = await warmUpEngine(engine, v, warmUp);
          if (warmMs !== undefined) process.stderr.write(`token-cost: ${name} (${v.vocabSize}) ${engine} warmed up on ${warmUp.length} lists outside the rows, ${(warmMs / 1000).toFixed(1)} s\n`);
          const run = await engineRun(engine, v, plan.profile);
          try {
            for (const [label, toolCount, g] of grammars) {
              const c = await run.walk(g, { walks: TOKEN_COST_DEFAULTS.walks, llamaDecodes: TOKEN_COST_DEFAULTS.llamaDecodes, maxTokens: TOKEN_COST_DEFAULTS.maxTokens, fresh: true });
              rows.push({ ...row(engine, v, "tools", label, c), tools: label, toolCount });
            }
            if (sample) rows.push(await maskbenchRow(engine, v, sample, run));
          } finally {
            run.dispose();
          }
          process.stderr.write(`token-cost: ${name} (${v.vocabSize}) ${engine} done, ${((performance.now() - t0) / 1000).toFixed(0)} s\n`);
        }
      } finally {
        await v.model.dispose();
      }
    }
  } finally {
    await llama.dispose();
  }
  const maskbench = sample ? { dir: plan.maskbenchDir!, label: sample.label, schemas: sample.files } : { skipped: "no --maskbench DIR given: the maskbench suite did not run" };
  return { vocabularies, maskbench, rows: sortRows(rows, lists.map((l) => l.label)) };
}

/**
 * Walks the warm-up lists in a run of the engine's own, then drops it (its compiled grammars and its vocabulary's
 * caches with it): so "cold" in a row means a grammar the engine sees for the first time in a process whose code is
 * compiled, as in a server that has answered before. llama.cpp's sampler is native code: nothing to warm. Returns
 * the milliseconds taken, or undefined when nothing was walked.
 */
async function warmUpEngine(engine: EngineName, v: CostVocabulary, grammars: readonly CostGrammar[]): Promise<number | undefined> {
  if (engine === "llama.cpp" || grammars.length === 0) return undefined;
  const t0 = performance.now();
  const run = await engineRun(engine, v, false);
  try {
    for (const g of grammars) await run.walk(g, { walks: TOKEN_COST_DEFAULTS.walks, llamaDecodes: 0, maxTokens: TOKEN_COST_DEFAULTS.maxTokens, fresh: true });
  } finally {
    run.dispose();
  }
  return performance.now() - t0;
}

/** Rows side by side for comparison: by suite, tool list (in the lists' order), vocabulary, then engine. */
function sortRows(rows: TokenCostRow[], labels: readonly string[]): TokenCostRow[] {
  const key = (r: TokenCostRow) => [r.suite === "tools" ? 0 : 1, labels.indexOf(r.label), r.vocabSize, ALL_ENGINES.indexOf(r.engine)];
  return [...rows].sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return ka[i]! - kb[i]!;
    return 0;
  });
}
