// Owns: what a value costs in the grammar's unit (UTF-8 bytes, a bound on tokens): the least budget a node
// needs, the most it can ever spell (Infinity when unbounded), and how a budget is split among the parts of an
// object, a tuple or a repetition.

import { canonicalJson, ITEM_SEP_BYTES as SEP, KEY_SEP_BYTES, utf8Length } from "./canonical-json.js";
import { digitsCost, fractionalBytes, integerBytes, numberBytes } from "./numbers.js";
import type { Node } from "./schema-nodes.js";
import type { StringPlan } from "./string-plan.js";

/** Items an unbounded array gets when the schema gives no maxItems (the budget is split among them). */
export const DEFAULT_ARRAY_ITEMS = 4;
/** Extra keys an object with `additionalProperties` may add (1 in qwen3coder, where a repeated name is an error). */
export const DEFAULT_EXTRA_KEYS = 4;
/** Longest extra key, in bytes (letters, digits and `_`). */
export const EXTRA_KEY_BYTES = 24;

/** Least and most bytes of a value; `raw` = a qwen3coder parameter value (strings unquoted). */
export interface Cost {
  min: number;
  max: number;
}

/** Cost tables for one value tree (memoized; recursion through $ref resolved by fixpoint). */
export class Costs {
  private readonly minMemo = new Map<string, number>();
  private readonly maxMemo = new Map<string, number>();
  private readonly maxActive = new Set<string>();

  constructor(private readonly strings: (node: Node & { k: "string" }) => StringPlan) {}

  min(node: Node, raw = false): number {
    const key = `${node.id}:${raw}`;
    const known = this.minMemo.get(key);
    if (known !== undefined) return known;
    // Least fixpoint (recursion through $ref): start at Infinity, relax every reachable node until stable.
    const work = new Map<string, number>();
    let done = new Set<string>();
    for (let round = 0; round < 256; round++) {
      let changed = false;
      done = new Set<string>();
      const active = new Set<string>();
      const visit = (n: Node, r: boolean): number => {
        const k = `${n.id}:${r}`;
        const final = this.minMemo.get(k);
        if (final !== undefined) return final;
        if (done.has(k) || active.has(k)) return work.get(k) ?? Infinity;
        active.add(k);
        const value = this.minLocal(n, r, visit);
        active.delete(k);
        done.add(k);
        if (value < (work.get(k) ?? Infinity)) {
          work.set(k, value);
          changed = true;
        }
        return work.get(k) ?? Infinity;
      };
      visit(node, raw);
      if (!changed) break;
    }
    for (const k of done) this.minMemo.set(k, work.get(k) ?? Infinity);
    return this.minMemo.get(key) ?? Infinity;
  }

  private minLocal(n: Node, raw: boolean, visit: (n: Node, raw: boolean) => number): number {
    const child = (c: Node, r = false) => visit(c, r);
    switch (n.k) {
      case "ref":
        return child(n.target!, raw);
      case "null":
        return 4;
      case "boolean":
        return 5;
      case "literal":
        return n.values.length === 0 ? Infinity : Math.min(...n.values.map((v) => literalBytes(v, raw)));
      case "integer":
      case "number":
        return numberCost(n).min;
      case "string":
        return this.strings(n).min + (raw ? 0 : 2);
      case "union":
        return n.options.length === 0 ? Infinity : Math.min(...n.options.map((o) => child(o, raw)));
      case "array":
        return arrayMin(n, (c) => child(c));
      case "object": {
        // Members are separated, not terminated: the first one writes no separator.
        const required = n.props.filter((p) => p.required);
        const requiredBytes = required.reduce((sum, p) => sum + keyBytes(p.name) + child(p.node) + SEP, 0);
        if (n.minExtra) {
          // The required members, then at least minExtra extra members (each after a separator but the first).
          const extra = n.extra ? 3 + KEY_SEP_BYTES + child(n.extra) : Infinity;
          const keyed = (n.patternKeys ?? []).map((x) => child(x.key) + KEY_SEP_BYTES + child(x.value));
          return 2 + requiredBytes + n.minExtra * Math.min(extra, ...keyed) + (n.minExtra - 1) * SEP;
        }
        if (n.nonEmpty && required.length === 0) {
          // At least one member: the cheapest listed one (an extra key costs at least `"a": ` and its value).
          const listed = n.props.map((p) => keyBytes(p.name) + child(p.node));
          const extra = n.extra ? 3 + KEY_SEP_BYTES + child(n.extra) : Infinity;
          // A pattern key counts too. An object that is a parameter's value is JSON in every format (the
          // parameter list itself, where qwen3coder writes no pattern keys, is costed by emitParams, not here).
          const keyed = (n.patternKeys ?? []).map((x) => child(x.key) + KEY_SEP_BYTES + child(x.value));
          return 2 + Math.min(extra, ...listed, ...keyed);
        }
        return 2 + requiredBytes - (required.length > 0 ? SEP : 0);
      }
    }
  }

  max(node: Node, raw = false): number {
    const key = `${node.id}:${raw}`;
    const known = this.maxMemo.get(key);
    if (known !== undefined) return known;
    if (this.maxActive.has(key)) return Infinity;
    this.maxActive.add(key);
    const value = this.maxLocal(node, raw);
    this.maxActive.delete(key);
    this.maxMemo.set(key, value);
    return value;
  }

