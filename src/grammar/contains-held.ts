// Owns: whether an array schema's `contains` keywords are held by contains.ts's rewrite: a question the keyword
// scan asks before lowering, kept apart from the rewrite so that the scan does not import it (no import circle).

import type { JsonSchema } from "../tools/types.js";

/** An array schema, or an untyped one (its contains keywords then constrain only its arrays). */
function isArrayTyped(s: JsonSchema): boolean {
  return s.type === undefined || s.type === "array" || (Array.isArray(s.type) && s.type.includes("array"));
}

/**
 * Whether the contains keywords of `s` are held by the rewrite (checked by the keyword scan, before lowering):
 * an array schema (prefix items or an item list allowed) without uniqueItems. `minContains` or `maxContains`
 * without `contains` constrain nothing and count as held. The rewrite may still refuse one, at `contains` or
 * `maxContains`, when it cannot tell an item from `contains` where that matters.
 */
export function holdsContains(s: JsonSchema): boolean {
  if (!("contains" in s)) return true;
  return isArrayTyped(s) && s.uniqueItems !== true;
}
