// Owns: compiling tools (or one schema) into a frozen CompiledGrammar: options normalized once, schemas lowered,
// budgets derived from maxTokens, the envelope built from the format; plus the caller-owned compile cache.

import { err, fail, internal, ok, type QtcError, type Result } from "../errors.js";
import { resolveFormat } from "../formats/index.js";
import type { ToolCallFormat } from "../formats/types.js";
import { readParameters, typesOf } from "../tools/schema-info.js";
import { normalizeToolChoice } from "../tools/tool-choice.js";
import type { JsonSchema, ToolChoice, ToolDefinition } from "../tools/types.js";
import { utf8Length } from "./canonical-json.js";
import { bodyAround, blockOverhead, buildRoot, paramSpelling, tagWords, thinkingTokens, type ToolBody } from "./envelope.js";
import { literal, RuleSet } from "./gbnf.js";
import { deref, type Node } from "./schema-ir.js";
import { spellsOpenKeys } from "./open-keys.js";
import { uniquePlan, type UniquePlan } from "./unique-plan.js";
import { lowerSchema } from "./schema-policy.js";
import { constraintReport, type ConstraintSites, type ExtraMembersPolicy, newSites, type UnsupportedPolicy } from "./constraint-report.js";
import { pointer, unsupported } from "./schema-keywords.js";
import { type Emitted, EmitTooLarge, ValueEmitter } from "./schema-emit.js";
import type { BudgetSplit } from "./budget-share.js";
import { newSizeMeter, SCHEMA_LIMITS, type SizeMeter, tooLarge } from "./limits.js";
import { withAutomatonBudget } from "./regex-dfa.js";
import { unsatisfiable } from "./satisfiable.js";
import { StringPlanner } from "./string-plan.js";
import { bannedPrefixes, tagStarts, TextChains } from "./text-chain.js";
import {
  type CompiledGrammar,
  type CompiledSchema,
  GRAMMAR_DEFAULTS,
  GRAMMAR_PHASES,
  type GrammarPhase,
  type GrammarTool,
  SCHEMA_GRAMMAR_DEFAULTS,
  type SchemaGrammarOptions,
  type ToolGrammarOptions,
} from "./types.js";
import { isDeclarableToolName } from "../tools/names.js";
import { constraintKey, constraintRule, type TextConstraint } from "./answer-constraint.js";


interface Resolved {
  format: ToolCallFormat;
  toolChoice: ToolChoice;
  parallel: boolean;
  maxCalls: number;
  maxTokens: number;
  thinkingBudget?: number;
  prefaceShare: number;
  phase: GrammarPhase;
  answerSchema?: JsonSchema | boolean;
  answerConstraint?: TextConstraint;
  unsupported: UnsupportedPolicy;
  extraMembers: ExtraMembersPolicy;
  budgetSplit: BudgetSplit;
}

function policyOf(v: unknown, fallback: UnsupportedPolicy): UnsupportedPolicy {
  const p = v ?? fallback;
  if (p !== "strict" && p !== "validate") fail("invalid_option", `unsupported must be "strict" or "validate", got ${String(p)}`);
  return p;
}

function splitOf(v: unknown, fallback: BudgetSplit): BudgetSplit {
  const p = v ?? fallback;
  if (p !== "worst-case" && p !== "shared") fail("invalid_option", `budgetSplit must be "worst-case" or "shared", got ${String(p)}`);
  return p;
}

function extraOf(v: unknown, fallback: ExtraMembersPolicy): ExtraMembersPolicy {
  const p = v ?? fallback;
  if (p !== "closed" && p !== "schema") fail("invalid_option", `extraMembers must be "closed" or "schema", got ${String(p)}`);
  return p;
}

