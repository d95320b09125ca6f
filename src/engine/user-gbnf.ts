// Owns: reading and vetting a caller's own GBNF for a text answer (llama-server's `grammar`, qtc's
// `constraint.grammar`) with the engine's one GBNF reader (gbnf-reader.ts) into a tree per rule: its bounds (size, rule count,
// repetition counts, nesting, expanded size, no left recursion, no ambiguous repetition, no special tokens), each
// refusal worded for the caller. Every walk here is iterative (an explicit stack), so no grammar under the size
// bound can overflow the call stack, whatever it nests or refers to. Printing it into a turn's rules is the
// grammar stage's (src/grammar/user-grammar.ts).

import { err, ok, type Result } from "../errors.js";
import type { CodeRange } from "../grammar/gbnf.js";
import { complement, intersect, normalizeRanges } from "../grammar/regex.js";
import { MAX_REPEAT, universe } from "../grammar/regex-gbnf.js";
import { childrenOf, type GExpr, nodesOf, postOrder, USER_GRAMMAR_LIMITS, type UserGrammar } from "../grammar/user-grammar.js";
import { GbnfError, type GbnfSink, readGbnf } from "./gbnf-reader.js";
import { expandedSize, grammarAmbiguity } from "./user-gbnf-ambiguity.js";

/** How deep groups nest in `e` (a leaf is 1). */
function depthOf(e: GExpr): number {
  const depth = new Map<GExpr, number>();
  for (const n of postOrder(e)) depth.set(n, 1 + Math.max(0, ...childrenOf(n).map((k) => depth.get(k)!)));
  return depth.get(e)!;
}

/**
 * Refuse an undefined rule, a missing root, and left recursion (llama.cpp refuses it; no parser could end).
 * `nullable`: the rules that can match nothing (from the ambiguity analysis).
 */
function checkRules(rules: ReadonlyMap<string, GExpr>, nullableRules: ReadonlySet<string>): string | undefined {
  if (!rules.has("root")) return 'the grammar has no "root" rule';
  for (const [name, body] of rules) {
    const missing = postOrder(body).find((e) => e.t === "ref" && !rules.has(e.name));
    if (missing !== undefined && missing.t === "ref") return `rule "${name}" refers to "${missing.name}", which is not defined`;
  }
  // What each rule refers to at its left edge (through parts that can match nothing).
  const left = new Map<string, Set<string>>();
  for (const [name, body] of rules) {
    const info = new Map<GExpr, { nullable: boolean; refs: string[] }>();
    for (const e of postOrder(body)) {
      const kids = childrenOf(e).map((k) => info.get(k)!);
      if (e.t === "lit") info.set(e, { nullable: e.text === "", refs: [] });
      else if (e.t === "set") info.set(e, { nullable: false, refs: [] });
      else if (e.t === "ref") info.set(e, { nullable: nullableRules.has(e.name), refs: [e.name] });
      else if (e.t === "alt") info.set(e, { nullable: kids.some((k) => k.nullable), refs: kids.flatMap((k) => k.refs) });
      else if (e.t === "rep") info.set(e, { nullable: kids[0]!.nullable || e.min === 0, refs: kids[0]!.refs });
      else {
        const refs: string[] = [];
        let nullable = true;
        for (const k of kids) {
          refs.push(...k.refs);
          if (!k.nullable) {
            nullable = false;
            break;
          }
        }
        info.set(e, { nullable, refs });
      }
    }
    left.set(name, new Set(info.get(body)!.refs));
  }
  for (const start of rules.keys()) {
    const seen = new Set<string>();
    const stack = [...left.get(start)!];
    while (stack.length > 0) {
      const r = stack.pop()!;
      if (r === start) return `rule "${start}" is left-recursive (it can reach itself before reading a character); rewrite it with a repetition`;
      if (seen.has(r)) continue;
      seen.add(r);
      stack.push(...left.get(r)!);
    }
  }
  return undefined;
}

