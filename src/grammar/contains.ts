// Owns: `contains` / `minContains` / `maxContains` held as a rewrite of the array schema into forms the grammar
// already holds: the first minContains items match `contains` (prefix items of items ∧ contains), the rest are
// any items (no maxContains) or items that do not match (items ∧ not contains, where `not` can be held). A subset:
// arrays whose matching items come later are not written; never an array with too few or too many matches.

import type { QtcError } from "../errors.js";
import type { JsonSchema } from "../tools/types.js";
import { invalid, pointer, unsupported } from "./schema-keywords.js";
import type { Node } from "./schema-nodes.js";
import { holdsContains } from "./contains-held.js";

/** Most matching items the rewrite lists one by one (a larger minContains is refused). */
export const MAX_CONTAINS_PREFIX = 64;

/** The array schema without its contains keywords, and what they ask. */
export interface ContainsPlan {
  /** The schema without contains/minContains/maxContains. */
  base: JsonSchema;
  /** The array's items ∧ contains: what each of the first `least` items is. */
  matching: JsonSchema;
  /** The array's items ∧ not contains (only needed under a maxContains). */
  other: JsonSchema;
  /** The array's own items schema (true when absent). */
  items: unknown;
  least: number;
  most: number;
}

const WORDS = ["contains", "minContains", "maxContains"];

/** The plan for an array schema with `contains`; undefined without it; a QtcError for a bad count. */
export function planContains(s: JsonSchema, path: string): ContainsPlan | QtcError | undefined {
  const base: JsonSchema = { ...s };
  for (const w of WORDS) delete base[w];
  if (!("contains" in s)) return undefined;
  if (!holdsContains(s)) return unsupported(pointer(path, "contains"), "contains is supported only on an array with one items schema (no prefixItems, no uniqueItems)");
  const count = (w: string, d: number): number | QtcError => {
    const v = s[w] ?? d;
    return typeof v === "number" && (Number.isInteger(v) || v === Infinity) && v >= 0 ? v : invalid(pointer(path, w), `${w} must be a whole number ≥ 0`);
  };
  const least = count("minContains", 1);
  if (typeof least !== "number") return least;
  const most = count("maxContains", Infinity);
  if (typeof most !== "number") return most;
  if (least > MAX_CONTAINS_PREFIX) return unsupported(pointer(path, "minContains"), `minContains above ${MAX_CONTAINS_PREFIX} is not supported`);
  const items = s.items ?? true;
  const contains = s.contains as JsonSchema | boolean;
  return { base, items, least, most, matching: { allOf: [items, contains] }, other: { allOf: [items, { not: contains }] } };
}

/**
 * Name the rewrite's nodes by the document's pointers: a node made under `from` (the rewrite's prefixItems, which
 * the document does not have) is renamed under `to` (its `contains`), so errors and reports point at the keyword.
 */
export function relabel(root: Node, from: string, to: string): void {
  const seen = new Set<Node>();
  const stack = [root];
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (seen.has(n) || !(n.path === from || n.path.startsWith(from + "/"))) continue;
    seen.add(n);
    n.path = to + n.path.slice(from.length);
    if (n.k === "array") stack.push(...n.prefix, ...(n.items ? [n.items] : []));
    else if (n.k === "object") stack.push(...n.props.map((p) => p.node), ...(n.extra ? [n.extra] : []), ...(n.patternKeys ?? []).flatMap((x) => [x.key, x.value]));
    else if (n.k === "union") stack.push(...n.options);
    else if (n.k === "ref" && n.target) stack.push(n.target);
  }
}