/** Check and complete options (bad values are caller errors: they throw QtcException `invalid_option`). */
function resolveOptions(o: ToolGrammarOptions): Resolved {
  const format = resolveFormat(o.format ?? GRAMMAR_DEFAULTS.format);
  const maxTokens = o.maxTokens ?? GRAMMAR_DEFAULTS.maxTokens;
  if (!Number.isInteger(maxTokens) || maxTokens < 1) fail("invalid_option", `maxTokens must be a whole number ≥ 1, got ${maxTokens}`);
  const parallel = o.parallel ?? GRAMMAR_DEFAULTS.parallel;
  const maxCalls = parallel ? (o.maxCalls ?? GRAMMAR_DEFAULTS.maxCalls) : 1;
  if (!Number.isInteger(maxCalls) || maxCalls < 1 || maxCalls > 1000) fail("invalid_option", `maxCalls must be a whole number from 1 to 1000, got ${maxCalls}`);
  const phase = o.phase ?? GRAMMAR_DEFAULTS.phase;
  if (!GRAMMAR_PHASES.includes(phase)) fail("invalid_option", `phase must be ${GRAMMAR_PHASES.map((p) => `"${p}"`).join(", ")}, got ${String(phase)}`);
  if (phase === "after-bare-open" && format.bareBlock === undefined) fail("invalid_option", `format "${format.id}" has no bare call opener`);
  const thinking = phase === "start" && (o.thinking ?? GRAMMAR_DEFAULTS.thinking);
  const share = o.thinkingShare ?? GRAMMAR_DEFAULTS.thinkingShare;
  const thinkingBudget = thinking ? (o.thinkingBudget ?? Math.floor(maxTokens * share)) : undefined;
  if (thinkingBudget !== undefined && (!Number.isInteger(thinkingBudget) || thinkingBudget < 0)) {
    fail("invalid_option", `thinkingBudget must be a whole number ≥ 0, got ${thinkingBudget}`);
  }
  const prefaceShare = o.prefaceShare ?? GRAMMAR_DEFAULTS.prefaceShare;
  if (!(prefaceShare >= 0 && prefaceShare < 1)) fail("invalid_option", `prefaceShare must be from 0 to below 1, got ${prefaceShare}`);
  const toolChoice = o.toolChoice ?? GRAMMAR_DEFAULTS.toolChoice;
  const answerSchema = phase === "start" ? o.answerSchema : undefined;
  const answerConstraint = phase === "start" ? o.answerConstraint : undefined;
  const unsupported = policyOf(o.unsupported, GRAMMAR_DEFAULTS.unsupported);
  const extraMembers = extraOf(o.extraMembers, GRAMMAR_DEFAULTS.extraMembers);
  const budgetSplit = splitOf(o.budgetSplit, GRAMMAR_DEFAULTS.budgetSplit);
  return { format, toolChoice, parallel, maxCalls, maxTokens, thinkingBudget, prefaceShare, phase, answerSchema, answerConstraint, unsupported, extraMembers, budgetSplit };
}

function optionsKey(r: Resolved): string {
  return JSON.stringify([r.format.id, r.format, r.toolChoice, r.maxCalls, r.maxTokens, r.thinkingBudget ?? null, r.prefaceShare, r.phase, r.answerSchema ?? null, r.answerConstraint ? constraintKey(r.answerConstraint) : null, r.unsupported, r.extraMembers, r.budgetSplit]);
}

/** A body's leading text after the format's bare opener (the opener is already written). */
function bareRest(before: string, f: ToolCallFormat): string {
  const opener = f.bareBlock?.open ?? "";
  if (!before.startsWith(opener)) internal(`format "${f.id}": a body does not start with its bare opener`);
  return before.slice(opener.length);
}

/** The parts one compile shares: rules, text chains, the emitter. */
function workspace(format: ToolCallFormat, split: BudgetSplit) {
  const rules = new RuleSet();
  const banned = bannedPrefixes(tagWords(format));
  const json = new TextChains(rules, "json", banned);
  const raw = new TextChains(rules, "raw", banned);
  const starts = tagStarts(banned);
  const planner = new StringPlanner(starts);
  const emitter = new ValueEmitter({ rules, json, raw, planner, uncounted: split === "shared" }, split);
  return { rules, json, raw, emitter, starts };
}

