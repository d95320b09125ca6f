// Owns: the bound on what a compiled grammar may cost to load and run, checked where a compiled grammar is handed
// to a runtime or an engine and read only from the compiled output (its GBNF): its size in bytes and rules, and an
// estimate of the memory its evaluation takes. Over a bound: `schema_too_large` naming the tool's JSON pointer.
//
// Why the estimate: llama.cpp copies a grammar's rules with every state clone, and the matcher clones a state per
// step while it walks the shortest closing of a call (the budget guard, jump-forward). A call whose shortest form
// is long (a string `minLength` near 1,000 is unrolled as `unit{995}`) makes that walk one clone per forced unit,
// each the size of the grammar: 995 units × a 123 KB grammar took 1.2-2.5 GB of RSS on this machine before.

import { QtcException } from "../errors.js";

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
  let rules = 0;
  for (let at = gbnf.indexOf("::="); at !== -1; at = gbnf.indexOf("::=", at + 3)) rules++;
  let forcedUnits = 0;
  for (const m of withoutLiterals(gbnf).matchAll(/\{(\d+)(?:,\d*)?\}/g)) forcedUnits += Number(m[1]);
  return { bytes: Buffer.byteLength(gbnf, "utf8"), rules, forcedUnits };
}

/**
 * The forced units a shortest-closing walk meets. It closes the one call the model opened, along the call's
 * shortest form: a repetition's minimum counts (`unit{995}` is 995 clones), an alternative counts its cheapest
 * branch, and the heaviest tool's call decides. Summing every minimum of every branch of every tool instead
 * refused Claude Code's 24 tools (467 units in all, mostly the digit-count branches of integer rules, of which a
 * walk takes one).
 */
export function callForcedUnits(grammar: GrammarShape): number {
  const bodies = ruleBodies(grammar.gbnf);
  const memo = new Map<string, number>();
  const cost = (name: string): number => {
    const known = memo.get(name);
    if (known !== undefined) return known;
    memo.set(name, 0); // a recursive reference adds nothing to the shortest form
    const units = leastUnits(bodies.get(name) ?? "", cost);
    memo.set(name, units);
    return units;
  };
  const calls = [...bodies.keys()].filter((n) => /^tool-.+-call$/.test(n));
  if (calls.length === 0) return bodies.has("root") ? cost("root") : grammarCost(grammar.gbnf).forcedUnits;
  return Math.max(...calls.map(cost));
}

function ruleBodies(gbnf: string): Map<string, string> {
  const bodies = new Map<string, string>();
  for (const line of withoutLiterals(gbnf).split("\n")) {
    const at = line.indexOf("::=");
    if (at > 0) bodies.set(line.slice(0, at).trim(), line.slice(at + 3));
  }
  return bodies;
}

/** Least forced units of a rule body (literals blanked): sequences add, alternatives take the cheapest. */
function leastUnits(body: string, ruleCost: (name: string) => number): number {
  const tokens = body.match(/""|\{\d+(?:,\d*)?\}|[()|*+?]|[A-Za-z][\w-]*/g) ?? [];
  let at = 0;
  const alternatives = (): number => {
    let best = sequence();
    while (tokens[at] === "|") {
      at++;
      best = Math.min(best, sequence());
    }
    return best;
  };
  const sequence = (): number => {
    let sum = 0;
    while (at < tokens.length && tokens[at] !== "|" && tokens[at] !== ")") sum += item();
    return sum;
  };
  const item = (): number => {
    const token = tokens[at++]!;
    let units = 0;
    if (token === "(") {
      units = alternatives();
      if (tokens[at] === ")") at++;
    } else if (/^[A-Za-z]/.test(token)) units = ruleCost(token);
    const postfix = tokens[at];
    if (postfix === "?" || postfix === "*") return at++, 0;
    if (postfix === "+") return at++, units;
    const repeat = postfix?.match(/^\{(\d+)/);
    if (repeat) return at++, Number(repeat[1]) * Math.max(1, units);
    return units;
  };
  return alternatives();
}

/** Throws `schema_too_large` (with the pointer of the tool at fault, when one can be told) for a grammar over a bound. */
export function checkGrammarCost(grammar: GrammarShape, limits = GRAMMAR_COST_LIMITS): void {
  const { bytes, rules } = grammarCost(grammar.gbnf);
  const forcedUnits = callForcedUnits(grammar);
  let why: string | undefined;
  if (bytes > limits.maxBytes) why = `its grammar is ${bytes} bytes, over ${limits.maxBytes}`;
  else if (rules > limits.maxRules) why = `its grammar has ${rules} rules, over ${limits.maxRules}`;
  else if (forcedUnits * bytes > limits.maxForcedBytes) {
    why = `its shortest call forces ${forcedUnits} repeated units in a ${bytes}-byte grammar, which would take about ${Math.round((forcedUnits * bytes * 10) / 1e6)} MB or more to evaluate (bound: ${limits.maxForcedBytes / 1024 / 1024} M unit-bytes); lower minLength / minItems`;
  }
  if (why === undefined) return;
  const path = pointerOf(grammar);
  throw new QtcException({ code: "schema_too_large", message: `the tools are too costly to constrain: ${why}${path ? ` (${path})` : ""}`, ...(path ? { path } : {}) });
}

/** The GBNF with quoted literals and character classes blanked, so only structure (names, `{m,n}`) is read. */
function withoutLiterals(gbnf: string): string {
  return gbnf.replace(/"(?:[^"\\]|\\.)*"|\[(?:[^\]\\]|\\.)*\]/g, '""');
}

/**
 * The pointer of the tool whose rules hold the heaviest repetition (`/tools/<i>`): the rule with the largest
 * minimum, then the tool whose call rule reaches it. Undefined when it cannot be told from the rules.
 */
function pointerOf(grammar: GrammarShape): string | undefined {
  const tools = grammar.tools ?? [];
  if (tools.length === 1) return "/tools/0";
  const bodies = new Map<string, string>();
  for (const line of withoutLiterals(grammar.gbnf).split("\n")) {
    const at = line.indexOf("::=");
    if (at > 0) bodies.set(line.slice(0, at).trim(), line.slice(at + 3));
  }
  let heaviest: string | undefined;
  let most = 0;
  for (const [name, body] of bodies) {
    for (const m of body.matchAll(/\{(\d+)/g)) if (Number(m[1]) > most) [most, heaviest] = [Number(m[1]), name];
  }
  if (heaviest === undefined) return undefined;
  for (let i = 0; i < tools.length; i++) {
    const start = [...bodies.keys()].find((n) => n.startsWith(`tool-${tools[i]!.name}-`));
    if (start && reaches(bodies, start, heaviest)) return `/tools/${i}`;
  }
  return undefined;
}

function reaches(bodies: ReadonlyMap<string, string>, from: string, target: string): boolean {
  const seen = new Set<string>([from]);
  const stack = [from];
  while (stack.length > 0) {
    const name = stack.pop()!;
    if (name === target) return true;
    for (const ref of (bodies.get(name) ?? "").match(/[A-Za-z][\w-]*/g) ?? []) {
      if (bodies.has(ref) && !seen.has(ref)) {
        seen.add(ref);
        stack.push(ref);
      }
    }
  }
  return false;
}
