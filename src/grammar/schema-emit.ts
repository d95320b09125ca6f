// Owns: GBNF for any value of the value tree within a byte budget: unions, arrays (tuples and repetitions),
// objects (required and optional members in schema order, bounded extra keys) and a qwen3coder parameter list.
// Budgets shrink at every level, so recursive schemas end when no budget is left for another level.

import { ITEM_SEP_BYTES as SEP, JSON_SPELLING, KEY_SEP_BYTES, utf8Length } from "./canonical-json.js";
import {
  type Emitted,
  emitBoolean,
  emitLiteral,
  emitNull,
  emitNumber,
  emitString,
  keyLiteral,
  literalText,
  type ScalarContext,
} from "./emit-scalars.js";
import { literal } from "./gbnf.js";
import { extraKeyRule } from "./extra-key.js";
import {
  allocate,
  type Cost,
  Costs,
  DEFAULT_ARRAY_ITEMS,
  DEFAULT_EXTRA_KEYS,
  EXTRA_KEY_BYTES,
  keyBytes,
  planRepeat,
} from "./schema-cost.js";
import { deref, type Node } from "./schema-nodes.js";
import { SCHEMA_LIMITS } from "./limits.js";
import { allocateShared, type BudgetSplit, deeper, ladder, planRepeatShared, SHARED_MAX_EXTRA } from "./budget-share.js";

export type { Emitted };

/** Most values nested inside one another that one emit follows (each costs a few stack frames). */
export const MAX_EMIT_DEPTH = 400;

/** Thrown when one compile's emit work passes SCHEMA_LIMITS.maxEmitSteps; the compiler turns it into a Result. */
export class EmitTooLarge extends Error {
  constructor(readonly path: string) {
    super("emit work over the limit");
  }
}

/** Work one emit of a node does in itself (its members, options or values), in emit steps. */
function stepsOf(n: Node): number {
  return 1 + (n.k === "literal" ? n.values.length : n.k === "object" ? n.props.length : n.k === "union" ? n.options.length : n.k === "array" ? n.prefix.length : 0);
}

/** Spelling of a qwen3coder parameter block: `open NAME end` VALUE `close`. */
export interface ParamSpelling {
  /** Text before the name, e.g. `<parameter=`. */
  open: string;
  /** Text between the name and the value, e.g. `>\n`. */
  end: string;
  /** Text after the value, e.g. `\n</parameter>\n`. */
  close: string;
}

interface Member {
  expr: string;
  optional: boolean;
}

/** Emits values of one grammar; memoized by (node, budget, raw). */
export class ValueEmitter {
  readonly costs: Costs;
  private readonly memo = new Map<string, Emitted | undefined>();
  private readonly active = new Set<string>();
  /** Shared split: the innermost budget each `$ref` node is being emitted at (recursion goes deeper() from it). */
  private readonly refBudget = new Map<number, number>();
  private steps = 0;

  constructor(
    private readonly ctx: ScalarContext,
    /** How a value's budget is split among its parts (see budget-share.ts). Default: "worst-case". */
    readonly split: BudgetSplit = "worst-case",
  ) {
    this.costs = new Costs((n) => ctx.planner.plan(n));
  }

  private get shared(): boolean {
    return this.split === "shared";
  }

  cost(node: Node, raw = false): Cost {
    return { min: this.costs.min(node, raw), max: this.costs.max(node, raw) };
  }