/** Refuse names and literals that would spell a tag of the format (the parser would cut the call there). */
function checkTags(root: Node, words: readonly string[], xmlParams: boolean): QtcError | undefined {
  const hasTag = (s: string) => words.some((w) => s.includes(w));
  // Each node once at the top and once below it: a union that is its own option (`anyOf: [{$ref: "#"}, …]`) stays
  // at the top, and recursed there without end.
  const seen = new Set<string>();
  const deepStrings = (v: unknown): string[] =>
    typeof v === "string" ? [v] : Array.isArray(v) ? v.flatMap(deepStrings) : v && typeof v === "object" ? Object.entries(v).flatMap(([k, x]) => [k, ...deepStrings(x)]) : [];
  const visit = (n: Node, top: boolean): QtcError | undefined => {
    const key = `${n.id}:${top}`;
    if (seen.has(key)) return undefined;
    seen.add(key);
    switch (n.k) {
      case "ref":
        return visit(n.target!, top);
      case "literal":
        if (n.values.some((v) => deepStrings(v).some(hasTag))) return unsupported(n.path, "an enum/const value spells a tool-call tag");
        return undefined;
      case "union":
        for (const o of n.options) {
          const e = visit(o, top);
          if (e) return e;
        }
        return undefined;
      case "array":
        for (const c of [...n.prefix, ...(n.items ? [n.items] : [])]) {
          const e = visit(c, false);
          if (e) return e;
        }
        return undefined;
      case "object":
        for (const p of n.props) {
          if (hasTag(p.name)) return unsupported(pointer(n.path, "properties", p.name), `property name "${p.name}" spells a tool-call tag`);
          if (top && xmlParams && !/^[^\s<>]+$/.test(p.name)) {
            return unsupported(pointer(n.path, "properties", p.name), `property name "${p.name}" cannot be a qwen3coder parameter name (no spaces, "<" or ">")`);
          }
          const e = visit(p.node, false);
          if (e) return e;
        }
        for (const x of n.patternKeys ?? []) {
          const e = visit(x.value, false);
          if (e) return e;
        }
        return n.extra ? visit(n.extra, false) : undefined;
      default:
        return undefined;
    }
  };
  return visit(root, true);
}

/**
 * The part of a node that `part` keeps of each non-union node it stands for, through unions (kept options in
 * order, the essential ones still first). A union met again inside itself adds nothing (`anyOf: [{$ref: "#"}, …]`
 * recursed without end). Undefined when nothing is kept.
 */
function partOf(n: Node, ids: { next: number }, part: (d: Node, n: Node) => Node | undefined, seen = new Set<number>()): Node | undefined {
  const d = deref(n);
  if (d.k !== "union") return part(d, n);
  if (seen.has(d.id)) return undefined;
  seen.add(d.id);
  const kept = d.options.map((o) => partOf(o, ids, part, seen));
  seen.delete(d.id);
  const options = kept.filter((o): o is Node => o !== undefined);
  if (options.length === 0) return undefined;
  const essential = d.essential === undefined ? {} : { essential: kept.slice(0, d.essential).filter((o) => o !== undefined).length };
  return { ...d, id: ids.next++, options, ...essential };
}

/** A literal's values that `keep` admits (the node itself when all are); undefined when none is. */
function literalPart(d: Node & { k: "literal" }, n: Node, keep: (v: unknown) => boolean, ids: { next: number }): Node | undefined {
  const values = d.values.filter(keep);
  return values.length === 0 ? undefined : values.length === d.values.length ? n : { ...d, id: ids.next++, values };
}

/** The object-valued part of a node (arguments must be an object); undefined when it has none. */
export function objectsOnly(n: Node, ids: { next: number }): Node | undefined {
  const isObject = (v: unknown) => v !== null && typeof v === "object" && !Array.isArray(v);
  return partOf(n, ids, (d, node) => (d.k === "object" ? node : d.k === "literal" ? literalPart(d, node, isObject, ids) : undefined));
}

/** The string-valued part of a node; undefined when it has none. */
function stringsOnly(n: Node, ids: { next: number }): Node | undefined {
  return partOf(n, ids, (d, node) => (d.k === "string" ? node : d.k === "literal" ? literalPart(d, node, (v) => typeof v === "string", ids) : undefined));
}

/**
 * qwen3coder reads a parameter whose schema allows strings as its raw text, never as JSON (see the parser's
 * typeXmlValue): such a parameter may only be written as a string, so its other alternatives are dropped.
 */
