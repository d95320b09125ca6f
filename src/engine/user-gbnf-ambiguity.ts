// Owns: vetting a caller's GBNF up front, as a regex is (regex-ambiguity.ts): a repetition whose iterations could
// split one text more than one way, or a repetition whose end could also be the start of what follows it, makes
// the engine carry one parse per split (`([a-z]|[a-z][a-z]){0,1000}` ten times over held over 20,000 parses and
// failed mid-generation), so it is refused before any work, naming the rule; and the size the grammar unrolls to.
// Character sets per node (first characters, what can continue a complete match) are computed bottom-up over an
// explicit post-order, to a fixpoint over the rules: no recursion per rule or per group.

import type { CodeRange } from "../grammar/gbnf.js";
import { intersect, normalizeRanges } from "../grammar/regex.js";
import { childrenOf, type GExpr, postOrder } from "../grammar/user-grammar.js";

/** What a node can match, as far as ambiguity goes. */
interface Info {
  nullable: boolean;
  /** Characters a non-empty match can start with. */
  first: CodeRange[];
  /** Characters at any later position of a match (an over-approximation). */
  inner: CodeRange[];
  /** Characters that can continue a complete match into a longer one. */
  tail: CodeRange[];
  /** The part of `tail` a repetition of more than one iteration can continue with. */
  rtail: CodeRange[];
}

const NONE: Info = { nullable: false, first: [], inner: [], tail: [], rtail: [] };
/** Passes over the rules before giving up (dependencies go first, so a few passes settle real grammars). */
const MAX_PASSES = 64;

const union = (...sets: CodeRange[][]): CodeRange[] => normalizeRanges(sets.flat());
const meets = (a: CodeRange[], b: CodeRange[]) => a.length > 0 && b.length > 0 && intersect(a, b).length > 0;
const many = (e: { max: number | undefined }) => e.max === undefined || e.max > 1;
const same = (a: Info, b: Info) => a.nullable === b.nullable && JSON.stringify([a.first, a.inner, a.tail, a.rtail]) === JSON.stringify([b.first, b.inner, b.tail, b.rtail]);

/** One node's Info from its children's (and, for a reference, the rule's as known so far). */
function infoOf(e: GExpr, kids: Info[], ruleInfo: ReadonlyMap<string, Info>): Info {
  switch (e.t) {
    case "lit": {
      const cps = [...e.text].map((c): CodeRange => [c.codePointAt(0)!, c.codePointAt(0)!]);
      return { nullable: cps.length === 0, first: cps.slice(0, 1), inner: normalizeRanges(cps.slice(1)), tail: [], rtail: [] };
    }
    case "set":
      return { nullable: false, first: e.ranges, inner: [], tail: [], rtail: [] };
    case "ref":
      return ruleInfo.get(e.name) ?? NONE;
    case "rep": {
      const i = kids[0]!;
      // After a complete match another iteration may follow only below the upper count (`{4}` has no room).
      const later = many(e) ? i.first : [];
      const again = e.max === undefined || e.max > e.min ? i.first : [];
      return { nullable: i.nullable || e.min === 0, first: i.first, inner: union(i.inner, later), tail: union(i.tail, again), rtail: union(i.rtail, again) };
    }
    case "alt": {
      let tail = union(...kids.map((k) => k.tail));
      // A complete match of one branch that is a prefix of another's: the other's later characters continue it.
      // (Linear: each branch against the union of the others, from prefix and suffix unions.)
      const before: CodeRange[][] = [[]];
      for (const k of kids) before.push(union(before[before.length - 1]!, k.first));
      let after: CodeRange[] = [];
      for (let n = kids.length - 1; n >= 0; n--) {
        if (meets(kids[n]!.first, union(before[n]!, after))) tail = union(tail, kids[n]!.inner);
        after = union(after, kids[n]!.first);
      }
      if (kids.some((k) => k.nullable)) tail = union(tail, ...kids.map((k) => k.first));
      return { nullable: kids.some((k) => k.nullable), first: union(...kids.map((k) => k.first)), inner: union(...kids.map((k) => k.inner)), tail, rtail: union(...kids.map((k) => k.rtail)) };
    }
    case "seq": {
      const first: CodeRange[][] = [];
      for (const k of kids) {
        first.push(k.first);
        if (!k.nullable) break;
      }
      const tail: CodeRange[][] = [];
      const rtail: CodeRange[][] = [];
      for (let n = kids.length - 1; n >= 0; n--) {
        tail.push(kids[n]!.tail);
        rtail.push(kids[n]!.rtail);
        if (!kids[n]!.nullable) break;
        tail.push(kids[n]!.first);
      }
      return {
        nullable: kids.every((k) => k.nullable),
        first: union(...first),
        inner: union(...kids.map((k) => k.inner), ...kids.slice(1).map((k) => k.first)),
        tail: union(...tail),
        rtail: union(...rtail),
      };
    }
  }
}