  /** The value within `budget` bytes; undefined when even its least spelling does not fit. */
  emit(node: Node, budgetIn: number, raw = false): Emitted | undefined {
    const budget = this.shared ? this.sharedBudget(node, budgetIn, raw) : budgetIn;
    const key = `${node.id}:${budget}:${raw}`;
    if (this.memo.has(key)) return this.memo.get(key);
    // Past MAX_EMIT_DEPTH nested values the value is not admitted (recursion ends there, as where no budget is
    // left): a deeper emit would overflow the stack.
    if (this.active.has(key) || budget < this.costs.min(node, raw) || this.active.size >= MAX_EMIT_DEPTH) return undefined;
    // Every distinct (node, budget) pair is work; a schema whose plan needs too many is refused, not run.
    // Pattern cap searches are work too (a URL pattern with 1,000 outer repetitions took seconds per budget).
    this.steps += stepsOf(node);
    if (this.steps + this.ctx.planner.patternSteps > SCHEMA_LIMITS.maxEmitSteps) throw new EmitTooLarge(node.path);
    this.active.add(key);
    const outer = this.refBudget.get(node.id);
    if (this.shared && node.k === "ref") this.refBudget.set(node.id, budget);
    const out = this.emitLocal(node, budget, raw);
    if (this.shared && node.k === "ref") {
      if (outer === undefined) this.refBudget.delete(node.id);
      else this.refBudget.set(node.id, outer);
    }
    this.active.delete(key);
    this.memo.set(key, out);
    return out;
  }

  /**
   * Shared split: budgets on the ladder (siblings share rules), and a `$ref` reached again inside itself a
   * quarter less than where it was entered, so recursion ends after a few dozen levels. A budget that holds
   * the value's longest spelling is that spelling's size, never rounded below it (a 30-character name given 122
   * bytes was rounded to 120 and then held 9 characters, counted in bytes instead of code points).
   */
  private sharedBudget(node: Node, budget: number, raw: boolean): number {
    const outer = node.k === "ref" ? this.refBudget.get(node.id) : undefined;
    const b = outer === undefined ? budget : Math.min(budget, deeper(outer));
    const most = this.costs.max(node, raw);
    return b >= most ? most : ladder(b);
  }

  private emitLocal(n: Node, budget: number, raw: boolean): Emitted | undefined {
    switch (n.k) {
      case "ref":
        return this.emit(n.target!, budget, raw);
      case "null":
        return emitNull(this.ctx, budget, raw);
      case "boolean":
        return emitBoolean(this.ctx, budget, raw);
      case "literal":
        return emitLiteral(this.ctx, n, budget, raw);
      case "integer":
      case "number":
        return emitNumber(this.ctx, n, budget);
      case "string":
        return emitString(this.ctx, n, budget, raw);
      case "union": {
        const emitted = n.options.map((o) => this.emit(o, budget, raw));
        // An essential option some value satisfies but the grammar could not spell fails the union (one no value
        // satisfies is left out: that is exact).
        if (emitted.slice(0, n.essential ?? 0).some((e, i) => e === undefined && Number.isFinite(this.costs.min(n.options[i]!)))) return undefined;
        const parts = emitted.filter((e): e is Emitted => e !== undefined);
        if (parts.length === 0) return undefined;
        const alts = [...new Set(parts.map((p) => p.expr))];
        const expr = alts.length === 1 ? alts[0]! : this.ctx.rules.add(n.hint, alts.join(" | "));
        return { expr, worst: Math.max(...parts.map((p) => p.worst)) };
      }
      case "array":
        return this.emitArray(n, budget);
      case "object":
        return this.emitObject(n, budget);
    }
  }