export function xmlTyped(args: Node, schema: JsonSchema, ids: { next: number }): Node | undefined {
  const info = readParameters(schema);
  const rawString = (name: string) => isRawParam(schema, info.properties.get(name) ?? info.extraSchema);
  return partOf(args, ids, (d, node) => {
    if (d.k !== "object") return node;
    const props = [];
    for (const p of d.props) {
      const value = rawString(p.name) ? stringsOnly(p.node, ids) : p.node;
      if (value) props.push(value === p.node ? p : { ...p, node: value });
      else if (p.required) return undefined;
    }
    const extraTypes = d.extra ? typesOf(schema, info.extraSchema) : "any";
    const extra = d.extra && extraTypes !== "any" && extraTypes.has("string") ? (stringsOnly(d.extra, ids) ?? null) : d.extra;
    return { ...d, id: ids.next++, props, extra };
  });
}

/**
 * Tag-spelled arguments write at most one parameter not listed in `properties` (a repeated name is an error
 * there), so a minimum of extra or pattern members at the top cannot be spelled at any budget: refused as what it
 * is, not as a budget too small.
 */
function extraParamsNeeded(args: Node, f: ToolCallFormat): QtcError | undefined {
  const top = deref(args);
  if (top.k !== "object" || !top.minExtra) return undefined;
  const more = `${top.minExtra} parameter${top.minExtra > 1 ? "s" : ""}`;
  return unsupported("/minProperties", `minProperties needs ${more} beyond those listed in properties, and the ${f.id} format cannot require parameters that are not listed (it writes at most one, and only optionally); list them in properties, or use the hermes format`);
}

/** Whether a parameter of this schema is written as raw text (its schema allows strings), not as JSON. */
function isRawParam(schema: JsonSchema, param: JsonSchema | undefined): boolean {
  const t = typesOf(schema, param);
  return t !== "any" && t.has("string");
}

/** How a tag-spelled call writes each parameter's value: JSON or raw text (see GrammarTool.params). */
function paramValues(schema: JsonSchema): GrammarTool["params"] {
  const info = readParameters(schema);
  const names = [...info.properties.keys()];
  const raw = names.filter((name) => isRawParam(schema, info.properties.get(name)));
  return { json: names.filter((name) => !raw.includes(name)), raw, extraJson: !isRawParam(schema, info.extraSchema) };
}

function toolError(tool: string, e: QtcError): QtcError {
  return { ...e, message: `tool "${tool}": ${e.message}` };
}

/** Compile tools into one grammar for a format, tool choice and budget (see ToolGrammarOptions). */
export function compileToolGrammar(tools: readonly ToolDefinition[], options: ToolGrammarOptions = {}): Result<CompiledGrammar> {
  return compileResolved(tools, resolveOptions(options));
}

/** Emit work over its limit surfaces as a thrown EmitTooLarge; the compiler's callers get a Result. */
function boundedWork<T>(run: () => Result<T>): Result<T> {
  try {
    const { value, ranOut } = withAutomatonBudget(SCHEMA_LIMITS.maxAutomatonWork, run);
    // A form refused for want of an automaton is an unsupported keyword; other refusals have other causes.
    if (!ranOut || value.ok || value.error.code !== "unsupported_keyword") return value;
    const why = `the patterns of this compile used up the ${SCHEMA_LIMITS.maxAutomatonWork.toLocaleString("en-US")} units of automaton work one compile has (each alone may fit): split the tools or schema, or simplify its patterns`;
    return err({ ...value.error, message: `${value.error.message}; ${why}` });
  } catch (e) {
    if (!(e instanceof EmitTooLarge)) throw e;
    return err(tooLarge(e.path, `the schema needs more than ${SCHEMA_LIMITS.maxEmitSteps} steps to compile; simplify it (fewer alternatives, less nesting, shorter patterns)`));
  }
}

function compileResolved(tools: readonly ToolDefinition[], o: Resolved): Result<CompiledGrammar> {
  return boundedWork(() => compileWithin(tools, o));
}

