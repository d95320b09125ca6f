// Owns: running MaskBench (guidance-ai/jsonschemabench maskbench/data) through qtc's compileSchema: each schema
// compiled, each instance checked in qtc's canonical spelling the way the runtime constrains a call (qtc's engine
// and key guard; the grammar alone on request, see maskbench-check.ts), ajv's verdict beside each label, rejected valid instances split into spelling artefacts and real
// validation errors, and MaskBench's table (passing, errors by code, crashes, timeouts, TTFM and mask time).

import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { LlamaModel } from "node-llama-cpp";
import { compileSchema } from "../../dist/grammar/compile.js";
import { createChecker, type CheckerId, type EngineTables, type InstanceChecker } from "./maskbench-check.js";
import { canonicalJson, utf8Length } from "../../dist/grammar/canonical-json.js";
import type { UnsupportedPolicy } from "../../dist/grammar/constraint-report.js";
import type { BudgetSplit } from "../../dist/grammar/budget-share.js";
import { compileValueValidator } from "../../dist/tools/validators.js";
import { QtcException } from "../../dist/errors.js";
import type { JsonSchema } from "../../dist/tools/types.js";
import { schemaOrdered } from "./maskbench-order.js";
import { countSemantic, semanticKeywords, semanticLine, type SemanticCounts, type SemanticKeyword } from "./maskbench-semantic.js";

export const MASKBENCH_DEFAULTS = Object.freeze({
  /** Byte budget of each grammar (the compiler caps it at 8,192). Default: 8192. */
  maxTokens: 8192 as number,
  /** Policy for keywords the grammar cannot hold (MaskBench judges the grammar alone). Default: "strict". */
  unsupported: "strict" as UnsupportedPolicy,
  /**
   * Budget split: "shared" (each part may use what the others leave; the runtime's guard bounds a whole call) or
   * "worst-case" (static shares whose sum fits the budget). Default: "shared".
   */
  budgetSplit: "shared" as BudgetSplit,
  /**
   * What checks each instance: "qtc" (the runtime's own engine with its key guard: what a user's constrained turn
   * runs) or "grammar" (the same engine, the grammar alone: GrammarChecker). Default: "qtc".
   */
  checker: "qtc" as CheckerId,
  /** A schema whose compile plus checks take longer than this counts as a timeout, in ms. Default: 60000. */
  timeoutMs: 60_000 as number,
});

/** Why a valid instance the grammar rejects is not a validation error of the grammar (see classify). */
export type Artefact = "over-budget" | "number-spelling" | "string-spelling" | "key-order" | "label";

export interface SchemaResult {
  file: string;
  status: "passing" | "compile-error" | "crash" | "timeout" | "validation-error" | "invalidation-error";
  code?: string;
  message?: string;
  ttfmMs?: number;
  tests: number;
  /** Valid instances rejected: real ones, and those explained as artefacts. */
  validRejected: number;
  artefacts: Partial<Record<Artefact, number>>;
  invalidAccepted: number;
  /** Invalid-labelled instances that ajv calls valid (a label dispute). */
  labelDisputes: number;
  maskUs: number[];
  /** The semantic keywords the schema uses (see maskbench-semantic.ts). */
  semantic?: SemanticKeyword[];
}

interface Test {
  valid: boolean;
  data: unknown;
}

function numbersFine(v: unknown): boolean {
  if (typeof v === "number") return Number.isFinite(v) && !/e/i.test(String(v)) && String(v).replace(/[-.]/g, "").length <= 15;
  if (Array.isArray(v)) return v.every(numbersFine);
  if (v && typeof v === "object") return Object.values(v).every(numbersFine);
  return true;
}

function stringsFine(v: unknown): boolean {
  // The grammar spells a string's control characters only as the 2-byte escapes; `\u00XX` is never admitted.
  if (typeof v === "string") return !/[\u0000-\u0007\u000b\u000e-\u001f\u007f]/.test(v) && !/[\ud800-\udfff]/.test(v.replace(/[\ud800-\udbff][\udc00-\udfff]/g, ""));
  if (Array.isArray(v)) return v.every(stringsFine);
  if (v && typeof v === "object") return Object.entries(v).every(([k, x]) => stringsFine(k) && stringsFine(x));
  return true;
}