  private emitArray(n: Node & { k: "array" }, budget: number): Emitted | undefined {
    const r = this.ctx.rules;
    const maxTotal = Math.min(n.maxItems ?? Infinity, n.items === null ? n.prefix.length : Infinity);
    const prefix = n.prefix.slice(0, Math.min(n.prefix.length, maxTotal));
    // An item no value satisfies cannot repeat: only the tuple positions (or `[]`) are left.
    const restMax = n.items === null || !Number.isFinite(this.costs.min(n.items)) ? 0 : maxTotal - prefix.length;
    const restMin = Math.max(0, n.minItems - prefix.length);
    const itemCost = n.items ? this.cost(n.items) : { min: 0, max: 0 };
    const restCost = (): Cost => ({
      min: restMin * (itemCost.min + SEP),
      max: Number.isFinite(restMax) && Number.isFinite(itemCost.max) ? restMax * (itemCost.max + SEP) : Infinity,
    });
    // Positions beyond minItems are optional: drop the last ones while the least spelling does not fit.
    const costs = prefix.map((p) => this.cost(p));
    // Every item is charged its separator; the first writes none, so the budget is credited one (SEP).
    let kept = prefix.length;
    const restLeast = restMax > 0 ? restCost().min : 0;
    let least = 2 + costs.reduce((s, c) => s + c.min + SEP, 0) + restLeast;
    const credit = (k: number) => (k > 0 || restMin > 0 ? SEP : 0);
    while (kept > n.minItems && least - credit(kept) > budget) least -= costs[--kept]!.min + SEP;
    if (least - credit(kept) > budget) return undefined;
    const useRest = restMax > 0 && kept === prefix.length;
    const consumers = [...costs.slice(0, kept), ...(useRest ? [restCost()] : [])];
    const split = this.shared ? allocateShared : allocate;
    const shares = split(budget - 2 - SEP * kept + (kept > 0 || useRest ? SEP : 0), consumers);
    if (!shares) return undefined;
    const elems: Emitted[] = [];
    for (let i = 0; i < kept; i++) {
      const e = this.emit(prefix[i]!, shares[i]!);
      if (!e) return undefined;
      elems.push(e);
    }
    let count = 0;
    let item: Emitted | undefined;
    if (useRest) {
      const plan = this.shared
        ? planRepeatShared(shares[kept]!, itemCost, SEP, restMin, restMax)
        : planRepeat(shares[kept]!, itemCost, SEP, restMin, Math.min(restMax, 1000), defaultItems(budget));
      if (!plan) return undefined;
      count = plan.count;
      if (count > 0) {
        item = this.emit(n.items!, plan.itemBytes);
        if (!item) return undefined;
      }
    }
    const total = kept + count;
    const worst = 2 + elems.reduce((s, e) => s + e.worst, 0) + count * (item?.worst ?? 0) + SEP * Math.max(0, total - 1);
    let body: string;
    if (kept === 0) {
      if (count === 0 || !item) body = '"[]"';
      else {
        const next = r.add(`${n.hint}-next`, `${literal(JSON_SPELLING.itemSep)} ${item.expr}`);
        const more = repeat(next, Math.max(0, n.minItems - 1), count - 1);
        body = n.minItems >= 1 ? `"[" ${item.expr} ${more} "]"` : `"[" (${item.expr} ${more})? "]"`;
      }
    } else {
      let tail = "";
      if (count > 0 && item) tail = repeat(r.add(`${n.hint}-next`, `${literal(JSON_SPELLING.itemSep)} ${item.expr}`), restMin, count);
      for (let i = kept - 1; i >= 1; i--) {
        const seg = `${literal(JSON_SPELLING.itemSep)} ${elems[i]!.expr}${tail ? " " + tail : ""}`;
        tail = i < n.minItems ? seg : `(${seg})?`;
      }
      const first = `${elems[0]!.expr}${tail ? " " + tail : ""}`;
      body = n.minItems >= 1 ? `"[" ${first} "]"` : `"[" (${first})? "]"`;
    }
    return { expr: r.add(n.hint, body), worst };
  }

  private emitObject(n: Node & { k: "object" }, budget: number): Emitted | undefined {
    const extras = Math.min(this.shared ? SHARED_MAX_EXTRA : defaultExtras(budget), n.maxExtra ?? Infinity);
    const members = this.planMembers(n, budget - 2, (name) => keyBytes(name) + SEP, this.jsonExtra(n, extras), false, SEP);
    if (!members) return undefined;
    if (n.nonEmpty && members.props.length === 0 && !members.extra) return undefined;
    if (n.minExtra && (members.extra?.count ?? 0) < n.minExtra) return undefined;
    const items: Member[] = members.props.map((m) => ({ expr: `${keyLiteral(m.name)} ${m.value.expr}`, optional: m.optional }));
    const extra = members.extra && { expr: members.extra.value.expr, count: members.extra.count };
    const inner = this.members(n.hint, items, extra, literal(JSON_SPELLING.itemSep), n.nonEmpty === true, n.minExtra);
    const body = inner ? `"{" ${inner} "}"` : '"{}"';
    return { expr: this.ctx.rules.add(n.hint, body), worst: 2 + members.worst };
  }

