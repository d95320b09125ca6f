// Owns: `contains` / `minContains` / `maxContains` held as a rewrite of the array into forms the grammar already
// holds: each position of the array (its prefix items, then its items) is written as it is, as matching
// (the item's schema ∧ contains) or as not matching (∧ not contains, where `not` can be held), chosen so that every
// array written has between minContains and maxContains matching items, counted over every item, prefix items
// too (JSON Schema 2020-12). The first positions that can match are made to; a subset: arrays whose matching
// items come later are not written (lower-array.ts adds variants after up to 8 scalar items that do not match,
// where there are no prefix items and no maxContains); never an array with too few or too many matches.

import type { QtcError } from "../errors.js";
import type { JsonSchema } from "../tools/types.js";
import { invalid, pointer, unsupported } from "./schema-keywords.js";
import { deref, type Node } from "./schema-nodes.js";
import { holdsContains } from "./contains-held.js";

/** Most matching items the rewrite adds after the prefix items, one by one (a larger minContains is refused). */
export const MAX_CONTAINS_PREFIX = 64;

/** The array schema without its contains keywords, and what they ask. */
export interface ContainsPlan {
  /** The schema without contains/minContains/maxContains. */
  base: JsonSchema;
  /** The schema of each prefix item (`prefixItems`, or an `items` list), in order. */
  prefix: unknown[];
  /** The schema of the items after them (`items`, or `additionalItems` after an `items` list; true when absent). */
  rest: unknown;
  contains: unknown;
  least: number;
  most: number;
}

const WORDS = ["contains", "minContains", "maxContains"];

/** The plan for an array schema with `contains`; undefined without it; a QtcError for a bad count. */
export function planContains(s: JsonSchema, path: string): ContainsPlan | QtcError | undefined {
  const base: JsonSchema = { ...s };
  for (const w of WORDS) delete base[w];
  if (!("contains" in s)) return undefined;
  if (!holdsContains(s)) return unsupported(pointer(path, "contains"), "contains beside uniqueItems is not supported");
  const count = (w: string, d: number): number | QtcError => {
    const v = s[w] ?? d;
    return typeof v === "number" && (Number.isInteger(v) || v === Infinity) && v >= 0 ? v : invalid(pointer(path, w), `${w} must be a whole number ≥ 0`);
  };
  const least = count("minContains", 1);
  if (typeof least !== "number") return least;
  const most = count("maxContains", Infinity);
  if (typeof most !== "number") return most;
  if (least > MAX_CONTAINS_PREFIX) return unsupported(pointer(path, "minContains"), `minContains above ${MAX_CONTAINS_PREFIX} is not supported`);
  const listed = Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? s.items : [];
  const rest = Array.isArray(s.prefixItems) ? s.items : Array.isArray(s.items) ? s.additionalItems : s.items;
  return { base, prefix: listed, rest: rest ?? true, contains: s.contains, least, most };
}

/** What one position of the array can be, by whether it matches `contains`. */
export interface Slot {
  /** The position as the array's own schema says (it may or may not match, unless `zero`/`one`). */
  plain: Node;
  /** Its schema ∧ contains, where the grammar holds it. */
  match?: Node;
  /** Its schema ∧ not contains, where the grammar holds it. */
  other?: Node;
  /** No value of it matches (told from the nodes). */
  zero: boolean;
  /** Every value of it matches. */
  one: boolean;
}

/** A slot from the position's own node and its two forms (undefined where the grammar cannot hold one). */
export function slotOf(plain: Node, match: Node | undefined, other: Node | undefined): Slot {
  const zero = match !== undefined && admitsNothing(match);
  const one = !zero && other !== undefined && admitsNothing(other);
  return { plain, zero, one, ...(match && !zero ? { match } : {}), ...(other && !one ? { other } : {}) };
}

/** The array the rewrite writes: a node per listed position, the items after them, the length bounds. */
export interface Layout {
  prefix: Node[];
  /** Items after the listed positions; null: none. */
  items: Node | null;
  minItems: number;
  maxItems?: number;
}

/** Why no layout was made: `never` (no array of this schema fits: exact), or a refusal at `at` (a keyword). */
export type NoLayout = { never: true } | { never: false; at: "contains" | "maxContains"; why: string };