/** Run one schema file. Never throws: an exception is a `crash`. */
export async function runSchemaFile(model: LlamaModel, engine: EngineTables | undefined, dir: string, file: string, o: typeof MASKBENCH_DEFAULTS): Promise<SchemaResult> {
  const base: SchemaResult = { file, status: "passing", tests: 0, validRejected: 0, artefacts: {}, invalidAccepted: 0, labelDisputes: 0, maskUs: [] };
  let doc: { schema: JsonSchema | boolean; tests?: Test[] };
  try {
    doc = JSON.parse(readFileSync(join(dir, file), "utf8"));
  } catch (e) {
    return { ...base, status: "crash", code: "unreadable", message: String(e).slice(0, 200) };
  }
  const tests = doc.tests ?? [];
  base.tests = tests.length;
  base.semantic = semanticKeywords(doc.schema);
  const t0 = performance.now();
  let checker: InstanceChecker;
  try {
    // The qtc checker holds uniqueItems with the runtime's guard, as a turn does; the grammar alone cannot.
    const compiled = compileSchema(doc.schema, { maxTokens: o.maxTokens, unsupported: o.unsupported, budgetSplit: o.budgetSplit, guardedUnique: o.checker === "qtc" });
    if (!compiled.ok) return { ...base, status: "compile-error", code: compiled.error.code, message: `${compiled.error.path ?? ""}: ${compiled.error.message}`.slice(0, 300) };
    checker = await createChecker(o.checker, model, engine, compiled.value);
  } catch (e) {
    // The runtime refuses this schema before a turn starts, as the compiler refuses others: not a crash.
    if (e instanceof QtcException && e.code === "schema_too_large") return { ...base, status: "compile-error", code: e.code, message: e.message.slice(0, 300) };
    return { ...base, status: "crash", code: "exception", message: (e instanceof Error ? e.message : String(e)).slice(0, 300) };
  }
  base.ttfmMs = performance.now() - t0;
  let judge: ((v: unknown) => unknown) | undefined;
  try {
    // `$async: true` makes ajv's validator return a promise that rejects (an unhandled rejection ended the run):
    // judge the same schema synchronously.
    judge = compileValueValidator(withoutAsync(doc.schema));
  } catch {
    judge = undefined;
  }
  for (const t of tests) {
    const text = schemaOrdered(t.data, doc.schema);
    const c0 = performance.now();
    const result = checker.checkText(text);
    const tokens = Math.max(1, model.tokenize(text, false).length);
    base.maskUs.push(((performance.now() - c0) * 1000) / tokens);
    const verdict = judge ? judge(t.data) : undefined;
    if (verdict instanceof Promise) verdict.catch(() => undefined);
    const ajvValid = judge && !(verdict instanceof Promise) ? verdict === null : undefined;
    if (t.valid && !result.accepted) {
      const why = classify(checker, t.data, text, o.maxTokens, ajvValid);
      if (why) base.artefacts[why] = (base.artefacts[why] ?? 0) + 1;
      else base.validRejected++;
    } else if (!t.valid && result.accepted) {
      if (ajvValid === true) base.labelDisputes++;
      else base.invalidAccepted++;
    }
  }
  const elapsed = performance.now() - t0;
  if (elapsed > o.timeoutMs) return { ...base, status: "timeout" };
  if (base.invalidAccepted > 0) return { ...base, status: "invalidation-error" };
  if (base.validRejected > 0) return { ...base, status: "validation-error" };
  return base;
}

/**
 * The schema as the judge compiles it: without `$async` at its root (ajv would compile an asynchronous validator)
 * and without a draft-04/06 `$schema` (qtc's validator refuses those drafts; judged as draft-07, which reads
 * their keywords alike, instead of leaving the instance unjudged — an unjudged invalid instance the grammar
 * accepted counted as accepted-invalid, e.g. `12345.0`, which JSON.parse reads as the integer 12345).
 */
function withoutAsync(schema: JsonSchema | boolean): JsonSchema | boolean {
  if (typeof schema !== "object" || schema === null) return schema;
  const { $async: _a, $schema, ...rest } = schema as Record<string, unknown>;
  const oldDraft = typeof $schema === "string" && /draft-0[346]\/schema/.test($schema);
  return (oldDraft ? withoutIds(rest) : $schema === undefined ? rest : { $schema, ...rest }) as JsonSchema;
}

/** A draft-04 document without its string `id`s (ajv refuses the keyword; only `$ref` resolution reads it). */
function withoutIds(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutIds);
  if (typeof v !== "object" || v === null) return v;
  return Object.fromEntries(Object.entries(v).filter(([k, x]) => !(k === "id" && typeof x === "string")).map(([k, x]) => [k, k === "enum" || k === "const" ? x : withoutIds(x)]));
}

/**
 * Why a valid instance was rejected, when it is not the grammar's fault: longer than the budget, numbers the
 * grammar spells differently (exponents, more than 15 digits), strings with control characters that only
 * `\u00XX` spells, keys in an order other than the schema's (the instance's own order is accepted), or ajv
 * calling the "valid" instance invalid. Undefined: a real validation error.
 */
function classify(checker: InstanceChecker, data: unknown, text: string, budget: number, ajvValid: boolean | undefined): Artefact | undefined {
  if (ajvValid === false) return "label";
  if (utf8Length(text) > Math.min(budget, 8192)) return "over-budget";
  if (!numbersFine(data)) return "number-spelling";
  if (!stringsFine(data)) return "string-spelling";
  const asGiven = canonicalJson(data);
  if (asGiven !== text && checker.checkText(asGiven).accepted) return "key-order";
  return undefined;
}