  /**
   * Extra members of a JSON object: keys the trie spells (not listed names) with the `extra` value, and keys
   * of each pattern (patternProperties) with that pattern's value. `emit` gives the whole member; every key is
   * charged the longest key's bytes in `overhead`.
   */
  private jsonExtra(n: Node & { k: "object" }, count: number): ExtraSpec | undefined {
    const patterns = n.patternKeys ?? [];
    if (count <= 0 || (!n.extra && patterns.length === 0)) return undefined;
    const keySep = literal(`"${JSON_SPELLING.keySep}`);
    const valueNodes = [...(n.extra ? [n.extra] : []), ...patterns.map((x) => x.value)];
    const costs = valueNodes.map((v) => this.cost(v));
    const keyBytes = PATTERN_KEY_BYTES[this.split] + 2;
    // Shared split: an extra key is a string the schema leaves unbounded, so it is not counted (its least, one
    // character, is): 24 bytes refused real keys (`deletionGracePeriodSeconds`, `ingressclass.kubernetes.io/…`).
    const extraKeyLeast = this.shared ? 3 : EXTRA_KEY_BYTES + 2;
    // A pattern key is charged its longest spelling (`^k[0-2]$`: 4 bytes), not the cap: the cap alone (256 bytes
    // under the shared split) left no room for any member of a short pattern at a few hundred bytes.
    const keyMost = Math.max(n.extra ? extraKeyLeast : 0, ...patterns.map((x) => this.emit(x.key, keyBytes)?.worst ?? keyBytes));
    return {
      count,
      overhead: SEP + keyMost + KEY_SEP_BYTES,
      cost: { min: Math.min(...costs.map((c) => c.min)), max: Math.max(...costs.map((c) => c.max)) },
      emit: (bytes) => {
        const alts: string[] = [];
        let worst = -1;
        const key = n.extra ? this.extraKey(n, true, this.shared ? Infinity : EXTRA_KEY_BYTES) : undefined;
        if (n.extra && key) {
          const value = this.emit(n.extra, bytes);
          if (value) {
            alts.push(`"\\"" ${key} ${keySep} ${value.expr}`);
            worst = this.shared ? Infinity : Math.max(worst, value.worst);
          }
        }
        for (const x of patterns) {
          const key = this.emit(x.key, keyBytes);
          const value = key && this.emit(x.value, bytes);
          if (!key || !value) continue;
          alts.push(`${key.expr} ${literal(JSON_SPELLING.keySep)} ${value.expr}`);
          worst = Math.max(worst, value.worst);
        }
        if (alts.length === 0) return undefined;
        return { expr: alts.length === 1 ? alts[0]! : this.ctx.rules.add(`${n.hint}-member`, alts.join(" | ")), worst };
      },
    };
  }

