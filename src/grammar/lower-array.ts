// Owns: lowering arrays: prefix and rest items, item counts, uniqueItems (listed or guarded) and `contains`
// (held by the rewrite in contains.ts).

import { err, ok, type Result } from "../errors.js";
import type { JsonSchema } from "../tools/types.js";
import { invalid, pointer, unsupported } from "./schema-keywords.js";
import { deref, type Node } from "./schema-nodes.js";
import { admitsNothing, layOut, planContains, slotOf, type ContainsPlan, type Slot } from "./contains.js";
import { type LowerContext, recordsMark } from "./lower-context.js";

export function lowerArray(cx: LowerContext, s: JsonSchema, path: string, hint: string, depth: number): Result<Node> {
  const contains = planContains(s, path);
  if (contains && "code" in contains) return err(contains);
  if (contains) return lowerContains(cx, contains, path, hint, depth);
  const prefixSchemas: unknown[] = Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? s.items : [];
  const prefixKey = Array.isArray(s.prefixItems) ? "prefixItems" : "items";
  const restSchema = Array.isArray(s.prefixItems) ? s.items : Array.isArray(s.items) ? s.additionalItems : s.items;
  const restKey = Array.isArray(s.prefixItems) ? "items" : Array.isArray(s.items) ? "additionalItems" : "items";
  const prefix: Node[] = [];
  for (const [i, p] of prefixSchemas.entries()) {
    const r = cx.lower(p, pointer(path, prefixKey, i), `${hint}-${i + 1}`, depth + 1);
    if (!r.ok) return r;
    prefix.push(r.value);
  }
  let items: Node | null = null;
  if (restSchema !== false) {
    const r = cx.lower(restSchema ?? true, pointer(path, restKey), `${hint}-item`, depth + 1);
    if (!r.ok) return r;
    items = r.value;
  }
  const minItems = s.minItems ?? 0;
  const maxItems = s.maxItems;
  if (typeof minItems !== "number" || !Number.isInteger(minItems) || minItems < 0) return err(invalid(pointer(path, "minItems"), "minItems must be a whole number ≥ 0"));
  if (maxItems !== undefined && (typeof maxItems !== "number" || !Number.isInteger(maxItems) || maxItems < 0)) {
    return err(invalid(pointer(path, "maxItems"), "maxItems must be a whole number ≥ 0"));
  }
  if (s.uniqueItems === true && (maxItems === undefined || maxItems > 1)) {
    // Items from a few literal values: every array of distinct ones is listed (held exactly by the grammar).
    const listed = prefix.length === 0 && items?.k === "literal" ? distinctArrays(items.values, minItems, maxItems) : undefined;
    if (listed) return ok(listed.length === 0 ? cx.never(path, hint) : cx.node(path, hint, { k: "literal", values: listed }));
    if (cx.guardedUnique) {
      // Fewer distinct items than minItems asks (booleans, a small range): no array is valid.
      const most = prefix.length === 0 && items ? distinctValues(items) : undefined;
      const none = (maxItems !== undefined && minItems > maxItems) || (most !== undefined && most < minItems);
      const guarded = (cx.sites.guarded ??= []);
      if (!none && guarded.length < 64) guarded.push({ keyword: "uniqueItems", path: pointer(path, "uniqueItems") });
      return ok(none ? cx.never(path, hint) : cx.node(path, hint, { k: "array", prefix, items, minItems, maxItems, unique: true }));
    }
    return err(unsupported(pointer(path, "uniqueItems"), "uniqueItems: true is not supported (unless maxItems ≤ 1)"));
  }
  if (maxItems !== undefined && minItems > maxItems) return ok(cx.never(path, hint));
  return ok(cx.node(path, hint, { k: "array", prefix, items, minItems, maxItems }));
}

/**
 * `contains` held by a rewrite (see contains.ts): each position of the array (prefix items, then items) written
 * as it is, as matching or as not matching, so that every array written has as many matches as it asks.
 */
function lowerContains(cx: LowerContext, c: ContainsPlan, path: string, hint: string, depth: number): Result<Node> {
  // The array on its own first: a keyword there the grammar cannot hold is named at its own pointer.
  const plain = lowerArray(cx, c.base, path, hint, depth);
  if (!plain.ok || plain.value.k !== "array") return plain;
  const array = plain.value;
  const at = pointer(path, "contains");
  // The forms have no pointer in the document: they are named, and refused, at `contains`.
  let why: string | undefined;
  const form = (schema: unknown, negate: boolean, name: string): Result<Node | undefined> => {
    const r = cx.lower({ allOf: [schema, negate ? { not: c.contains } : c.contains] }, at, name, depth + 1);
    if (r.ok || r.error.code !== "unsupported_keyword") return r;
    why ??= r.error.message;
    return ok(undefined);
  };
  const slot = (schema: unknown, node: Node, name: string, needMatch: boolean): Result<Slot> => {
    const match = needMatch ? form(schema, false, `${name}-match`) : ok(undefined);
    if (!match.ok) return match;
    const other = c.most === Infinity ? ok(undefined) : form(schema, true, `${name}-other`);
    if (!other.ok) return other;
    return ok(slotOf(node, match.value, other.value));
  };
  const slots: Slot[] = [];
  for (const [i, schema] of c.prefix.entries()) {
    const r = slot(schema, array.prefix[i]!, `${hint}-${i + 1}`, c.least > 0);
    if (!r.ok) return r;
    slots.push(r.value);
  }
  let rest: Slot | null = null;
  if (array.items) {
    const r = slot(c.rest, array.items, `${hint}-item`, c.least > 0);
    if (!r.ok) return r;
    rest = r.value;
  }
  const laid = layOut(slots, rest, c.least, c.most, array.minItems, array.maxItems);
  // No array has as many matches as asked: named at `contains`.
  if ("never" in laid && laid.never) return ok(cx.never(at, hint));
  if ("never" in laid) return err(unsupported(pointer(path, laid.at), `contains cannot be held: ${laid.why}${why ? ` (${why})` : ""}`));
  const written = cx.node(path, hint, { k: "array", ...laid }) as Node & { k: "array" };
  const other = slots.length === 0 && c.most === Infinity && c.least > 0 && rest?.match && isScalar(rest.match) ? otherForm(cx, c, at, `${hint}-item-other`, depth) : undefined;
  return ok(other ? withLeadingOthers(cx, written, other, path, hint) : written);
}