function compileWithin(tools: readonly ToolDefinition[], o: Resolved): Result<CompiledGrammar> {
  const f = o.format;
  const { rules, raw, emitter, starts } = workspace(f, o.budgetSplit);
  const words = tagWords(f);
  const normalized = normalizeToolChoice(tools, o.toolChoice);
  if (!normalized.ok) return err({ code: normalized.error.code, message: normalized.error.message });
  const choice = normalized.value;
  const selected = choice === "none" ? [] : typeof choice === "object" ? tools.filter((t) => t.name === choice.name) : tools;
  const mode = choice === "none" ? "text" : choice === "auto" ? "auto" : "calls";
  // Budgets in bytes, capped: past maxBudgetBytes a larger grammar would buy nothing but compile time.
  const budget = Math.min(o.maxTokens, SCHEMA_LIMITS.maxBudgetBytes);
  const thinkingBudget = o.thinkingBudget === undefined ? undefined : Math.min(o.thinkingBudget, SCHEMA_LIMITS.maxBudgetBytes);
  const thinkCost = thinkingBudget === undefined ? 0 : thinkingTokens(thinkingBudget);
  const preface = mode === "auto" && o.phase === "start" ? Math.floor(budget * o.prefaceShare) : 0;
  const callSpace = budget - thinkCost - preface - utf8Length(f.blockSeparator);
  const ids = { next: 0 };
  const meter = newSizeMeter();
  const sites = newSites();
  const bodies: ToolBody[] = [];
  const info: GrammarTool[] = [];
  for (const tool of selected) {
    if (!isDeclarableToolName(tool.name)) return err({ code: "invalid_tools", message: `tool name "${tool.name}" is not a valid function name` });
    const hint = `tool-${tool.name}-args`;
    // The engine's matcher holds uniqueItems in every tool call through its semantic state (src/engine/semantic/).
    const lowered = lowerSchema(tool.parameters as JsonSchema, hint, ids, meter, { policy: o.unsupported, extraMembers: o.extraMembers, sites, tool: tool.name, guardedUnique: true, tagStarts: starts });
    if (!lowered.ok) return err(toolError(tool.name, lowered.error));
    // Arguments spelled as tags are read by the parameter tags' rules: their names and raw strings (see xmlTyped).
    const taggedParams = paramSpelling(f) !== undefined;
    const tagError = checkTags(lowered.value, words, taggedParams);
    if (tagError) return err(toolError(tool.name, tagError));
    const objects = objectsOnly(lowered.value, ids);
    const args = objects && taggedParams ? xmlTyped(objects, tool.parameters as JsonSchema, ids) : objects;
    if (!args) return err(toolError(tool.name, { code: "invalid_schema", message: "parameters must describe a JSON object (that qwen3coder can spell)", path: "" }));
    const never = unsatisfiable(args, emitter.costs);
    if (never) return err(toolError(tool.name, never));
    const unspellable = taggedParams ? extraParamsNeeded(args, f) : undefined;
    if (unspellable) return err(toolError(tool.name, unspellable));
    const around = bodyAround(f, tool.name);
    const fixed = blockOverhead(f) + utf8Length(around.before) + utf8Length(around.after);
    const spelling = paramSpelling(f);
    const space = callSpace - fixed;
    const value = space < 0 ? undefined : spelling ? emitter.emitParams(args, space, spelling) : emitter.emit(args, space);
    if (!value) {
      info.push({ name: tool.name, worstCaseTokens: undefined });
      continue;
    }
    const body = rules.add(`tool-${tool.name}-call`, `${literal(around.before)} ${value.expr} ${literal(around.after)}`);
    // After a bare opener the body goes on from the text that follows the opener.
    const bare = o.phase === "after-bare-open" ? bareRest(around.before, f) : undefined;
    const bareExpr = bare === undefined ? undefined : rules.add(`tool-${tool.name}-bare`, `${literal(bare)} ${value.expr} ${literal(around.after)}`);
    bodies.push({ name: tool.name, expr: body, bareExpr });
    const unique = uniquePlan(args);
    const openKeys = spellsOpenKeys(args);
    info.push({ name: tool.name, worstCaseTokens: fixed + value.worst, ...(taggedParams ? { params: paramValues(tool.parameters as JsonSchema) } : {}), ...(unique ? { unique } : {}), ...(openKeys ? { openKeys } : {}) });
  }
  if ((mode === "calls" || (mode === "auto" && o.phase !== "start")) && bodies.length === 0) {
    return err({ code: "budget_too_small", message: `maxTokens ${o.maxTokens} is too small for even the shortest call of ${selected.map((t) => `"${t.name}"`).join(", ") || "any tool"}` });
  }
  const worstCall = Math.max(0, ...info.map((t) => t.worstCaseTokens ?? 0));
  const worstCaseCallTokens = bodies.length === 0 ? 0 : worstCall + utf8Length(f.blockSeparator);
  const textBudget = Math.max(0, budget - thinkCost);
  let answer: string | undefined;
  if (o.answerSchema !== undefined && mode !== "calls") {
    const value = answerValue(o.answerSchema, textBudget, emitter, words, ids, meter, o.unsupported, sites);
    if (!value.ok) return value;
    answer = value.value;
  }
  if (o.answerConstraint !== undefined && mode !== "calls") {
    const rule = constraintRule(rules, o.answerConstraint, textBudget);
    if (!rule.ok) return rule;
    answer = rule.value;
  }
  const root = buildRoot(rules, raw, {
    format: f,
    phase: o.phase,
    mode,
    bodies,
    maxCalls: o.maxCalls,
    textBudget,
    // Under the shared split a call's worst case may exceed the budget (the guard closes it): text keeps its share.
    prefaceBudget: o.budgetSplit === "shared" ? preface : Math.max(0, textBudget - worstCaseCallTokens),
    thinkingBudget,
    answer,
  });
  const { text: gbnf, rules: ruleCount } = rules.print(root);
  return ok(
    Object.freeze({
      gbnf,
      rootRule: "root" as const,
      format: f.id,
      toolChoice: choice,
      phase: o.phase,
      parallel: o.parallel,
      maxCalls: o.maxCalls,
      maxTokens: o.maxTokens,
      worstCaseCallTokens,
      thinkingTokens: thinkCost,
      tools: Object.freeze(info.map((t) => Object.freeze(t))),
      omittedTools: Object.freeze(info.filter((t) => t.worstCaseTokens === undefined).map((t) => t.name)),
      triggerToken: f.open.token,
      closeToken: f.close.token,
      specialTokens: Object.freeze(namedTokens(gbnf)),
      valueClosers: Object.freeze([...f.valueClosers]),
      stats: Object.freeze({ rules: ruleCount, bytes: utf8Length(gbnf) }),
      constraint: constraintReport(gbnf, o.unsupported, o.extraMembers, sites, o.budgetSplit),
      budgetSplit: o.budgetSplit,
    }),
  );
}