/** The rules, dependencies first (an iterative depth-first walk over references from every rule). */
function dependencyOrder(rules: ReadonlyMap<string, GExpr>): string[] {
  const order: string[] = [];
  const state = new Map<string, "open" | "done">();
  for (const start of rules.keys()) {
    const stack: { name: string; refs?: string[] }[] = [{ name: start }];
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      if (!top.refs) {
        if (state.has(top.name) || !rules.has(top.name)) {
          stack.pop();
          continue;
        }
        state.set(top.name, "open");
        top.refs = postOrder(rules.get(top.name)!).flatMap((e) => (e.t === "ref" ? [e.name] : []));
      }
      const next = top.refs.pop();
      if (next !== undefined) {
        if (!state.has(next)) stack.push({ name: next });
        continue;
      }
      stack.pop();
      state.set(top.name, "done");
      order.push(top.name);
    }
  }
  return order;
}

/**
 * The rules that can match nothing, and the first ambiguity found (a message naming the rule), if any. Refused:
 * a repetition (of more than one iteration) of something that can match nothing, or whose one complete iteration
 * can be continued by a character another iteration may start with; in a sequence, a part ending in such a
 * repetition followed by something that may start with a character the repetition could continue with.
 */
export function grammarAmbiguity(rules: ReadonlyMap<string, GExpr>): { nullable?: Set<string>; problem?: string } {
  const order = dependencyOrder(rules);
  const orders = new Map(order.map((name) => [name, postOrder(rules.get(name)!)]));
  const ruleInfo = new Map<string, Info>();
  let settled = false;
  for (let pass = 0; pass < MAX_PASSES && !settled; pass++) {
    settled = true;
    for (const name of order) {
      const info = new Map<GExpr, Info>();
      for (const e of orders.get(name)!) info.set(e, infoOf(e, childrenOf(e).map((k) => info.get(k)!), ruleInfo));
      const got = info.get(rules.get(name)!)!;
      const had = ruleInfo.get(name);
      if (!had || !same(had, got)) {
        ruleInfo.set(name, got);
        settled = false;
      }
    }
  }
  if (!settled) return { problem: "its rules refer to one another too intricately to check for ambiguity; simplify it" };
  const nullable = new Set(order.filter((name) => ruleInfo.get(name)!.nullable));
  const reach = reachable(rules);
  for (const name of order) {
    const info = new Map<GExpr, Info>();
    const cyclic = (r: string) => r === name || reach.get(r)!.has(name);
    for (const e of orders.get(name)!) {
      const kids = childrenOf(e).map((k) => info.get(k)!);
      info.set(e, infoOf(e, kids, ruleInfo));
      const problem = ambiguityAt(e, kids) ?? pendingRecursion(e, kids, cyclic);
      if (problem) return { nullable, problem: `rule "${name}" is ambiguous: ${problem}, so one text can be read in many ways (each a parse the constraint engine must carry); rewrite it so that where one iteration ends and the next begins is certain` };
    }
  }
  return { nullable };
}

