// Owns: the bound on what a compiled grammar may cost to load and run, checked where a compiled grammar is handed
// to a runtime or an engine and read only from the compiled output (its GBNF, read by the engine's one GBNF reader,
// gbnf-reader.ts, into a cost term per rule): its size in bytes and rules, and an estimate of the memory its
// evaluation takes. Over a bound: `schema_too_large` naming the tool's JSON pointer.
//
// Why the estimate: llama.cpp copies a grammar's rules with every state clone, and the matcher clones a state per
// step while it walks the shortest closing of a call (the budget guard, jump-forward). A call whose shortest form
// is long (a string `minLength` near 1,000 is unrolled as `unit{995}`) makes that walk one clone per forced unit,
// each the size of the grammar: 995 units × a 123 KB grammar took 1.2-2.5 GB of RSS on this machine before.

import { QtcException } from "../errors.js";
import { PROGRAM_LIMITS } from "./gbnf-program.js";
import { type GbnfSink, readGbnf } from "./gbnf-reader.js";

export const GRAMMAR_COST_LIMITS = Object.freeze({
  /** Bytes of GBNF one grammar may have (a large tool set at the 8,192-byte budget is about 1 MB). */
  maxBytes: 2 * 1024 * 1024,
  /** Rules one grammar may have. */
  maxRules: 40_000,
  /**
   * Forced units (the `{m}` / `{m,n}` minimums of the repetitions one call's rules reach; the most over the tools)
   * times GBNF bytes: the order of the bytes a shortest-closing walk clones. 16 M allows a 64-unit minimum in a
   * 256 KB grammar, or 128 in a 128 KB one.
   */
  maxForcedBytes: 16 * 1024 * 1024,
});

/** What the check reads of a compiled grammar. */
export interface GrammarShape {
  readonly gbnf: string;
  /** The tools in the order of the request (for the pointer). */
  readonly tools?: readonly { readonly name: string }[];
}

/** The size and cost figures of a grammar (for the check, tests and docs). */
export function grammarCost(gbnf: string): { bytes: number; rules: number; forcedUnits: number } {
  const read = readCosts(gbnf);
  return { bytes: Buffer.byteLength(gbnf, "utf8"), rules: read.rules.size, forcedUnits: read.forcedUnits };
}

/**
 * The forced units a shortest-closing walk meets. It closes the one call the model opened, along the call's
 * shortest form: a repetition's minimum counts (`unit{995}` is 995 clones), an alternative counts its cheapest
 * branch, and the heaviest tool's call decides. Summing every minimum of every branch of every tool instead
 * refused Claude Code's 24 tools (467 units in all, mostly the digit-count branches of integer rules, of which a
 * walk takes one).
 */
export function callForcedUnits(grammar: GrammarShape): number {
  return callUnitsOf(readCosts(grammar.gbnf));
}

/** Throws `schema_too_large` (with the pointer of the tool at fault, when one can be told) for a grammar over a bound. */
export function checkGrammarCost(grammar: GrammarShape, limits = GRAMMAR_COST_LIMITS): void {
  const bytes = Buffer.byteLength(grammar.gbnf, "utf8");
  let why: string | undefined;
  let read: CostReading | undefined;
  if (bytes > limits.maxBytes) why = `its grammar is ${bytes} bytes, over ${limits.maxBytes}`;
  else {
    read = readCosts(grammar.gbnf);
    const forcedUnits = callUnitsOf(read);
    if (read.rules.size > limits.maxRules) why = `its grammar has ${read.rules.size} rules, over ${limits.maxRules}`;
    else if (forcedUnits * bytes > limits.maxForcedBytes) {
      why = `its shortest call forces ${forcedUnits} repeated units in a ${bytes}-byte grammar, which would take about ${Math.round((forcedUnits * bytes * 10) / 1e6)} MB or more to evaluate (bound: ${limits.maxForcedBytes / 1024 / 1024} M unit-bytes); lower minLength / minItems`;
    }
  }
  if (why === undefined) return;
  const path = read && pointerOf(grammar, read);
  throw new QtcException({ code: "schema_too_large", message: `the tools are too costly to constrain: ${why}${path ? ` (${path})` : ""}`, ...(path ? { path } : {}) });
}

/**
 * The forced units of a part of a rule: a number when it refers to no rule, else a term over the rules it refers
 * to (a string: the rule's name). Sequences add, alternatives take the cheapest, `{m,n}` counts m times its item (at least 1), `+` its item
 * once, `* ?` nothing; text and special tokens force no units.
 */
type Term = number | string | { alt: Term[][] } | { rep: Term; min: number; braces: boolean };

interface RuleCost {
  body: Term;
  /** The rules it refers to. */
  refs: string[];
  /** Its largest `{m,n}` minimum. */
  most: number;
}

interface CostReading {
  rules: Map<string, RuleCost>;
  /** Every `{m,n}` minimum of the grammar, summed. */
  forcedUnits: number;
}

function readCosts(gbnf: string): CostReading {
  const sink = new CostSink();
  readGbnf(gbnf, sink, { maxRepeat: PROGRAM_LIMITS.maxRepeat });
  return { rules: sink.rules, forcedUnits: sink.forcedUnits };
}