/** Parse and bound a caller's GBNF (errors are written for the caller: line, rule and what is wrong). */
export function parseUserGrammar(source: string): Result<UserGrammar> {
  if (Buffer.byteLength(source, "utf8") > USER_GRAMMAR_LIMITS.bytes) {
    return err({ code: "too_large", message: `the grammar is over ${USER_GRAMMAR_LIMITS.bytes} bytes` });
  }
  let rules: ReadonlyMap<string, GExpr>;
  try {
    const sink = new TreeSink();
    readGbnf(source, sink, { specialTokens: false, maxRepeat: MAX_REPEAT });
    rules = sink.rules;
  } catch (e) {
    if (e instanceof GbnfError) return err({ code: "invalid_option", message: `the grammar does not parse as GBNF: line ${e.line ?? 1}: ${e.what}` });
    throw e;
  }
  if (rules.size > USER_GRAMMAR_LIMITS.rules) return err({ code: "too_large", message: `the grammar has ${rules.size} rules, over ${USER_GRAMMAR_LIMITS.rules}` });
  for (const [name, body] of rules) {
    if (depthOf(body) > USER_GRAMMAR_LIMITS.nesting) return err({ code: "too_large", message: `rule "${name}" nests groups over ${USER_GRAMMAR_LIMITS.nesting} deep; move inner groups into rules of their own` });
  }
  const allowed = universe("raw");
  if (nodesOf(rules).some((e) => e.t === "set" && intersect(e.ranges, allowed).length === 0)) {
    return err({ code: "invalid_option", message: "the grammar has a character class that holds only characters an answer cannot hold (\"<\" and control characters other than tab and line breaks)" });
  }
  // Ambiguity first (its cost is linear in the source, not in the unrolled size): it says more than the size.
  const ambiguity = grammarAmbiguity(rules);
  const problem = (ambiguity.nullable && checkRules(rules, ambiguity.nullable)) || ambiguity.problem;
  if (problem) return err({ code: "invalid_option", message: `the grammar is not accepted: ${problem}` });
  const size = expandedSize(rules);
  if (size.elements > USER_GRAMMAR_LIMITS.expandedElements) {
    return err({ code: "too_large", message: `the grammar expands to over ${USER_GRAMMAR_LIMITS.expandedElements} elements once its repetitions are unrolled (rule "${size.largest}" is the largest); lower its {m,n} counts` });
  }
  return ok({ rules });
}

const ANY: CodeRange[] = [[0, 0x10ffff]];

/** A sequence or alternation of parts, one part unwrapped; nested ones of the same kind spliced in. */
function join(t: "seq" | "alt", parts: GExpr[]): GExpr {
  if (parts.length === 1) return parts[0]!;
  const items: GExpr[] = [];
  for (const p of parts) {
    if (p.t === t) for (const q of p.items) items.push(q);
    else items.push(p);
  }
  return items.length === 1 ? items[0]! : { t, items };
}

const alternation = (alts: GExpr[][]): GExpr => join("alt", alts.map((seq) => join("seq", seq)));

/** Builds each rule's tree from what the reader reads. */
class TreeSink implements GbnfSink<GExpr> {
  readonly rules = new Map<string, GExpr>();

  rule(name: string, alts: GExpr[][]): void {
    this.rules.set(name, alternation(alts));
  }

  literal(seq: GExpr[], cps: readonly number[], n: number): void {
    let text = "";
    for (let k = 0; k < n; k++) text += String.fromCodePoint(cps[k]!);
    seq.push({ t: "lit", text });
  }

  charClass(raw: number[], negated: boolean): GExpr {
    if (negated && raw.length === 0) return { t: "set", ranges: ANY };
    const pairs: CodeRange[] = [];
    for (let k = 0; k < raw.length; k += 2) pairs.push([raw[k]!, raw[k + 1]!]);
    const set = normalizeRanges(pairs);
    return { t: "set", ranges: negated ? complement(set) : set };
  }

  /** Never called: a caller's grammar is read with `specialTokens: false` (the reader refuses them). */
  token(): GExpr {
    throw new GbnfError("special tokens cannot be part of an answer");
  }

  ref(name: string): GExpr {
    return { t: "ref", name };
  }

  group(alts: GExpr[][]): GExpr {
    return alternation(alts);
  }

  repeat(items: GExpr[], min: number, max: number): GExpr[] {
    return [{ t: "rep", item: join("seq", items), min, max: max === Infinity ? undefined : max }];
  }
}