/**
 * The special tokens a printed grammar names, in order of first use. Read off the text the printer wrote, so
 * the list can never drift from what the envelope puts in.
 */
function namedTokens(gbnf: string): number[] {
  const ids = new Set<number>();
  for (const m of gbnf.matchAll(/<\[(\d+)\]>/g)) ids.add(Number(m[1]));
  return [...ids];
}

/** A JSON answer that fits `schema` within `maxBytes`, in a tool grammar's rules (errors name the response schema). */
function answerValue(
  schema: JsonSchema | boolean,
  maxBytes: number,
  emitter: ValueEmitter,
  words: readonly string[],
  ids: { next: number },
  meter: SizeMeter,
  policy: UnsupportedPolicy,
  sites: ConstraintSites,
): Result<string> {
  const value = emitSchemaValue(schema, maxBytes, emitter, words, "answer", ids, meter, policy, sites);
  if (!value.ok) return err({ ...value.error, message: `response schema: ${value.error.message}` });
  if (!value.value) return err({ code: "budget_too_small", message: "maxTokens is too small for the shortest JSON answer the response schema admits" });
  return ok(value.value.expr);
}

/** Lower `schema`, refuse tag spellings, and emit its value within `maxBytes` (undefined when none fits). */
function emitSchemaValue(
  schema: JsonSchema | boolean,
  maxBytes: number,
  emitter: ValueEmitter,
  words: readonly string[],
  hint: string,
  ids: { next: number } | undefined,
  meter: SizeMeter,
  policy: UnsupportedPolicy,
  sites: ConstraintSites,
  extraMembers: ExtraMembersPolicy = "schema",
  guardedUnique = false,
): Result<(Emitted & { unique?: UniquePlan }) | undefined> {
  const lowered = lowerSchema(schema, hint, ids, meter, { policy, extraMembers, sites, guardedUnique, tagStarts: tagStarts(bannedPrefixes(words)) });
  if (!lowered.ok) return lowered;
  const tagError = checkTags(lowered.value, words, false);
  if (tagError) return err(tagError);
  const never = unsatisfiable(lowered.value, emitter.costs);
  if (never) return err(never);
  const emitted = emitter.emit(lowered.value, maxBytes);
  const unique = guardedUnique ? uniquePlan(lowered.value) : undefined;
  return ok(emitted && unique ? { ...emitted, unique } : emitted);
}

