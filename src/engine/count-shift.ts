// Owns: finding a program's counted rule families and mapping a parser position deep in one to the same position
// at a lower count. A bounded string is a family of rules, one per count of bytes left (`jb4096 ::= "" | j1 jb4095 |
// … | "<" jbl4095`), so each of its positions is a parser state of its own, and each state's first mask cost a
// walk of its own: 398 new masks in one MaskBench schema (maxLength 4096) held 2 distinct ones. Far from the bottom
// of the count, two positions differ only where the count runs out, which no token reaches: such a position masks
// as the same position at a fixed lower count does (StackPool.canonical). Rules are matched by name and checked
// element by element, so a name that merely ends in a number is never trusted.

import { alternativesOf, EL, firstAlternative, ruleCount, type Program } from "./gbnf-program.js";

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
  /**
   * The canonical count: `uniformFrom` plus `maxDrop` for each character a token may spell (the horizon) and two
   * more. Any derivation a token spells from a state whose counts are all at the floor or above stays at
   * `uniformFrom` or above.
   */
  readonly floor: number;
  /** The count of a rule in a counted family (at `uniformFrom` or above, or below it); -1 for other rules. */
  countOf(rule: number): number;
  /** The rule an element of the program (its index into `code`) belongs to. */
  ruleAt(pos: number): number;
  /** The same element in the family member `k` counts lower (the rule at `pos` is counted, at least k above its bottom). */
  shiftDown(pos: number, k: number): number;
}

/**
 * The counted families of `program`, or undefined where none reaches far enough above its floor for a state to
 * shift (see StackPool.canonical; `horizon`: the most characters a token spells): most grammars (counted strings
 * only come from a maxLength or a budget of hundreds of bytes), and those without a rule numbered above the horizon
 * pay one look at the rules' names.
 */
export function countedFamilies(program: Program, horizon: number): CountedFamilies | undefined {
  const named = numberedFamilies(program, horizon + 2);
  if (named.size === 0) return undefined;
  // Per rule: its family (index into `families`) and its number; -1 for rules in none.
  const rules = ruleCount(program);
  const familyOf = new Int32Array(rules).fill(-1);
  const numberOf = new Int32Array(rules).fill(-1);
  const families: Family[] = [...named.values()].map((byNumber, f) => {
    let top = 0;
    for (const n of byNumber.keys()) top = Math.max(top, n);
    const members = new Int32Array(top + 1).fill(-1);
    for (const [n, rule] of byNumber) {
      members[n] = rule;
      familyOf[rule] = f;
      numberOf[rule] = n;
    }
    return { members, top, from: top + 1 };
  });
  const nullable = new Nullable(program);
  if (!mayReachPastFloor(program, families, familyOf, numberOf, nullable, horizon)) return undefined;
  let maxDrop = 0;
  // Each member against its predecessor, alone: uniform or not, and the families its shifted references lead into.
  const uniform = new Uint8Array(rules);
  const leadsInto = new Map<number, number[]>();
  for (const family of families) {
    for (let n = 1; n <= family.top; n++) {
      const rule = family.members[n]!;
      const below = family.members[n - 1]!;
      if (rule < 0 || below < 0) continue;
      const check = matchesBelow(program, rule, below, familyOf, numberOf, nullable);
      if (!check) continue;
      uniform[rule] = 1;
      if (check.into.length > 0) leadsInto.set(rule, check.into);
      maxDrop = Math.max(maxDrop, check.maxDrop);
    }
  }
  // A family is counted from the lowest n above which every member is uniform. A member leading into a family that
  // is not counted is not uniform after all (its counterpart lower down reads other rules), until nothing changes.
  const countFrom = (family: Family) => {
    let n = family.top + 1;
    while (n - 1 >= 1 && family.members[n - 1]! >= 0 && uniform[family.members[n - 1]!]) n--;
    family.from = n;
  };
  const counted = (f: number) => families[f]!.from <= families[f]!.top;
  families.forEach(countFrom);
  for (let changed = true; changed; ) {
    changed = false;
    for (const family of families) {
      let lost = false;
      for (let n = family.from; n <= family.top; n++) {
        const rule = family.members[n]!;
        if (!(leadsInto.get(rule) ?? []).every(counted)) {
          uniform[rule] = 0;
          lost = true;
        }
      }
      if (lost) {
        countFrom(family);
        changed = true;
      }
    }
  }
  let uniformFrom = 0;
  let highest = -1;
  const countOf = new Int32Array(rules).fill(-1);
  families.forEach((family, f) => {
    if (!counted(f)) return;
    uniformFrom = Math.max(uniformFrom, family.from);
    highest = Math.max(highest, family.top);
    for (let n = 0; n <= family.top; n++) if (family.members[n]! >= 0) countOf[family.members[n]!] = n;
  });
  const floor = uniformFrom + maxDrop * (horizon + 2);
  // No state can sit above the floor when no counted family reaches past it.
  if (uniformFrom === 0 || maxDrop === 0 || highest <= floor) return undefined;
  const ruleAtElement = new Int32Array(program.code.length / 2).fill(-1);
  for (let rule = 0; rule < rules; rule++) {
    for (const start of alternativesOf(program, rule)) for (let pos = start; ; pos += 2) {
      ruleAtElement[pos >> 1] = rule;
      if (program.code[pos] === EL.end) break;
    }
  }
  return {
    uniformFrom,
    maxDrop,
    floor,
    countOf: (rule) => countOf[rule]!,
    ruleAt: (pos) => ruleAtElement[pos >> 1]!,
    shiftDown(pos, k) {
      const rule = ruleAtElement[pos >> 1]!;
      const lower = families[familyOf[rule]!]!.members[numberOf[rule]! - k]!;
      // Uniform members are laid out alike, alternative by alternative: the same offset from the rule's first one.
      return firstAlternative(program, lower) + (pos - firstAlternative(program, rule));
    },
  };
}