/** The rules each rule can reach through references (an iterative walk per rule). */
function reachable(rules: ReadonlyMap<string, GExpr>): Map<string, Set<string>> {
  const direct = new Map([...rules].map(([name, body]) => [name, postOrder(body).flatMap((e) => (e.t === "ref" ? [e.name] : []))] as const));
  const out = new Map<string, Set<string>>();
  for (const name of rules.keys()) {
    const seen = new Set<string>();
    const stack = [...direct.get(name)!];
    while (stack.length > 0) {
      const r = stack.pop()!;
      if (seen.has(r)) continue;
      seen.add(r);
      stack.push(...(direct.get(r) ?? []));
    }
    out.set(name, seen);
  }
  return out;
}

/**
 * Alternatives that start alike, one of which recurses into its own rule before its end (`a ::= "x" a "y" |
 * "x" a "z" | ""`): each pending choice is a parse the engine carries, 2^n after n characters. A recursion last in
 * its alternative (`root ::= "a" root | "a"`) pushes nothing and is allowed.
 */
function pendingRecursion(e: GExpr, kids: Info[], cyclic: (rule: string) => boolean): string | undefined {
  if (e.t !== "alt") return undefined;
  const before: CodeRange[][] = [[]];
  for (const k of kids) before.push(union(before[before.length - 1]!, k.first));
  let after: CodeRange[] = [];
  for (let n = kids.length - 1; n >= 0; n--) {
    const branch = e.items[n]!;
    if (meets(kids[n]!.first, union(before[n]!, after))) {
      const tail = branch.t === "ref" ? branch : branch.t === "seq" ? branch.items[branch.items.length - 1] : undefined;
      if (postOrder(branch).some((x) => x.t === "ref" && x !== tail && cyclic(x.name))) {
        return "alternatives that start alike, one of which recurses into its own rule before its end (each pending choice is a parse the constraint engine must carry)";
      }
    }
    after = union(after, kids[n]!.first);
  }
  return undefined;
}

function ambiguityAt(e: GExpr, kids: Info[]): string | undefined {
  if (e.t === "rep" && many(e)) {
    const i = kids[0]!;
    if (i.nullable) return "a repetition of something that can match nothing";
    if (meets(i.tail, i.first)) return "a repetition whose iterations can be split more than one way (one iteration can continue with a character that may also start the next)";
  }
  if (e.t === "seq") {
    // What may start the rest after each part, from the right (linear in the parts).
    let rest: CodeRange[] = [];
    for (let n = kids.length - 2; n >= 0; n--) {
      const next = kids[n + 1]!;
      rest = next.nullable ? union(next.first, rest) : next.first;
      if (meets(kids[n]!.rtail, rest)) return "a repetition followed by something that may start with a character the repetition could continue with";
    }
  }
  return undefined;
}

/** The elements the grammar unrolls to (each `{m,n}` as n copies), and its largest rule. */
export function expandedSize(rules: ReadonlyMap<string, GExpr>): { elements: number; largest: string } {
  let elements = 0;
  let largest = "root";
  let most = -1;
  for (const [name, body] of rules) {
    const size = new Map<GExpr, number>();
    for (const e of postOrder(body)) {
      const kids = childrenOf(e).map((k) => size.get(k)!);
      const n =
        e.t === "lit" ? Math.max(1, [...e.text].length) : e.t === "set" || e.t === "ref" ? 1 : e.t === "rep" ? kids[0]! * Math.max(1, e.max ?? e.min + 1) + 1 : kids.reduce((a, b) => a + b, 1);
      size.set(e, Math.min(n, Number.MAX_SAFE_INTEGER));
    }
    const n = size.get(body)!;
    elements += n;
    if (n > most) [most, largest] = [n, name];
  }
  return { elements, largest };
}
