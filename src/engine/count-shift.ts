// Owns: finding a program's counted rule families and mapping a parser position deep in one to the same position
// at a lower count. A bounded string is a family of rules, one per count of bytes left (`jb4096 ::= "" | j1 jb4095 |
// … | "<" jbl4095`), so each of its positions is a parser state of its own, and each state's first mask cost a
// walk of its own: 398 new masks in one MaskBench schema (maxLength 4096) held 2 distinct ones. Far from the bottom
// of the count, two positions differ only where the count runs out, which no token reaches: such a position masks
// as the same position at a fixed lower count does (StackPool.canonical). Rules are matched by name and checked
// element by element, so a name that merely ends in a number is never trusted.

import { EL, type Program } from "./gbnf-program.js";

/** Rules named `<prefix><n>`: the prefix and n. */
const NUMBERED = /^(.*?)(\d+)$/;

/**
 * The program's counted families. A family member `F_n` is *uniform* when its body is its predecessor's `F_{n-1}`,
 * element by element, with every reference to a family member `G_a` there one to `G_{a-1}` here (a *shifted*
 * reference), every other reference the same rule, and every shifted reference after an element that cannot be
 * empty (so each step down a count reads a character first). A family is counted from `uniformFrom` up, where all
 * its members are uniform; for any k, F_n and F_{n-k} then read alike as long as the counts stay at `uniformFrom`
 * or above.
 */
export interface CountedFamilies {
  /** The lowest count every counted family is uniform from. */
  readonly uniformFrom: number;
  /** The most a shifted reference lowers a count. */
  readonly maxDrop: number;
  /** The count of a rule in a counted family (at `uniformFrom` or above, or below it); -1 for other rules. */
  countOf(rule: number): number;
  /** The rule an element of the program (its index into `code`) belongs to. */
  ruleAt(pos: number): number;
  /** The same element in the family member `k` counts lower (the rule at `pos` is counted, at least k above its bottom). */
  shiftDown(pos: number, k: number): number;
}

/**
 * The counted families of `program`, or undefined where it has none (most grammars: counted strings only come from
 * maxLength, and budgets of thousands of bytes).
 */
export function countedFamilies(program: Program): CountedFamilies | undefined {
  const families = numberedFamilies(program);
  if (families.size === 0) return undefined;
  const ruleFamily = new Map<number, { members: Map<number, number>; count: number }>();
  for (const members of families.values()) for (const [n, rule] of members) ruleFamily.set(rule, { members, count: n });
  const nullable = nullableRules(program);
  let maxDrop = 0;
  // Each member against its predecessor, alone: uniform or not, and the families its shifted references lead into.
  const uniform = new Map<number, boolean>();
  const leadsInto = new Map<number, Map<number, number>[]>();
  for (const members of families.values()) {
    for (const [n, rule] of members) {
      const below = members.get(n - 1);
      const check = below === undefined ? undefined : matchesBelow(program, rule, below, ruleFamily, nullable);
      uniform.set(rule, check !== undefined);
      if (!check) continue;
      leadsInto.set(rule, check.targets.map((t) => ruleFamily.get(t)!.members));
      maxDrop = Math.max(maxDrop, check.maxDrop);
    }
  }
  // A family is counted from the lowest n above which every member is uniform. A member leading into a family that
  // is not counted is not uniform after all (its counterpart lower down reads other rules), until nothing changes.
  const from = new Map<Map<number, number>, number>();
  const countFrom = (members: Map<number, number>) => {
    const top = Math.max(...members.keys());
    let n = top + 1;
    while (members.has(n - 1) && uniform.get(members.get(n - 1)!)) n--;
    if (n > top) from.delete(members);
    else from.set(members, n);
  };
  for (const members of families.values()) countFrom(members);
  for (let changed = true; changed; ) {
    changed = false;
    for (const [members, n0] of [...from]) {
      for (const [n, rule] of members) {
        if (n < n0 || !uniform.get(rule) || (leadsInto.get(rule) ?? []).every((m) => from.has(m))) continue;
        uniform.set(rule, false);
        changed = true;
      }
      if (changed) countFrom(members);
    }
  }
  const counted = new Map<number, number>();
  let uniformFrom = 0;
  for (const [members, n0] of from) {
    uniformFrom = Math.max(uniformFrom, n0);
    for (const [n, rule] of members) counted.set(rule, n);
  }
  if (counted.size === 0 || maxDrop === 0) return undefined;
  const rules = new Int32Array(program.code.length / 2).fill(-1);
  program.alts.forEach((starts, rule) => {
    for (const start of starts) for (let pos = start; ; pos += 2) {
      rules[pos >> 1] = rule;
      if (program.code[pos] === EL.end) break;
    }
  });
  return {
    uniformFrom,
    maxDrop,
    countOf: (rule) => counted.get(rule) ?? -1,
    ruleAt: (pos) => rules[pos >> 1]!,
    shiftDown(pos, k) {
      const rule = rules[pos >> 1]!;
      const { members, count } = ruleFamily.get(rule)!;
      const lower = members.get(count - k)!;
      // Uniform members are laid out alike, alternative by alternative: the same offset from the rule's first one.
      return program.alts[lower]![0]! + (pos - program.alts[rule]![0]!);
    },
  };
}