/**
 * Whether some family may reach past the floor, judged from each family's top member alone. A family whose top
 * member does not read as the one below is never counted (`integer-min-0-max-1001` beside `-max-9` is no family),
 * and the floor is at least 1 + the drop of any uniform member × (horizon + 2): where no counted family's top can be
 * above that, no state can shift. Checking every member first cost 0.20–0.60 ms a grammar (warm, quiet machine) on
 * the generated and Claude Code's tools (strings of 126 and 190 bytes, each a family of as many members, against a
 * floor of 960), inside the first mask of each turn; this check leaves 0.12–0.43 ms, mostly reading the rules' names.
 */
function mayReachPastFloor(program: Program, families: readonly Family[], familyOf: Int32Array, numberOf: Int32Array, nullable: Nullable, horizon: number): boolean {
  let highest = 0;
  let drop = 1;
  for (const family of families) {
    const rule = family.members[family.top]!;
    const below = family.members[family.top - 1] ?? -1;
    const check = rule >= 0 && below >= 0 ? matchesBelow(program, rule, below, familyOf, numberOf, nullable) : undefined;
    if (!check) continue;
    highest = Math.max(highest, family.top);
    drop = Math.max(drop, check.maxDrop);
  }
  return highest > 1 + drop * (horizon + 2);
}

/** A family's members by number (-1: none so numbered), its top number, and the number it is counted from. */
interface Family {
  members: Int32Array;
  top: number;
  /** The lowest n from which every member up to the top is uniform; above `top` when none is. */
  from: number;
}

/**
 * Rules named `<prefix><n>`, by prefix: n → rule; none where no rule is numbered `least` or more (families that short
 * never hold a state deep enough to shift).
 */
