// Owns: a caller's own GBNF for a text answer (llama-server's `grammar`, qtc's `constraint.grammar`) once read:
// its tree (GExpr), its bounds, and printing it into a turn's rule set under fresh names. It is read and vetted by
// the engine's one GBNF reader (src/engine/user-gbnf.ts), which this layer sits below; the answer is judged
// by the engine that constrains (src/runtime/answer-request.ts), from the GBNF printed here. Every walk here is
// iterative (an explicit stack), so no grammar under the size bound can overflow the call stack.

import { charClass, type CodeRange, literal, RuleSet } from "./gbnf.js";
import { intersect } from "./regex.js";
import { universe } from "./regex-gbnf.js";

/** A node of a caller's grammar (src/engine/user-gbnf.ts reads it). */
export type GExpr =
  | { t: "lit"; text: string }
  | { t: "set"; ranges: CodeRange[] }
  | { t: "ref"; name: string }
  | { t: "seq"; items: GExpr[] }
  | { t: "alt"; items: GExpr[] }
  | { t: "rep"; item: GExpr; min: number; max: number | undefined };

/** Children of a node (for the iterative walks). */
export function childrenOf(e: GExpr): readonly GExpr[] {
  return e.t === "seq" || e.t === "alt" ? e.items : e.t === "rep" ? [e.item] : [];
}

/** The nodes under `root`, children before their parent (an explicit stack: no recursion per level). */
export function postOrder(root: GExpr): GExpr[] {
  const out: GExpr[] = [];
  const nodes: GExpr[] = [root];
  const expanded: boolean[] = [false];
  while (nodes.length > 0) {
    const e = nodes.pop()!;
    if (expanded.pop()) {
      out.push(e);
      continue;
    }
    nodes.push(e);
    expanded.push(true);
    const kids = childrenOf(e);
    for (let k = kids.length - 1; k >= 0; k--) {
      nodes.push(kids[k]!);
      expanded.push(false);
    }
  }
  return out;
}

/** Bounds on a caller's grammar, checked before any work. */
export const USER_GRAMMAR_LIMITS = Object.freeze({
  /** Most UTF-8 bytes of its source. */
  bytes: 32_768,
  /** Most rules. */
  rules: 256,
  /** Most characters of an answer the judge reads (longer answers are refused as too long to judge). */
  judgedChars: 65_536,
  /** Most groups nested one inside another, once groups that change nothing are unwrapped. */
  nesting: 100,
  /**
   * Most elements the grammar expands to once every `{m,n}` is unrolled (what the engine's program, its compile
   * time and its states grow with): 390 chains of `("k" [a-z]){0,1000}` count 1,170,000, and 380 distinct ones
   * took seconds to compile and about 100 MB each; 50,000 (16 such chains) compile in tens of milliseconds.
   */
  expandedElements: 50_000,
});

/** A parsed, bounded grammar: its rules by name (`root` among them). */
export interface UserGrammar {
  rules: ReadonlyMap<string, GExpr>;
}

/** Every node of every rule. */
export function nodesOf(rules: ReadonlyMap<string, GExpr>): GExpr[] {
  return [...rules.values()].flatMap(postOrder);
}

/** Every literal of a grammar (to refuse text an answer may not spell). */
export function grammarLiterals(g: UserGrammar): string[] {
  return nodesOf(g.rules).flatMap((e) => (e.t === "lit" ? [e.text] : []));
}

/**
 * Print the grammar into `rules` under fresh names (`answer-<name>`); returns the expression of its root. Classes
 * are narrowed to what an answer may hold (no `<`, no control characters but tab and line breaks): never wider.
 */
export function printUserGrammar(rules: RuleSet, g: UserGrammar): string {
  const names = new Map<string, string>();
  for (const name of g.rules.keys()) names.set(name, rules.reserve(`answer-${name}`));
  const allowed = universe("raw");
  for (const [name, body] of g.rules) {
    const text = new Map<GExpr, string>();
    for (const e of postOrder(body)) {
      const kids = childrenOf(e).map((k) => text.get(k)!);
      switch (e.t) {
        case "lit":
          text.set(e, literal(e.text));
          break;
        case "set":
          text.set(e, charClass(intersect(e.ranges, allowed)));
          break;
        case "ref":
          text.set(e, names.get(e.name)!);
          break;
        case "seq":
          text.set(e, kids.length === 0 ? '""' : kids.join(" "));
          break;
        case "alt":
          text.set(e, `(${kids.join(" | ")})`);
          break;
        case "rep": {
          const inner = e.item.t === "lit" || e.item.t === "set" || e.item.t === "ref" ? kids[0]! : `(${kids[0]!})`;
          text.set(e, e.max === undefined ? `${inner}{${e.min},}` : `${inner}{${e.min},${e.max}}`);
        }
      }
    }
    rules.define(names.get(name)!, text.get(body)!);
  }
  return names.get("root")!;
}

/** The grammar alone as GBNF text (what the answer judge hands the engine). */
export function userGrammarGbnf(g: UserGrammar): string {
  const rules = new RuleSet();
  return rules.print(printUserGrammar(rules, g)).text;
}
