// Owns: compileXgrammar, the tools' grammar in xgrammar's EBNF dialect (what vLLM's `structured_outputs.grammar`
// and SGLang's `ebnf` take), from the same value tree and format definition as the GBNF: the call envelope with
// tags as text (0.1.27 has no token terminals), `TagDispatch` for tool choice auto, and no unrolled byte budgets.

import { err, fail, ok, type Result } from "../errors.js";
import { resolveFormat } from "../formats/index.js";
import type { ToolCallFormat } from "../formats/types.js";
import { normalizeToolChoice } from "../tools/tool-choice.js";
import type { JsonSchema, ToolChoice, ToolDefinition } from "../tools/types.js";
import { utf8Length } from "./canonical-json.js";
import { compileSchema, compileToolGrammar, objectsOnly, xmlTyped } from "./compile.js";
import { RuleSet } from "./gbnf.js";
import { newSites } from "./constraint-report.js";
import { lowerSchema } from "./schema-policy.js";
import type { Node } from "./schema-nodes.js";
import { GRAMMAR_DEFAULTS, SCHEMA_GRAMMAR_DEFAULTS, type SchemaGrammarOptions, type ToolGrammarOptions } from "./types.js";
import { XG_MAX_UNROLL, type XgLeftToValidator, xgLiteral, XgValuePrinter } from "./xgrammar-values.js";

/** The grammar dialects `qtc grammar --dialect` prints. */
export const GRAMMAR_DIALECTS = ["gbnf", "xgrammar"] as const;
export type GrammarDialect = (typeof GRAMMAR_DIALECTS)[number];

/** The tools' grammar in xgrammar's dialect. */
export interface XgrammarGrammar {
  /** EBNF text for xgrammar (`root` is the start rule). */
  readonly ebnf: string;
  readonly rootRule: "root";
  readonly format: string;
  readonly toolChoice: ToolChoice;
  /** Under tool choice auto the root is `TagDispatch` on the open tag: free text, each call constrained. */
  readonly dispatch: boolean;
  /** Most calls the grammar admits (undefined under a looping `TagDispatch`, which admits any number). */
  readonly maxCalls: number | undefined;
  /**
   * Bounds the grammar does not hold (string lengths, item counts past XG_MAX_UNROLL, extra keys): the
   * post-parser's validator judges them, as it judges every call.
   */
  readonly leftToValidator: readonly XgLeftToValidator[];
  /** The GBNF compile's worst-case tokens of one call: what a remote engine's up-front budget check uses. */
  readonly gbnfWorstCaseCallTokens: number;
  readonly stats: { readonly rules: number; readonly bytes: number };
}

/**
 * Compile tools into xgrammar's dialect. Every refusal of the GBNF compiler holds here too (the GBNF compile runs
 * first, with the same options): a schema qtc cannot honour, a tag spelled by a name, a budget no call fits.
 * Thinking is refused (`invalid_option`): under auto it is free text before `TagDispatch`'s trigger anyway.
 */
export function compileXgrammar(tools: readonly ToolDefinition[], options: ToolGrammarOptions = {}): Result<XgrammarGrammar> {
  if (options.thinking) fail("invalid_option", "the xgrammar dialect has no thinking phase; under tool choice auto thinking is free text before the first call");
  if ((options.phase ?? "start") !== "start") fail("invalid_option", "the xgrammar dialect compiles phase start only (its engines have no lazy grammar)");
  if (options.answerSchema !== undefined) fail("invalid_option", "the xgrammar dialect does not take a response schema yet");
  const gbnf = compileToolGrammar(tools, options);
  if (!gbnf.ok) return gbnf;
  const format = resolveFormat(options.format ?? GRAMMAR_DEFAULTS.format);
  const choice = normalizeToolChoice(tools, options.toolChoice ?? GRAMMAR_DEFAULTS.toolChoice);
  if (!choice.ok) return err({ code: choice.error.code, message: choice.error.message });
  const rules = new RuleSet();
  const printer = new XgValuePrinter(rules);
  const included = tools.filter((t) => gbnf.value.tools.some((g) => g.name === t.name && g.worstCaseTokens !== undefined));
  const bodies: string[] = [];
  const ids = { next: 0 };
  for (const tool of included) {
    const args = toolArgs(tool, format, options, ids);
    if (!args.ok) return args;
    bodies.push(rules.add(`tool-${tool.name}-call`, callBody(printer, format, tool.name, args.value)));
  }
  const parallel = options.parallel ?? GRAMMAR_DEFAULTS.parallel;
  const maxCalls = parallel ? (options.maxCalls ?? GRAMMAR_DEFAULTS.maxCalls) : 1;
  const root = rootOf(rules, format, choice.value, bodies, maxCalls);
  const { text, rules: count } = rules.print(root.expr);
  const leftToValidator = [...printer.leftToValidator];
  if ((root.dispatch && maxCalls > 1) || maxCalls > XG_MAX_UNROLL) leftToValidator.push({ keyword: "maxCalls", path: "" });
  return ok(
    Object.freeze({
      ebnf: text,
      rootRule: "root" as const,
      format: format.id,
      toolChoice: choice.value,
      dispatch: root.dispatch,
      maxCalls: root.dispatch && maxCalls > 1 ? undefined : maxCalls,
      leftToValidator: Object.freeze(leftToValidator),
      gbnfWorstCaseCallTokens: gbnf.value.worstCaseCallTokens,
      stats: Object.freeze({ rules: count, bytes: utf8Length(text) }),
    }),
  );
}