function numberedFamilies(program: Program, least: number): Map<string, Map<number, number>> {
  const out = new Map<string, Map<number, number>>();
  let long = false;
  program.ruleNames.forEach((name, rule) => {
    // Most names end in a letter: the pattern is tried on the others only.
    const last = name.charCodeAt(name.length - 1);
    if (!(last >= 48 && last <= 57)) return;
    const m = NUMBERED.exec(name)!;
    const n = Number(m[2]);
    // A number past the count of rules names no member of a family (an integer's bound, 9007199254740991): members
    // are kept by number, in an array as long as the highest.
    if (n > ruleCount(program)) return;
    let members = out.get(m[1]!);
    if (!members) out.set(m[1]!, (members = new Map()));
    members.set(n, rule);
    if (n >= least) long = true;
  });
  if (!long) out.clear();
  for (const [prefix, members] of out) if (members.size < 2) out.delete(prefix);
  return out;
}

/**
 * Whether a rule can derive the empty text, found for the rules a question reaches (an alternative of references
 * alone is empty once each of them is): the guards of a bounded string's rules reach a few character rules, not the
 * whole program, which cost milliseconds on every grammar with a long family.
 */
class Nullable {
  /** Per rule: 1 empty, 0 not, -1 not asked yet. */
  private readonly known: Int8Array;

  constructor(private readonly program: Program) {
    this.known = new Int8Array(ruleCount(program)).fill(-1);
  }

  of(rule: number): boolean {
    if (this.known[rule]! < 0) this.solve(rule);
    return this.known[rule] === 1;
  }

  /** Settle every rule `root` reaches that is not settled yet (least fixpoint over them; the others are known). */
  private solve(root: number): void {
    const { code } = this.program;
    const alts = (r: number) => alternativesOf(this.program, r);
    const open: number[] = [];
    const inOpen = new Set<number>();
    for (const stack = [root]; stack.length > 0; ) {
      const r = stack.pop()!;
      if (this.known[r]! >= 0 || inOpen.has(r)) continue;
      inOpen.add(r);
      open.push(r);
      for (const start of alts(r)) for (let pos = start; code[pos] !== EL.end; pos += 2) if (code[pos] === EL.ref) stack.push(code[pos + 1]!);
    }
    const empty = new Set<number>();
    const isEmpty = (r: number) => this.known[r] === 1 || empty.has(r);
    const someAltEmpty = (r: number) =>
      alts(r).some((start) => {
        for (let pos = start; code[pos] !== EL.end; pos += 2) if (code[pos] !== EL.ref || !isEmpty(code[pos + 1]!)) return false;
        return true;
      });
    for (let changed = true; changed; ) {
      changed = false;
      for (const r of open) {
        if (empty.has(r) || !someAltEmpty(r)) continue;
        empty.add(r);
        changed = true;
      }
    }
    for (const r of open) this.known[r] = empty.has(r) ? 1 : 0;
  }
}

/**
 * `rule` against `below` (its predecessor): the same alternatives, element by element, references to family members
 * one number higher (each after an element that cannot be empty) or to the same rule. Undefined where they differ;
 * else the families its shifted references lead into and the most they lower a count.
 */
function matchesBelow(
  program: Program,
  rule: number,
  below: number,
  familyOf: Int32Array,
  numberOf: Int32Array,
  nullable: Nullable,
): { into: number[]; maxDrop: number } | undefined {
  const { code } = program;
  const a = alternativesOf(program, rule);
  const b = alternativesOf(program, below);
  if (a.length !== b.length) return undefined;
  const count = numberOf[rule]!;
  const into: number[] = [];
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
        // A shifted reference: the same family, one number lower below, and something read before it.
        if (familyOf[x]! < 0 || familyOf[x] !== familyOf[y] || numberOf[x] !== numberOf[y]! + 1 || !guarded) return undefined;
        if (!into.includes(familyOf[x]!)) into.push(familyOf[x]!);
        maxDrop = Math.max(maxDrop, count - numberOf[x]!);
      }
      if (!guarded && !nullable.of(x)) guarded = true;
    }
  }
  return { into, maxDrop };
}