/**
 * Worst-case tokens of one more call for these tools and options (the separator before it included): what the
 * runtime compares with the budget left before it lets the model open another call.
 */
export function worstCaseCallTokens(tools: readonly ToolDefinition[], options: ToolGrammarOptions = {}): Result<number> {
  const compiled = compileToolGrammar(tools, options);
  return compiled.ok ? ok(compiled.value.worstCaseCallTokens) : compiled;
}

/** A grammar for one JSON value that fits `schema` (canonical spelling), within maxTokens. */
export function compileSchema(schema: JsonSchema | boolean, options: SchemaGrammarOptions = {}): Result<CompiledSchema> {
  const format = resolveFormat(options.format ?? GRAMMAR_DEFAULTS.format);
  const maxTokens = options.maxTokens ?? GRAMMAR_DEFAULTS.maxTokens;
  if (!Number.isInteger(maxTokens) || maxTokens < 1) fail("invalid_option", `maxTokens must be a whole number ≥ 1, got ${maxTokens}`);
  const policy = policyOf(options.unsupported, SCHEMA_GRAMMAR_DEFAULTS.unsupported);
  const extraMembers = extraOf(options.extraMembers, SCHEMA_GRAMMAR_DEFAULTS.extraMembers);
  const budgetSplit = splitOf(options.budgetSplit, SCHEMA_GRAMMAR_DEFAULTS.budgetSplit);
  const { rules, emitter } = workspace(format, budgetSplit);
  const budget = Math.min(maxTokens, SCHEMA_LIMITS.maxBudgetBytes);
  const sites = newSites();
  const emitted = boundedWork(() => emitSchemaValue(schema, budget, emitter, tagWords(format), "value", undefined, newSizeMeter(), policy, sites, extraMembers, options.guardedUnique === true));
  if (!emitted.ok) return emitted;
  const value = emitted.value;
  if (!value) return err({ code: "budget_too_small", message: `maxTokens ${maxTokens} is too small for the shortest value of the schema` });
  const { text: gbnf, rules: ruleCount } = rules.print(value.expr);
  return ok(
    Object.freeze({
      gbnf,
      rootRule: "root" as const,
      maxTokens,
      worstCaseTokens: value.worst,
      stats: Object.freeze({ rules: ruleCount, bytes: utf8Length(gbnf) }),
      constraint: constraintReport(gbnf, policy, extraMembers, sites, budgetSplit),
      budgetSplit,
      ...(value.unique ? { unique: value.unique } : {}),
    }),
  );
}

/**
 * Compile once, run many: a cache the caller owns. Results are keyed by the tools array (held weakly) and the
 * options, so per-request option changes (such as the budget left) compile only once each. Each tools list keeps
 * its `perTools` most recently used option sets: the budget left varies per turn, and a long-lived tools list
 * must not collect one grammar per budget.
 */
export class GrammarCache {
  private readonly byTools = new WeakMap<readonly ToolDefinition[], Map<string, Result<CompiledGrammar>>>();
  /** Compiled grammars whose evaluation cost was checked already (the check reads the whole GBNF). */
  readonly costChecked = new WeakSet<CompiledGrammar>();

  constructor(private readonly perTools = 64) {}

  compile(tools: readonly ToolDefinition[], options: ToolGrammarOptions = {}): Result<CompiledGrammar> {
    const resolved = resolveOptions(options);
    let entries = this.byTools.get(tools);
    if (!entries) this.byTools.set(tools, (entries = new Map()));
    const key = optionsKey(resolved);
    let result = entries.get(key);
    if (result) entries.delete(key);
    else result = compileResolved(tools, resolved);
    if (entries.size >= this.perTools) entries.delete(entries.keys().next().value as string);
    entries.set(key, result);
    return result;
  }
}