  /**
   * A qwen3coder parameter list for an object node: one block per member, optional ones may be left out,
   * at most one extra parameter (a repeated name is an error there).
   */
  emitParams(n: Node, budget: number, p: ParamSpelling): Emitted | undefined {
    const node = deref(n);
    if (node.k === "literal") {
      const texts = node.values
        .filter((v): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v))
        .map((v) => Object.entries(v).map(([k, x]) => p.open + k + p.end + literalText(x, true) + p.close).join(""))
        .filter((t) => utf8Length(t) <= budget);
      if (texts.length === 0) return undefined;
      return { expr: this.ctx.rules.add(n.hint, texts.map(literal).join(" | ")), worst: Math.max(...texts.map(utf8Length)) };
    }
    if (node.k === "union") {
      const parts = node.options.map((o) => this.emitParams(o, budget, p)).filter((e): e is Emitted => e !== undefined);
      if (parts.length === 0) return undefined;
      return { expr: this.ctx.rules.add(n.hint, parts.map((e) => e.expr).join(" | ")), worst: Math.max(...parts.map((e) => e.worst)) };
    }
    if (node.k !== "object") return undefined;
    const fixed = utf8Length(p.open + p.end + p.close);
    // Pattern keys (patternProperties) are not written as parameters: fewer members, never an invalid one.
    const extra = node.extra;
    const spec: ExtraSpec | undefined = extra && Math.min(1, node.maxExtra ?? 1) > 0
      ? { count: 1, overhead: fixed + EXTRA_KEY_BYTES, cost: this.cost(extra, true), emit: (bytes) => this.emit(extra, bytes, true) }
      : undefined;
    const members = this.planMembers(node, budget, (name) => fixed + utf8Length(name), spec, true, 0);
    if (node.nonEmpty && members && members.props.length === 0 && !members.extra) return undefined;
    // qwen3coder writes at most one extra parameter: a minimum of several is not spelled (the tool is left out).
    if (!members || node.minExtra) return undefined;
    // minProperties 1 (nonEmpty): the first member is always written (a subset: never an empty list).
    const parts: string[] = members.props.map((m, i) => {
      const block = `${literal(p.open + m.name + p.end)} ${m.value.expr} ${literal(p.close)}`;
      return m.optional && !(node.nonEmpty && i === 0) ? `(${block})?` : block;
    });
    const key = members.extra && this.extraKey(node);
    if (members.extra && key) {
      const block = `${literal(p.open)} ${key} ${literal(p.end)} ${members.extra.value.expr} ${literal(p.close)}`;
      parts.push(node.nonEmpty && members.props.length === 0 ? block : `(${block})?`);
    } else if (node.nonEmpty && members.props.length === 0) return undefined;
    if (parts.length === 0) return { expr: '""', worst: 0 };
    return { expr: this.ctx.rules.add(n.hint, parts.join(" ")), worst: members.worst };
  }

  /** An object's members with their overhead and value cost; optional members no value satisfies are never written. */
  private writableMembers(n: Node & { k: "object" }, overhead: (name: string) => number, raw: boolean) {
    return n.props
      .map((p) => ({ p, over: overhead(p.name), cost: this.cost(p.node, raw) }))
      .filter((x) => x.p.required || Number.isFinite(x.cost.min));
  }

  /**
   * Budget split for an object's members (and its extra keys), and each member's value. `overhead` includes a
   * separator, which the first member does not write: `firstDiscount` gives it back.
   */
  private planMembers(
    n: Node & { k: "object" },
    space: number,
    overhead: (name: string) => number,
    extraSpec: ExtraSpec | undefined,
    raw: boolean,
    firstDiscount: number,
  ): MemberPlan | undefined {
    if (this.shared) return this.planMembersShared(n, space, overhead, extraSpec, raw, firstDiscount);
    const props = this.writableMembers(n, overhead, raw);
    // Drop optional members from the last while the least spelling does not fit (one pass, not one per drop).
    const dropped = new Set<number>();
    let sum = props.reduce((s, x) => s + x.over + x.cost.min, 0);
    const least = () => (props.length > dropped.size ? sum - firstDiscount : 0);
    for (let i = props.length - 1; i >= 0 && least() > space; i--) {
      if (props[i]!.p.required) continue;
      dropped.add(i);
      sum -= props[i]!.over + props[i]!.cost.min;
    }
    if (least() > space) return undefined;
    const kept = dropped.size === 0 ? props : props.filter((_, i) => !dropped.has(i));
    const discount = () => (kept.length > 0 ? firstDiscount : 0);
    const extraCost = extraSpec?.cost;
    const consumers: Cost[] = [...kept.map((x) => x.cost), ...(extraCost ? [{ min: 0, max: Infinity }] : [])];
    const shares = allocate(space - kept.reduce((s, x) => s + x.over, 0) + discount(), consumers);
    if (!shares) return undefined;
    const out: MemberPlan["props"] = [];
    let worst = -discount();
    const values: Emitted[] = [];
    for (const [i, x] of kept.entries()) {
      const value = this.emit(x.p.node, shares[i]!, raw);
      // An optional member whose value does not fit its share is left out, not its whole object.
      if (!value && x.p.required) return undefined;
      values.push(value ?? { expr: "", worst: -1 });
    }
    // What a member could not use (e.g. an array too short for one more item) goes to the members before it
    // that used all of theirs, in order.
    if (!extraCost) {
      let slack = values.reduce((sum, v, i) => sum + shares[i]! - Math.max(0, v.worst), 0);
      for (let i = 0; i < kept.length && slack > 0; i++) {
        if (values[i]!.worst < 0 || values[i]!.worst < shares[i]! || kept[i]!.cost.max <= shares[i]!) continue;
        const more = this.emit(kept[i]!.p.node, shares[i]! + slack, raw);
        if (!more || more.worst <= values[i]!.worst) continue;
        slack -= more.worst - values[i]!.worst;
        shares[i] = shares[i]! + (more.worst - values[i]!.worst);
        values[i] = more;
      }
    }
    for (const [i, x] of kept.entries()) {
      if (values[i]!.worst < 0) continue;
      out.push({ name: x.p.name, value: values[i]!, optional: !x.p.required });
      worst += x.over + values[i]!.worst;
    }
    if (out.length === 0) worst = 0;
    let extra: { value: Emitted; count: number } | undefined;
    if (extraSpec) {
      const plan = planRepeat(shares[kept.length]!, extraSpec.cost, extraSpec.overhead, 0, extraSpec.count, extraSpec.count);
      if (plan && plan.count > 0) {
        const value = extraSpec.emit(plan.itemBytes);
        if (value) {
          extra = { value, count: plan.count };
          worst += plan.count * (extraSpec.overhead + value.worst);
        }
      }
    }
    return { props: out, extra, worst };
  }

  /**
   * The shared split of an object's members: each member's value may use what the required members around it
   * leave at their least (an optional one that does not fit even so is left out), and so may each extra member.
   */
  private planMembersShared(
    n: Node & { k: "object" },
    space: number,
    overhead: (name: string) => number,
    extraSpec: ExtraSpec | undefined,
    raw: boolean,
    firstDiscount: number,
  ): MemberPlan | undefined {
    const props = this.writableMembers(n, overhead, raw);
    const leastOf = (x: (typeof props)[number]) => x.over + x.cost.min;
    const required = props.filter((x) => x.p.required);
    const least = required.reduce((s, x) => s + leastOf(x), 0);
    // The first member written spends no separator; with no required member, each one may be that first.
    const room = space + firstDiscount;
    if (required.length > 0 && least - firstDiscount > space) return undefined;
    const out: MemberPlan["props"] = [];
    let worst = 0;
    for (const x of props) {
      const others = least - (x.p.required ? leastOf(x) : 0);
      const share = Math.min(x.cost.max, room - others - x.over);
      const value = share >= x.cost.min ? this.emit(x.p.node, share, raw) : undefined;
      if (!value && x.p.required) return undefined;
      if (!value) continue;
      out.push({ name: x.p.name, value, optional: !x.p.required });
      worst += x.over + value.worst;
    }
    if (out.length > 0) worst -= firstDiscount;
    let extra: MemberPlan["extra"];
    if (extraSpec) {
      const plan = planRepeatShared(room - least, extraSpec.cost, extraSpec.overhead, 0, extraSpec.count);
      const value = plan && plan.count > 0 ? extraSpec.emit(plan.itemBytes) : undefined;
      if (plan && value) {
        extra = { value, count: plan.count };
        worst += plan.count * (extraSpec.overhead + value.worst);
      }
    }
    return { props: out, extra, worst };
  }

  /**
   * Members in schema order, `sep` between them; optional ones may be left out, then up to `extra.count`
   * extra members. head(i) = nothing written yet, tail(i) = something written (so a separator comes first).
   */
  private members(hint: string, items: Member[], extra: { expr: string; count: number } | undefined, sep: string, nonEmpty = false, minExtra = 0): string {
    const r = this.ctx.rules;
    const n = items.length;
    const extraNext = extra ? r.add(`${hint}-extra`, `${sep} ${extra.expr}`) : "";
    // Built from the last member back (iteratively: a wide object must not recurse once per member), in the
    // order the rules were always added: every tail first, then the heads.
    const optionalFrom: boolean[] = new Array(n + 1).fill(false);
    for (let i = n - 1; i >= 0; i--) optionalFrom[i] = items[i]!.optional || optionalFrom[i + 1]!;
    const tails: string[] = new Array(n + 1);
    tails[n] = extra ? repeat(extraNext, minExtra, extra.count) : "";
    for (let i = n - 1; i >= 1; i--) {
      const rest = tails[i + 1]!;
      const seg = `${sep} ${items[i]!.expr}`;
      let expr = `${items[i]!.optional ? `(${seg})?` : seg}${rest ? " " + rest : ""}`;
      if (optionalFrom[i] && rest) expr = r.add(`${hint}-rest`, expr);
      tails[i] = expr;
    }
    let j = 0;
    while (j < n && items[j]!.optional) j++;
    let head: string;
    // `nonEmpty` (minProperties 1): the same, without the choice of writing nothing.
    // `minExtra` (minProperties beyond the required members): at least that many extra members after the listed ones.
    const firstMin = Math.max(0, minExtra - 1);
    const extraHead = extra ? `${extra.expr}${extra.count > 1 ? " " + repeat(extraNext, firstMin, extra.count - 1) : ""}` : "";
    if (j === n && extra && minExtra > 0) head = extraHead;
    else if (j === n) head = extra ? (nonEmpty ? `(${extraHead})` : `(${extraHead})?`) : "";
    else head = `${items[j]!.expr}${tails[j + 1] ? " " + tails[j + 1] : ""}`;
    for (let i = j - 1; i >= 0; i--) {
      const rest = tails[i + 1]!;
      const first = `${items[i]!.expr}${rest ? " " + rest : ""}`;
      head = r.add(`${hint}-from`, head ? `${first} | ${head}` : nonEmpty ? first : `(${first})?`);
    }
    return head;
  }

  /**
   * An extra key (see extra-key.ts): JSON keys of any character where unbounded and no pattern shaped the object;
   * avoiding the patterns where it did. Undefined when no key is left.
   */
  private extraKey(n: Node & { k: "object" }, json = false, most: number = EXTRA_KEY_BYTES): string | undefined {
    const names = n.props.map((p) => p.name);
    return extraKeyRule(this.ctx.rules, names, { kind: json ? "json" : "name", most, wide: !n.keyAvoid, ...(n.keyAvoid ? { avoid: n.keyAvoid } : {}) });
  }
}

