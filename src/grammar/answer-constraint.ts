// Owns: a caller's constraint on the text answer (`{regex}`, `{choice}`, `{grammar}`; `{jsonSchema}` goes the
// response schema's way): its shape and bounds checked before any work, the GBNF rule the envelope puts where
// free text would be, and the one judge of an answer against it, whichever mode produced the answer.

import { err, ok, type QtcError, type Result } from "../errors.js";
import { linearRegExp } from "../tools/linear-regexp.js";
import type { JsonSchema } from "../tools/types.js";
import { group, literal, type RuleSet } from "./gbnf.js";
import { emitPattern, patternCaps, type PreparedPattern, preparePattern } from "./regex-gbnf.js";
import { boundedPattern } from "./schema-bounds.js";
import { grammarLiterals, printUserGrammar, USER_GRAMMAR_LIMITS, type UserGrammar, userGrammarGbnf } from "./user-grammar.js";

/**
 * What the text answer must be, when the turn answers rather than calls. `regex`: ECMAScript syntax (the `u`
 * flag), matched against the whole answer. `choice`: one of these strings exactly. `grammar`: GBNF in the dialect
 * qtc prints (root rule `root`). `jsonSchema`: JSON that fits the schema (what `responseSchema` is).
 */
export type AnswerConstraint = { regex: string } | { choice: readonly string[] } | { grammar: string } | { jsonSchema: JsonSchema | boolean };

export type ConstraintKind = "regex" | "choice" | "grammar" | "jsonSchema";

/** Bounds on a constraint, checked before any work. */
export const CONSTRAINT_LIMITS = Object.freeze({
  /** Most characters of a regex. */
  regexChars: 4096,
  /** Most nodes of a regex once parsed (what each measurement of it visits). */
  regexNodes: 4096,
  /** Most strings of a choice. */
  choices: 256,
  /** Most UTF-8 bytes of one choice. */
  choiceBytes: 1024,
  grammarBytes: USER_GRAMMAR_LIMITS.bytes,
  grammarRules: USER_GRAMMAR_LIMITS.rules,
});

/** A text constraint checked and ready to compile and judge (a JSON schema is not one: it is the response schema). */
export type TextConstraint =
  | { kind: "regex"; source: string; pattern: PreparedPattern; test: (s: string) => boolean }
  | { kind: "choice"; choices: readonly string[] }
  | { kind: "grammar"; source: string; grammar: UserGrammar; gbnf: string };

const bad = (message: string): { ok: false; error: QtcError } => err({ code: "invalid_option", message });

/** The kind of a constraint object, or why it is not one (exactly one of regex, choice, grammar, jsonSchema). */
export function constraintKind(c: unknown): Result<ConstraintKind> {
  if (typeof c !== "object" || c === null || Array.isArray(c)) return bad("constraint must be an object with one of regex, choice, grammar, jsonSchema");
  const keys = Object.keys(c);
  const kinds = keys.filter((k): k is ConstraintKind => k === "regex" || k === "choice" || k === "grammar" || k === "jsonSchema");
  if (kinds.length !== 1 || keys.length !== 1) return bad(`constraint must have exactly one of regex, choice, grammar, jsonSchema; got ${keys.map((k) => JSON.stringify(k)).join(", ") || "none"}`);
  return ok(kinds[0]!);
}

/**
 * How a caller's GBNF is read and vetted: by the engine's one GBNF reader (`parseUserGrammar`,
 * src/engine/user-gbnf.ts), which this layer sits below.
 */
export type GrammarReader = (source: string) => Result<UserGrammar>;

/**
 * Check a regex, choice or grammar constraint and its bounds. No answer may spell a tag (the parser would read a
 * call there), so a literal holding `<` is refused, and classes never admit it. A grammar is read by `readGrammar`.
 */
export function checkTextConstraint(c: Exclude<AnswerConstraint, { jsonSchema: unknown }>, readGrammar?: GrammarReader): Result<TextConstraint> {
  // A served request's constraint is checked by the server (for a 400 naming its field) and handed on to the
  // runtime as the same object: the second check is this lookup, never a second parse. The key is the
  // constraint's own text, so an object changed after its check is checked again.
  const key = sourceKey(c);
  const seen = checked.get(c);
  if (seen && seen.key === key && seen.reader === readGrammar) return seen.result;
  const result = checkUncached(c, readGrammar);
  checked.set(c, { key, reader: readGrammar, result });
  return result;
}

const checked = new WeakMap<object, { key: string; reader: GrammarReader | undefined; result: Result<TextConstraint> }>();

/** The constraint as written (what its check depends on). */
function sourceKey(c: Exclude<AnswerConstraint, { jsonSchema: unknown }>): string {
  return "regex" in c ? `r${String(c.regex)}` : "choice" in c ? `c${JSON.stringify(c.choice)}` : `g${String(c.grammar)}`;
}