/** Rules named `<prefix><n>`, by prefix: n → rule (a prefix with one member is no family). */
function numberedFamilies(program: Program): Map<string, Map<number, number>> {
  const out = new Map<string, Map<number, number>>();
  program.ruleNames.forEach((name, rule) => {
    const m = NUMBERED.exec(name);
    if (!m) return;
    let members = out.get(m[1]!);
    if (!members) out.set(m[1]!, (members = new Map()));
    members.set(Number(m[2]), rule);
  });
  for (const [prefix, members] of out) if (members.size < 2) out.delete(prefix);
  return out;
}

/**
 * Whether each rule can derive the empty text: an alternative of references alone is empty once each of them is,
 * counted down as rules are found empty (one pass over the program, not a fixpoint over it: this runs on the first
 * mask of every grammar with numbered rules).
 */
function nullableRules(program: Program): Uint8Array {
  const { code, alts } = program;
  const nullable = new Uint8Array(alts.length);
  /** Per alternative of references alone: its rule, and how many of its references are not yet known empty. */
  const altRule: number[] = [];
  const waiting: number[] = [];
  const waitersOf = new Map<number, number[]>();
  const found: number[] = [];
  const markEmpty = (rule: number) => {
    if (nullable[rule]) return;
    nullable[rule] = 1;
    found.push(rule);
  };
  alts.forEach((starts, rule) => {
    for (const start of starts) {
      let refs = 0;
      let reads = false;
      for (let pos = start; code[pos] !== EL.end; pos += 2) {
        if (code[pos] === EL.ref) refs++;
        else reads = true;
      }
      if (reads) continue;
      if (refs === 0) {
        markEmpty(rule);
        continue;
      }
      const alt = altRule.push(rule) - 1;
      waiting.push(refs);
      for (let pos = start; code[pos] !== EL.end; pos += 2) {
        const target = code[pos + 1]!;
        const list = waitersOf.get(target);
        if (list) list.push(alt);
        else waitersOf.set(target, [alt]);
      }
    }
  });
  while (found.length > 0) {
    const rule = found.pop()!;
    for (const alt of waitersOf.get(rule) ?? []) if (--waiting[alt]! === 0) markEmpty(altRule[alt]!);
  }
  return nullable;
}

/**
 * `rule` against `below` (its predecessor): the same alternatives, element by element, references to family members
 * one count higher (each after an element that cannot be empty) or to the same rule. Undefined where they differ;
 * else the members its shifted references lead to and the most they lower a count.
 */
function matchesBelow(
  program: Program,
  rule: number,
  below: number,
  family: ReadonlyMap<number, { count: number; members: ReadonlyMap<number, number> }>,
  nullable: Uint8Array,
): { targets: number[]; maxDrop: number } | undefined {
  const { code, alts } = program;
  const a = alts[rule]!;
  const b = alts[below]!;
  if (a.length !== b.length) return undefined;
  const count = family.get(rule)!.count;
  const targets: number[] = [];
  let maxDrop = 0;
  for (let j = 0; j < a.length; j++) {
    let guarded = false;
    for (let p = a[j]!, q = b[j]!; ; p += 2, q += 2) {
      const kind = code[p]!;
      if (kind !== code[q]) return undefined;
      if (kind === EL.end) break;
      const x = code[p + 1]!;
      const y = code[q + 1]!;
      if (kind !== EL.ref) {
        if (x !== y) return undefined;
        guarded = true;
        continue;
      }
      if (x !== y) {
        const fx = family.get(x);
        const fy = family.get(y);
        // A shifted reference: the same family, one count lower below, and something read before it.
        if (!fx || fx.members !== fy?.members || fx.count !== fy.count + 1 || !guarded) return undefined;
        targets.push(x);
        maxDrop = Math.max(maxDrop, count - fx.count);
      }
      if (!nullable[x]) guarded = true;
    }
  }
  return { targets, maxDrop };
}