/**
 * Lay out an array of prefix positions `slots`, then items `rest` (null: none allowed), of `minItems`..`maxItems`
 * items, with `least`..`most` matching. The matching items are the first positions whose schema ∧ contains the
 * grammar holds (then as many rest ∧ contains items after the prefix as are still missing), written in that form;
 * under a finite `most` every other position is written as not matching where the grammar holds that, else it is
 * counted as one that may match, and the array is cut before the one that would pass `most`. Only the `match`
 * and `other` forms (subsets of the true ones) are trusted for a count that matters; `zero` (no value of the
 * position matches) leaves a position as it is only where `other` cannot be held.
 */
export function layOut(slots: readonly Slot[], rest: Slot | null, least: number, most: number, minItems: number, maxItems: number | undefined): Layout | NoLayout {
  if (least > most || (maxItems !== undefined && maxItems < least)) return { never: true };
  const n = slots.length;
  const sure = new Set<number>();
  // Positions the array must hold that always match count whatever is chosen: first.
  for (let i = 0; i < Math.min(n, minItems); i++) if (slots[i]!.one && slots[i]!.match) sure.add(i);
  let length = minItems;
  let undecided = false;
  for (let i = 0; i < n && sure.size < least; i++) {
    const s = slots[i]!;
    if (sure.has(i)) continue;
    if (s.match) {
      sure.add(i);
      length = Math.max(length, i + 1);
    } else if (!s.zero) undecided = true;
  }
  const extra = Math.max(0, least - sure.size);
  const prefix = slots.map((s, i) => (sure.has(i) ? s.match! : s.plain));
  if (extra > 0) {
    // No item after the prefix can match: no array has enough (exact when every prefix position was told).
    if (!rest || rest.zero) return undecided ? { never: false, at: "contains", why: "a prefix item the grammar cannot tell from contains would have to match it" } : { never: true };
    if (!rest.match) return { never: false, at: "contains", why: "items ∧ contains cannot be held" };
    prefix.push(...new Array<Node>(extra).fill(rest.match));
    length = Math.max(length, n + extra);
  }
  if (maxItems !== undefined && length > maxItems) return undecided ? { never: false, at: "contains", why: "the matching items do not fit maxItems" } : { never: true };
  if (most === Infinity) return { prefix, items: rest ? rest.plain : null, minItems: length, ...(maxItems === undefined ? {} : { maxItems }) };
  // Matches beyond the sure ones that the array may still hold.
  let room = most - sure.size;
  let cap = maxItems;
  if (room < 0) return { never: true };
  for (let i = 0; i < n && (cap === undefined || i < cap); i++) {
    const s = slots[i]!;
    if (sure.has(i)) continue;
    if (s.other) prefix[i] = s.other;
    else if (s.zero) continue;
    else if (room > 0) room--;
    else if (i < length) return { never: false, at: "maxContains", why: `prefix item ${i} ${s.one ? "always matches" : "cannot be told from contains"} and the array must hold it` };
    else cap = i;
  }
  let items: Node | null = null;
  const after = prefix.length;
  if (rest && (cap === undefined || cap > after)) {
    if (rest.other) items = rest.other;
    else if (rest.zero) items = rest.plain;
    else {
      // Items the grammar cannot tell from contains: at most as many as may still match.
      items = rest.plain;
      cap = Math.min(cap ?? Infinity, after + room);
    }
  }
  if (cap !== undefined && cap < length) return { never: false, at: "maxContains", why: "maxContains beside items the grammar cannot tell from contains is not supported" };
  return { prefix, items, minItems: length, ...(cap === undefined ? {} : { maxItems: cap }) };
}

/** Whether no value fits a node, as far as the tree tells (false when unsure: a ref not lowered yet). */
export function admitsNothing(node: Node, depth = 0): boolean {
  if (depth > 32) return false;
  const n = deref(node);
  switch (n.k) {
    case "union":
      return n.options.every((o) => admitsNothing(o, depth + 1));
    case "literal":
      return n.values.length === 0;
    case "array":
      return (n.maxItems !== undefined && n.minItems > n.maxItems) || n.prefix.slice(0, n.minItems).some((p) => admitsNothing(p, depth + 1)) || (n.minItems > n.prefix.length && (n.items === null || admitsNothing(n.items, depth + 1)));
    case "object":
      return n.props.some((p) => p.required && admitsNothing(p.node, depth + 1));
    default:
      return false;
  }
}