/** One JSON value that fits `schema`, in xgrammar's dialect (compileSchema's refusals hold: it runs first). */
export function compileXgrammarSchema(schema: JsonSchema | boolean, options: SchemaGrammarOptions = {}): Result<{ ebnf: string; leftToValidator: readonly XgLeftToValidator[] }> {
  const gbnf = compileSchema(schema, options);
  if (!gbnf.ok) return gbnf;
  const lowered = lowerSchema(schema, "value", { next: 0 }, undefined, {
    policy: options.unsupported ?? SCHEMA_GRAMMAR_DEFAULTS.unsupported,
    extraMembers: options.extraMembers ?? SCHEMA_GRAMMAR_DEFAULTS.extraMembers,
    sites: newSites(),
    guardedUnique: options.guardedUnique === true,
  });
  if (!lowered.ok) return lowered;
  const rules = new RuleSet();
  const printer = new XgValuePrinter(rules);
  const root = printer.value(lowered.value);
  return ok({ ebnf: rules.print(root).text, leftToValidator: [...printer.leftToValidator] });
}

/** The tool's arguments as the value tree, lowered under the same policy as the GBNF compile (`ids` shared by all tools: the printer keys rules by node id). */
function toolArgs(tool: ToolDefinition, format: ToolCallFormat, o: ToolGrammarOptions, ids: { next: number }): Result<Node> {
  const lowered = lowerSchema(tool.parameters as JsonSchema, `tool-${tool.name}-args`, ids, undefined, {
    policy: o.unsupported ?? GRAMMAR_DEFAULTS.unsupported,
    extraMembers: o.extraMembers ?? GRAMMAR_DEFAULTS.extraMembers,
    sites: newSites(),
    tool: tool.name,
    guardedUnique: true,
  });
  if (!lowered.ok) return lowered;
  const objects = objectsOnly(lowered.value, ids);
  const args = objects && format.parameterTags() ? xmlTyped(objects, tool.parameters as JsonSchema, ids) : objects;
  // The GBNF compile accepted these arguments, so an object part exists.
  return args ? ok(args) : err({ code: "invalid_schema", message: `tool "${tool.name}": parameters must describe a JSON object`, path: "" });
}

/** The block's body between the framing newlines: JSON call or `<function=…>` with parameter tags. */
function callBody(printer: XgValuePrinter, format: ToolCallFormat, name: string, args: Node): string {
  const around = format.bodyAround(name);
  const tags = format.parameterTags();
  const value = tags ? printer.params(args, tags) : printer.value(args);
  return `${xgLiteral(around.before)} ${value} ${xgLiteral(around.after)}`;
}

/** The root: calls only (required/named), free text with calls dispatched on the open tag (auto), or text (none). */
function rootOf(rules: RuleSet, f: ToolCallFormat, choice: ToolChoice, bodies: readonly string[], maxCalls: number): { expr: string; dispatch: boolean } {
  const text = rules.add("xg-free-text", `[^<]*`);
  if (choice === "none" || bodies.length === 0) return { expr: text, dispatch: false };
  const body = bodies.length === 1 ? bodies[0]! : rules.add("call-body", bodies.join(" | "));
  // After the open tag: framing, body, framing, close tag (tags are text: 0.1.27 has no token terminals).
  const afterOpen = rules.add("call-rest", `${xgLiteral(f.framing)} ${body} ${xgLiteral(f.framing + f.close.text)}`);
  // One call at most: the dispatch ends the output after it (0.1.27's `loop_after_dispatch`).
  if (choice === "auto") return { expr: `TagDispatch((${xgLiteral(f.open.text)}, ${afterOpen})${maxCalls <= 1 ? ", loop_after_dispatch=false" : ""})`, dispatch: true };
  const call = rules.add("call", `${xgLiteral(f.open.text)} ${afterOpen}`);
  if (maxCalls <= 1) return { expr: call, dispatch: false };
  const sep = xgLiteral(f.blockSeparator);
  // Up to XG_MAX_UNROLL calls as nested optionals; more is left to max_tokens (rule repetition masks slowly).
  let rest = "";
  if (maxCalls > XG_MAX_UNROLL) rest = `(${sep} ${call})*`;
  else for (let i = maxCalls - 1; i >= 1; i--) rest = `(${sep} ${call}${rest ? " " + rest : ""})?`;
  return { expr: rules.add("calls", `${call} ${rest}`), dispatch: false };
}