  private maxLocal(n: Node, raw: boolean): number {
    switch (n.k) {
      case "ref":
        return this.max(n.target!, raw);
      case "null":
        return 4;
      case "boolean":
        return 5;
      case "literal":
        return Math.max(0, ...n.values.map((v) => literalBytes(v, raw)));
      case "integer":
      case "number":
        return numberCost(n).max;
      case "string":
        return this.strings(n).max + (raw ? 0 : 2);
      case "union":
        return Math.max(0, ...n.options.map((o) => this.max(o, raw)));
      case "array":
        return arrayMax(n, (c) => this.max(c));
      case "object":
        if (n.extra || n.patternKeys?.length) return Infinity;
        return 2 + n.props.reduce((sum, p) => sum + keyBytes(p.name) + this.max(p.node) + SEP, 0);
    }
  }
}

/**
 * Least bytes of an array: its first minItems positions (tuple items, then the repeated item) and their
 * separators, in closed form (minItems may be huge: no loop runs once per item).
 */
function arrayMin(n: Node & { k: "array" }, cost: (c: Node) => number): number {
  if (n.minItems === 0) return 2;
  const tuple = Math.min(n.minItems, n.prefix.length);
  let total = 2 + (n.minItems - 1) * SEP;
  for (let i = 0; i < tuple; i++) total += cost(n.prefix[i]!);
  const rest = n.minItems - tuple;
  if (rest > 0) total += n.items ? rest * cost(n.items) : Infinity;
  return total;
}

/** Most bytes of an array (Infinity without a bound), in closed form like arrayMin. */
function arrayMax(n: Node & { k: "array" }, cost: (c: Node) => number): number {
  const count = n.items === null ? Math.min(n.prefix.length, n.maxItems ?? Infinity) : n.maxItems;
  if (count === undefined) return Infinity;
  const tuple = Math.min(count, n.prefix.length);
  let total = 2 + count * SEP;
  for (let i = 0; i < tuple; i++) total += cost(n.prefix[i]!);
  const rest = count - tuple;
  if (rest > 0) total += rest * cost(n.items!);
  return total;
}

/** Bytes of `"name": ` in canonical JSON. */
export function keyBytes(name: string): number {
  return utf8Length(canonicalJson(name)) + KEY_SEP_BYTES;
}

/** Bytes of a literal value: canonical JSON, or the raw text of a string in a qwen3coder value. */
export function literalBytes(value: unknown, raw: boolean): number {
  return utf8Length(raw && typeof value === "string" ? value : canonicalJson(value));
}

export function numberCost(n: Node & { k: "integer" | "number" }): Cost {
  if (n.k === "number" && n.fractional) return digitsCost(fractionalBytes);
  return digitsCost(n.k === "integer" ? (d) => integerBytes(n.lo, n.hi, d) : (d) => numberBytes(n.lo, n.hi, d, n.frac ?? d));
}

/**
 * Split `available` bytes among consumers: each gets at least its `min`, then the rest is shared equally,
 * never beyond a consumer's `max` (water-filling). Undefined when the minimums do not fit.
 */
export function allocate(available: number, consumers: readonly Cost[]): number[] | undefined {
  const give = consumers.map((c) => c.min);
  let left = available - give.reduce((a, b) => a + b, 0);
  if (left < 0 || give.some((g) => !Number.isFinite(g))) return undefined;
  let open = consumers.map((_, i) => i).filter((i) => consumers[i]!.max > give[i]!);
  while (left > 0 && open.length > 0) {
    const share = Math.floor(left / open.length);
    if (share === 0) {
      for (const i of open.slice(0, left)) give[i]! += 1;
      break;
    }
    const next: number[] = [];
    for (const i of open) {
      const add = Math.min(share, consumers[i]!.max - give[i]!);
      give[i]! += add;
      left -= add;
      if (give[i]! < consumers[i]!.max) next.push(i);
    }
    if (next.length === open.length && share * open.length === 0) break;
    open = next;
  }
  return give;
}

/**
 * How many items, each of at most how many bytes, fit in `space` when every item also costs `overhead`
 * bytes (its separator). Bounded items keep their full size. Unbounded ones share the space among at most
 * `defaultCount` items, fewer when the space is tight, so that each item gets at least four times its least
 * size (a deep recursive item is better served by one roomy item than by four cramped ones). Undefined when
 * the least count does not fit.
 */
export function planRepeat(
  space: number,
  item: Cost,
  overhead: number,
  minCount: number,
  maxCount: number,
  defaultCount = DEFAULT_ARRAY_ITEMS,
): { count: number; itemBytes: number } | undefined {
  const fits = (count: number, bytes: number) => count === 0 || (bytes >= item.min && count * (bytes + overhead) <= space);
  if (Number.isFinite(item.max)) {
    let count = Math.min(maxCount, Math.floor(space / (item.max + overhead)));
    if (count >= minCount) return { count, itemBytes: count === 0 ? 0 : item.max };
    count = minCount;
    const bytes = Math.floor(space / count) - overhead;
    return fits(count, bytes) ? { count, itemBytes: bytes } : undefined;
  }
  const roomy = Math.floor(space / (4 * (item.min + overhead)));
  const start = Math.min(maxCount, Math.max(minCount, Math.min(defaultCount, Math.max(roomy, 1))));
  for (let count = start; count >= minCount; count--) {
    const bytes = count === 0 ? 0 : Math.floor(space / count) - overhead;
    if (fits(count, bytes)) return { count, itemBytes: bytes };
  }
  return undefined;
}