/**
 * Bytes a pattern key (patternProperties) may take between its quotes: the pattern emitter charges a `.` the
 * 4 bytes of the widest character, so 64 bytes are 16 free characters. More under the shared split.
 */
export const PATTERN_KEY_BYTES = { "worst-case": 64, shared: 256 } as const;

/**
 * How an object's extra members are written: at most `count`, each charged `overhead` bytes (separator and
 * key) plus its value's; `emit` gives the member (JSON) or the value (qwen3coder) within a value budget.
 */
interface ExtraSpec {
  count: number;
  overhead: number;
  cost: Cost;
  emit: (bytes: number) => Emitted | undefined;
}

/** An object's members as planned: each member's value, the extra members, the most bytes of them all. */
interface MemberPlan {
  props: { name: string; value: Emitted; optional: boolean }[];
  extra?: { value: Emitted; count: number };
  worst: number;
}


/**
 * Items an unbounded array gets: DEFAULT_ARRAY_ITEMS, more as the budget grows (one per 256 bytes, at most 64), so
 * a large budget is not split among four items only.
 */
function defaultItems(budget: number): number {
  return Math.max(DEFAULT_ARRAY_ITEMS, Math.min(64, Math.floor(budget / 256)));
}

/** Extra members an open object gets: DEFAULT_EXTRA_KEYS, one more per 512 bytes of budget, at most 16. */
function defaultExtras(budget: number): number {
  return Math.max(DEFAULT_EXTRA_KEYS, Math.min(16, Math.floor(budget / 512)));
}

function repeat(rule: string, min: number, max: number): string {
  if (max <= 0) return "";
  return min === max ? `${rule}{${min}}` : `${rule}{${min},${max}}`;
}