function checkUncached(c: Exclude<AnswerConstraint, { jsonSchema: unknown }>, readGrammar?: GrammarReader): Result<TextConstraint> {
  if ("regex" in c) {
    const source = c.regex;
    if (typeof source !== "string") return bad("constraint regex must be a string");
    if (source.length > CONSTRAINT_LIMITS.regexChars) return err({ code: "too_large", message: `the constraint regex is over ${CONSTRAINT_LIMITS.regexChars} characters` });
    let test: (s: string) => boolean;
    try {
      const re = linearRegExp(`^(?:${source})$`, "u");
      test = (s) => re.test(s);
    } catch (e) {
      return bad(`constraint regex: ${e instanceof Error ? e.message : String(e)}`);
    }
    const parsed = boundedPattern(source);
    if (!parsed.ok) return bad(`constraint regex ${JSON.stringify(source.slice(0, 100))} cannot be held by the grammar: ${parsed.reason}`);
    // The whole answer matches: every branch is anchored at both ends (as vLLM and llama-server read a regex).
    const whole = { branches: parsed.value.branches.map((b) => ({ ...b, start: true, end: true })) };
    const pattern = preparePattern(whole, "raw");
    if (!pattern) return bad(`constraint regex ${JSON.stringify(source.slice(0, 100))} admits no answer qtc can write (an answer holds no "<" and no control characters but tab and line breaks)`);
    if (pattern.size > CONSTRAINT_LIMITS.regexNodes) return err({ code: "too_large", message: `the constraint regex is too complex (${pattern.size} nodes, over ${CONSTRAINT_LIMITS.regexNodes})` });
    return ok({ kind: "regex", source, pattern, test });
  }
  if ("choice" in c) {
    const choices = c.choice;
    if (!Array.isArray(choices) || choices.length === 0 || choices.some((s) => typeof s !== "string")) return bad("constraint choice must be a non-empty array of strings");
    if (choices.length > CONSTRAINT_LIMITS.choices) return err({ code: "too_large", message: `the constraint has ${choices.length} choices, over ${CONSTRAINT_LIMITS.choices}` });
    const long = choices.find((s) => Buffer.byteLength(s, "utf8") > CONSTRAINT_LIMITS.choiceBytes);
    if (long !== undefined) return err({ code: "too_large", message: `a constraint choice is over ${CONSTRAINT_LIMITS.choiceBytes} bytes` });
    const unspellable = choices.find((s) => !spellable(s));
    if (unspellable !== undefined) return bad(`constraint choice ${JSON.stringify(unspellable.slice(0, 100))} cannot be an answer (an answer holds no "<" and no control characters but tab and line breaks)`);
    return ok({ kind: "choice", choices: [...new Set(choices)] });
  }
  const source = c.grammar;
  if (typeof source !== "string") return bad("constraint grammar must be a string of GBNF");
  if (!readGrammar) throw new Error("internal: a grammar constraint is read by the constraint engine; pass its reader");
  const grammar = readGrammar(source);
  if (!grammar.ok) return grammar;
  const unspellable = grammarLiterals(grammar.value).find((s) => !spellable(s));
  if (unspellable !== undefined) return bad(`the constraint grammar's literal ${JSON.stringify(unspellable.slice(0, 100))} cannot be part of an answer (an answer holds no "<" and no control characters but tab and line breaks)`);
  return ok({ kind: "grammar", source, grammar: grammar.value, gbnf: userGrammarGbnf(grammar.value) });
}

/** Text an answer may hold: no `<` (no tag can be spelled), no control characters but tab, LF and CR. */
function spellable(s: string): boolean {
  return !/[<\x00-\x08\x0b\x0c\x0e-\x1f]/.test(s);
}

/**
 * The GBNF expression of an answer under the constraint, within `maxBytes` (a regex's repetitions are bounded to
 * fit it; a grammar's own repetitions are the caller's, so its answer can run to the token limit).
 */
export function constraintRule(rules: RuleSet, c: TextConstraint, maxBytes: number): Result<string> {
  switch (c.kind) {
    case "regex": {
      const caps = patternCaps(c.pattern, maxBytes, Infinity);
      if (!caps) return err({ code: "budget_too_small", message: "maxTokens is too small for the shortest answer the constraint regex admits" });
      return ok(rules.add("answer", emitPattern(rules, c.pattern, [caps], "answer").expr));
    }
    case "choice":
      return ok(rules.add("answer", group(c.choices.map(literal))));
    case "grammar":
      return ok(printUserGrammar(rules, c.grammar));
  }
}

/** A stable key of a checked constraint (for grammar caches). */
export function constraintKey(c: TextConstraint): string {
  return JSON.stringify([c.kind, c.kind === "choice" ? c.choices : c.source]);
}

/**
 * How a grammar answer is judged: by the engine that constrains (src/engine/text-judge.ts), which this layer
 * sits below; "too_costly" when the judgement would outrun its work bound.
 */
export type GrammarJudge = (gbnf: string, answer: string) => "accepted" | "rejected" | "too_costly";

/** Why an answer breaks the constraint (a message written for the model), or undefined when it is accepted. */
export function constraintBreach(c: TextConstraint, answer: string, judgeGrammar?: GrammarJudge): string | undefined {
  switch (c.kind) {
    case "regex":
      return c.test(answer) ? undefined : `the answer does not match the regex ${JSON.stringify(c.source)}; answer with text that matches it as a whole`;
    case "choice":
      return c.choices.includes(answer) ? undefined : `the answer must be exactly one of ${c.choices.map((s) => JSON.stringify(s)).join(", ")}`;
    case "grammar": {
      if (answer.length > USER_GRAMMAR_LIMITS.judgedChars) return `the answer is over ${USER_GRAMMAR_LIMITS.judgedChars} characters, too long to judge against the grammar`;
      if (!judgeGrammar) throw new Error("internal: a grammar answer is judged by the constraint engine; pass its judge");
      const verdict = judgeGrammar(c.gbnf, answer);
      if (verdict === "too_costly") return "the answer is too costly to judge against the constraint grammar (its parses outran the judge's work bound)";
      return verdict === "accepted" ? undefined : "the answer is not accepted by the constraint grammar";
    }
  }
}