export interface MaskbenchSummary {
  schemas: number;
  passing: number;
  compileErrors: number;
  compileErrorsByCode: Record<string, number>;
  crashes: number;
  timeouts: number;
  /** Schemas with a valid instance rejected that no artefact explains. */
  validationErrors: number;
  invalidationErrors: number;
  /** Schemas whose only rejected valid instances are artefacts (counted as passing in `passing`). */
  artefactOnly: number;
  artefacts: Partial<Record<Artefact, number>>;
  labelDisputes: number;
  instances: { valid: number; invalid: number };
  ttfmMs: { p25: number; p50: number; p75: number; p90: number; p99: number; max: number };
  maskUs: { p50: number; p75: number; p90: number; p99: number; max: number };
  /** Schemas using each semantic keyword, and how many of them compiled. */
  semantic: SemanticCounts;
}

function pct(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export function summarize(results: readonly SchemaResult[]): MaskbenchSummary {
  const byCode: Record<string, number> = {};
  const artefacts: Partial<Record<Artefact, number>> = {};
  let artefactOnly = 0;
  for (const r of results) {
    if (r.status === "compile-error") byCode[r.code!] = (byCode[r.code!] ?? 0) + 1;
    for (const [k, v] of Object.entries(r.artefacts)) artefacts[k as Artefact] = (artefacts[k as Artefact] ?? 0) + v;
    if (r.status === "passing" && Object.keys(r.artefacts).length > 0) artefactOnly++;
  }
  const ttfm = results.filter((r) => r.ttfmMs !== undefined).map((r) => r.ttfmMs!).sort((a, b) => a - b);
  const mask = results.flatMap((r) => r.maskUs).sort((a, b) => a - b);
  const round = (x: number) => Math.round(x * 10) / 10;
  const count = (s: SchemaResult["status"]) => results.filter((r) => r.status === s).length;
  return {
    schemas: results.length,
    passing: count("passing"),
    compileErrors: count("compile-error"),
    compileErrorsByCode: byCode,
    crashes: count("crash"),
    timeouts: count("timeout"),
    validationErrors: count("validation-error"),
    invalidationErrors: count("invalidation-error"),
    artefactOnly,
    artefacts,
    labelDisputes: results.reduce((s, r) => s + r.labelDisputes, 0),
    instances: { valid: 0, invalid: 0 },
    ttfmMs: { p25: round(pct(ttfm, 25)), p50: round(pct(ttfm, 50)), p75: round(pct(ttfm, 75)), p90: round(pct(ttfm, 90)), p99: round(pct(ttfm, 99)), max: round(ttfm[ttfm.length - 1] ?? 0) },
    semantic: countSemantic(results),
    maskUs: { p50: round(pct(mask, 50)), p75: round(pct(mask, 75)), p90: round(pct(mask, 90)), p99: round(pct(mask, 99)), max: round(mask[mask.length - 1] ?? 0) },
  };
}

/** MaskBench's published figures (maskbench/README.md of jsonschemabench at MASKBENCH_SOURCE.commit). */
export const PUBLISHED = [
  { engine: "LLGuidance 0.7.10", passing: 8909, compileErrors: 2377, crashes: 0, validationErrors: 20, invalidationErrors: 0 },
  { engine: "XGrammar 0.1.17", passing: 8122, compileErrors: 90, crashes: 37, validationErrors: 1408, invalidationErrors: 1368 },
  { engine: "llama.cpp", passing: 6505, compileErrors: 1301, crashes: 0, validationErrors: 2850, invalidationErrors: 649 },
] as const;

/** MaskBench's table with qtc's row next to the published engines (Markdown). */
export function renderTable(s: MaskbenchSummary, label: string): string {
  const rows = [
    "| engine | passing | compile errors | crashes | timeouts | valid rejected (schemas) | invalid accepted (schemas) |",
    "|---|---:|---:|---:|---:|---:|---:|",
    `| ${label} | ${s.passing} | ${s.compileErrors} | ${s.crashes} | ${s.timeouts} | ${s.validationErrors} | ${s.invalidationErrors} |`,
    ...PUBLISHED.map((p) => `| ${p.engine} (published) | ${p.passing} | ${p.compileErrors} | ${p.crashes} | – | ${p.validationErrors} | ${p.invalidationErrors} |`),
  ];
  const codes = Object.entries(s.compileErrorsByCode).sort((a, b) => b[1] - a[1]).map(([c, n]) => `${c} ${n}`).join(", ");
  const arte = Object.entries(s.artefacts).map(([c, n]) => `${c} ${n}`).join(", ") || "none";
  return [
    ...rows,
    "",
    semanticLine(s.semantic ?? {}),
    "",
    `Schemas: ${s.schemas}. Compile errors by code: ${codes || "none"}. Passing includes ${s.artefactOnly} schemas whose only rejected valid instances are spelling artefacts (${arte} instances); invalid-labelled instances ajv calls valid (label disputes, not counted): ${s.labelDisputes}.`,
    `TTFM (compile + the checker's grammar load) ms: p25 ${s.ttfmMs.p25}, p50 ${s.ttfmMs.p50}, p75 ${s.ttfmMs.p75}, p90 ${s.ttfmMs.p90}, p99 ${s.ttfmMs.p99}, max ${s.ttfmMs.max}. Check time per token µs: p50 ${s.maskUs.p50}, p90 ${s.maskUs.p90}, p99 ${s.maskUs.p99}, max ${s.maskUs.max}.`,
  ].join("\n");
}
