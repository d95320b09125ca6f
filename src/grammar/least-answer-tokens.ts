// Owns: a sound lower bound on the tokens of the cheapest answer a constraint admits (regex, choice, grammar, JSON
// schema), so that a budget that cannot hold even that answer is refused before any work (`budget_too_small`)
// instead of ending at the limit with an empty or cut answer.
//
// The bound counts Qwen3's pre-tokenizer pieces that no token can join (see least-tokens.ts): every ASCII digit
// is a piece of its own (`\pN`, one digit each), and BPE merges are learned within pieces, so no token spells a
// digit together with anything else. Everything else is assumed to merge as far as it can: a maximal run of
// non-digits costs one token. So an answer costs at least `digits + runs of non-digits`, and the cheapest answer
// is found by a small table per expression: the least cost of its non-empty texts by whether each starts and ends
// with a non-digit (two runs meeting across a concatenation merge into one), and whether it may be empty.

import type { CodeRange } from "./gbnf.js";
import type { TextConstraint } from "./answer-constraint.js";
import type { Re } from "./regex.js";
import type { GExpr } from "./user-grammar.js";
import type { JsonSchema } from "../tools/types.js";
import { pieces } from "./least-tokens.js";

/** Least cost of non-empty texts, indexed by `(starts with a non-digit ? 2 : 0) + (ends with one ? 1 : 0)`. */
interface Table {
  empty: boolean;
  cost: [number, number, number, number];
}

const NONE: Table = { empty: false, cost: [Infinity, Infinity, Infinity, Infinity] };
const EMPTY: Table = { empty: true, cost: [Infinity, Infinity, Infinity, Infinity] };
const DIGIT_CHAR: Table = { empty: false, cost: [1, Infinity, Infinity, Infinity] };
const OTHER_CHAR: Table = { empty: false, cost: [Infinity, Infinity, Infinity, 1] };
/** Fixpoint rounds over a grammar's rules before giving up on a bound (then no refusal is made). */
const MAX_ROUNDS = 512;

function alt(a: Table, b: Table): Table {
  return { empty: a.empty || b.empty, cost: a.cost.map((c, i) => Math.min(c, b.cost[i]!)) as Table["cost"] };
}

function seq(a: Table, b: Table): Table {
  const cost: Table["cost"] = [Infinity, Infinity, Infinity, Infinity];
  for (let i = 0; i < 4; i++) {
    if (a.cost[i] === Infinity) continue;
    for (let j = 0; j < 4; j++) {
      if (b.cost[j] === Infinity) continue;
      const merge = (i & 1) === 1 && (j & 2) === 2 ? 1 : 0;
      const k = (i & 2) | (j & 1);
      cost[k] = Math.min(cost[k], a.cost[i]! + b.cost[j]! - merge);
    }
  }
  const out: Table = { empty: a.empty && b.empty, cost };
  if (a.empty) for (let j = 0; j < 4; j++) out.cost[j] = Math.min(out.cost[j]!, b.cost[j]!);
  if (b.empty) for (let i = 0; i < 4; i++) out.cost[i] = Math.min(out.cost[i]!, a.cost[i]!);
  return out;
}

/**
 * `min` copies, and one more when more are allowed: a further copy never lowers the cost (it adds a token or
 * merges into a run it then ends, which the copies before it already did).
 */
function rep(item: Table, min: number, max: number | undefined): Table {
  let out = EMPTY;
  // Concatenation is associative: `min` copies by squaring, so a bound such as {1000} costs ten steps.
  for (let n = min, square = item; n > 0; n >>= 1, square = seq(square, square)) if (n & 1) out = seq(out, square);
  if (max === undefined || max > min) out = alt(out, seq(out, item));
  return out;
}

function set(ranges: readonly CodeRange[]): Table {
  const digits = ranges.some(([lo, hi]) => lo <= 0x39 && hi >= 0x30);
  const others = ranges.some(([lo, hi]) => lo < 0x30 || hi > 0x39);
  return digits && others ? alt(DIGIT_CHAR, OTHER_CHAR) : digits ? DIGIT_CHAR : others ? OTHER_CHAR : NONE;
}