/**
 * Most items that do not match `contains` written before the matching ones (one variant of the array per count:
 * see withLeadingOthers). clang-format's `QualifierOrder` lists `type`, the item `contains` asks for, last.
 */
const MAX_LEADING_OTHERS = 8;

/**
 * Whether a node admits only scalars (no array, object or `$ref`): the items whose variants withLeadingOthers
 * writes. A `not` of `items` becomes a `contains` of its negation, and there the other form is the whole item
 * schema again (aerleon's filters, inside a oneOf's rewrite), worth no variants.
 */
function isScalar(node: Node): boolean {
  const n = deref(node);
  if (n.k === "union") return n.options.every(isScalar);
  return n.k !== "array" && n.k !== "object" && n.k !== "ref";
}

/**
 * The share of the nodes left that items ∧ not contains may take: the variants are worth a few nodes, and a scalar
 * item can still be large (a long `anyOf` of patterns), so its negation is bounded before it is worth them.
 */
const OTHER_FORM_SHARE = 0.02;

/** Items ∧ not contains, where the grammar holds it within OTHER_FORM_SHARE of the nodes left; undefined otherwise. */
function otherForm(cx: LowerContext, c: ContainsPlan, at: string, name: string, depth: number): Node | undefined {
  const restore = recordsMark(cx);
  const r = cx.attempt(OTHER_FORM_SHARE, () => cx.lower({ allOf: [c.rest, { not: c.contains }] }, at, name, depth + 1));
  if (r?.ok && !admitsNothing(r.value)) return r.value;
  restore();
  return undefined;
}

/**
 * The layout (its matching items first), or the same after 1 to MAX_LEADING_OTHERS items that do not match: a
 * union whose options are told apart by the first matching position, so an array may begin with other items.
 */
function withLeadingOthers(cx: LowerContext, array: Node & { k: "array" }, other: Node, path: string, hint: string): Node {
  const options: Node[] = [array];
  for (let k = 1; k <= MAX_LEADING_OTHERS; k++) {
    const length = k + array.prefix.length;
    if (array.maxItems !== undefined && length > array.maxItems) break;
    const prefix = [...new Array<Node>(k).fill(other), ...array.prefix];
    options.push(cx.node(path, `${hint}-after-${k}`, { k: "array", prefix, items: array.items, minItems: Math.max(array.minItems, length), ...(array.maxItems === undefined ? {} : { maxItems: array.maxItems }) }));
  }
  return options.length === 1 ? array : cx.node(path, hint, { k: "union", options });
}

/** How many distinct values a node admits, where it is plainly finite (null, booleans, an integer range); else undefined. */
function distinctValues(node: Node): number | undefined {
  const n = deref(node);
  if (n.k === "null") return 1;
  if (n.k === "boolean") return 2;
  if (n.k === "integer" && n.lo !== undefined && n.hi !== undefined) return Math.max(0, Math.floor((n.hi - n.lo) / (n.mult ?? 1)) + 1);
  return undefined;
}

/** Most arrays distinctArrays lists (3 values give 16 arrays, 5 give 326). */
const MAX_DISTINCT_ARRAYS = 512;

/** Every array of distinct `values` with `min`..`max` items, or undefined when there are more than MAX_DISTINCT_ARRAYS. */
function distinctArrays(values: readonly unknown[], min: number, max: number | undefined): unknown[][] | undefined {
  const top = Math.min(max ?? values.length, values.length);
  const out: unknown[][] = [];
  const walk = (chosen: unknown[], used: boolean[]): boolean => {
    if (chosen.length >= min) {
      out.push([...chosen]);
      if (out.length > MAX_DISTINCT_ARRAYS) return false;
    }
    if (chosen.length === top) return true;
    for (let i = 0; i < values.length; i++) {
      if (used[i]) continue;
      used[i] = true;
      chosen.push(values[i]);
      const fine = walk(chosen, used);
      chosen.pop();
      used[i] = false;
      if (!fine) return false;
    }
    return true;
  };
  return walk([], values.map(() => false)) ? out : undefined;
}