const sum = (seq: readonly Term[]): Term => {
  let n = 0;
  for (const t of seq) {
    if (typeof t !== "number") return { alt: [seq as Term[]] };
    n += t;
  }
  return n;
};

/** Builds a cost term per rule from what the reader reads (no tree of the text: a 1 MB grammar is read in one pass). */
class CostSink implements GbnfSink<Term> {
  readonly rules = new Map<string, RuleCost>();
  forcedUnits = 0;
  private refs: string[] = [];
  private most = 0;

  rule(name: string, alts: Term[][]): void {
    this.rules.set(name, { body: this.group(alts), refs: this.refs, most: this.most });
    this.refs = [];
    this.most = 0;
  }

  literal(seq: Term[]): void {
    seq.push(0);
  }

  charClass(): Term {
    return 0;
  }

  token(): Term {
    return 0;
  }

  ref(name: string): Term {
    this.refs.push(name);
    return name;
  }

  group(alts: Term[][]): Term {
    let least = Infinity;
    for (const alt of alts) {
      const t = sum(alt);
      if (typeof t !== "number") return { alt: alts };
      least = Math.min(least, t);
    }
    return least;
  }

  repeat(items: Term[], min: number, _max: number, braces: boolean): Term[] {
    if (braces) {
      this.forcedUnits += min;
      this.most = Math.max(this.most, min);
    }
    const item = sum(items);
    return [typeof item === "number" ? repeatUnits(item, min, braces) : { rep: item, min, braces }];
  }
}

function repeatUnits(units: number, min: number, braces: boolean): number {
  return braces ? min * Math.max(1, units) : min === 0 ? 0 : units;
}

/** A term's units, given the rules' (nesting is a rule's own groups, as the grammar writes them). */
function unitsOf(t: Term, ruleCost: (name: string) => number): number {
  if (typeof t === "number") return t;
  if (typeof t === "string") return ruleCost(t);
  if ("rep" in t) return repeatUnits(unitsOf(t.rep, ruleCost), t.min, t.braces);
  let least = Infinity;
  for (const alt of t.alt) {
    let n = 0;
    for (const part of alt) n += unitsOf(part, ruleCost);
    least = Math.min(least, n);
  }
  return least;
}

function callUnitsOf(read: CostReading): number {
  const calls = [...read.rules.keys()].filter((n) => /^tool-.+-call$/.test(n));
  if (calls.length === 0 && !read.rules.has("root")) return read.forcedUnits;
  const roots = calls.length > 0 ? calls : ["root"];
  const costs = leastUnitsOfRules(read.rules, roots);
  return Math.max(...roots.map((n) => costs.get(n) ?? 0));
}

/**
 * Least forced units of every rule the roots reach, dependencies first. Iterative: a budget-unrolled grammar
 * chains thousands of rules (`s-1000 ::= … s-999`), deeper than the call stack (Claude Code's tools at a
 * 14k-token budget overflowed it). A reference back into a rule still being worked out adds nothing, as a
 * recursive rule adds nothing to the shortest form.
 */
function leastUnitsOfRules(rules: ReadonlyMap<string, RuleCost>, roots: readonly string[]): Map<string, number> {
  const costs = new Map<string, number>();
  const started = new Set<string>();
  const stack: { name: string; refsPushed: boolean }[] = roots.map((name) => ({ name, refsPushed: false }));
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    if (costs.has(top.name) || (started.has(top.name) && !top.refsPushed)) {
      stack.pop();
      continue;
    }
    const rule = rules.get(top.name);
    if (!top.refsPushed) {
      started.add(top.name);
      top.refsPushed = true;
      for (const ref of rule?.refs ?? []) if (rules.has(ref) && !started.has(ref)) stack.push({ name: ref, refsPushed: false });
      continue;
    }
    stack.pop();
    costs.set(top.name, rule === undefined ? 0 : unitsOf(rule.body, (ref) => costs.get(ref) ?? 0));
  }
  return costs;
}

/**
 * The pointer of the tool whose rules hold the heaviest repetition (`/tools/<i>`): the rule with the largest
 * minimum, then the tool whose call rule reaches it. Undefined when it cannot be told from the rules.
 */
function pointerOf(grammar: GrammarShape, read: CostReading): string | undefined {
  const tools = grammar.tools ?? [];
  if (tools.length === 1) return "/tools/0";
  let heaviest: string | undefined;
  let most = 0;
  for (const [name, rule] of read.rules) if (rule.most > most) [most, heaviest] = [rule.most, name];
  if (heaviest === undefined) return undefined;
  const names = [...read.rules.keys()];
  for (let i = 0; i < tools.length; i++) {
    const start = names.find((n) => n.startsWith(`tool-${tools[i]!.name}-`));
    if (start && reaches(read.rules, start, heaviest)) return `/tools/${i}`;
  }
  return undefined;
}

function reaches(rules: ReadonlyMap<string, RuleCost>, from: string, target: string): boolean {
  const seen = new Set<string>([from]);
  const stack = [from];
  while (stack.length > 0) {
    const name = stack.pop()!;
    if (name === target) return true;
    for (const ref of rules.get(name)?.refs ?? []) {
      if (rules.has(ref) && !seen.has(ref)) {
        seen.add(ref);
        stack.push(ref);
      }
    }
  }
  return false;
}