function text(s: string): Table {
  let out = EMPTY;
  for (const c of s) out = seq(out, c >= "0" && c <= "9" ? DIGIT_CHAR : OTHER_CHAR);
  return out;
}

function least(t: Table): number {
  return t.empty ? 0 : Math.min(...t.cost);
}

function ofRe(re: Re): Table {
  switch (re.t) {
    case "set":
      return set(re.ranges);
    case "seq":
      return re.items.reduce((acc, item) => seq(acc, ofRe(item)), EMPTY);
    case "alt":
      return re.items.reduce((acc, item) => alt(acc, ofRe(item)), NONE);
    case "rep":
      return rep(ofRe(re.item), re.min, re.max);
  }
}

/** A grammar's rules to their least fixpoint (a rule's table only falls, and costs are whole numbers ≥ 0). */
function ofGrammar(rules: ReadonlyMap<string, GExpr>): Table | undefined {
  const known = new Map<string, Table>([...rules.keys()].map((name) => [name, NONE]));
  const of = (e: GExpr): Table => {
    switch (e.t) {
      case "lit":
        return text(e.text);
      case "set":
        return set(e.ranges);
      case "ref":
        return known.get(e.name) ?? NONE;
      case "seq":
        return e.items.reduce((acc, item) => seq(acc, of(item)), EMPTY);
      case "alt":
        return e.items.reduce((acc, item) => alt(acc, of(item)), NONE);
      case "rep":
        return rep(of(e.item), e.min, e.max);
    }
  };
  for (let round = 0; round < MAX_ROUNDS; round++) {
    let changed = false;
    for (const [name, expr] of rules) {
      const before = known.get(name)!;
      const after = of(expr);
      if (after.empty !== before.empty || after.cost.some((c, i) => c !== before.cost[i])) changed = true;
      known.set(name, after);
    }
    if (!changed) return known.get("root");
  }
  return undefined;
}

/**
 * A JSON answer to an object schema spells fixed texts: `{`, each required key as `"key": `, and `}` (in whatever
 * order the members come, with optional members and values between them). Each takes at least its pre-tokenizer
 * pieces (`pieces`, ASCII); one token may span each gap between two of them, so each gap costs a token of credit.
 * Any other schema: one token at least.
 */
function leastJsonTokens(schema: JsonSchema | boolean): number {
  if (typeof schema !== "object" || schema === null) return 1;
  const s = schema as Record<string, unknown>;
  const required = Array.isArray(s.required) ? s.required.filter((k): k is string => typeof k === "string") : [];
  if (s.type !== "object" || required.length === 0 || !required.every(isAscii)) return 1;
  const fixed = ["{", ...[...new Set(required)].map((key) => `${JSON.stringify(key)}: `), "}"];
  return Math.max(1, fixed.reduce((sum, t) => sum + pieces(t), 0) - (fixed.length - 1));
}

const isAscii = (s: string) => /^[\x20-\x7e]*$/.test(s);

/** A choice's least tokens: its pre-tokenizer pieces when it is printable ASCII, else its digits and runs. */
function leastChoiceTokens(choice: string): number {
  return isAscii(choice) ? pieces(choice) : least(text(choice));
}

/**
 * The fewest tokens any answer the constraint admits can take (a sound lower bound; see the module comment), or
 * undefined when no bound was found (nothing is refused then).
 */
export function leastAnswerTokens(answer: { constraint?: TextConstraint; schema?: JsonSchema | boolean }): number | undefined {
  let table: Table | undefined;
  const c = answer.constraint;
  if (c?.kind === "choice") return Math.min(...c.choices.map(leastChoiceTokens));
  if (c?.kind === "regex") table = ofRe(c.pattern.re);
  else if (c?.kind === "grammar") table = ofGrammar(c.grammar.rules);
  else if (answer.schema !== undefined) return leastJsonTokens(answer.schema);
  if (!table) return undefined;
  const n = least(table);
  return Number.isFinite(n) ? n : undefined;
}
