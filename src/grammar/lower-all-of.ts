// Owns: merging an allOf's parts into one schema, in the order a reader sees them, with a part that is a union
// distributed over the parts around it.

import { err, ok, type Result } from "../errors.js";
import type { JsonSchema } from "../tools/types.js";
import { invalid, mergeSchemas, pointer } from "./schema-keywords.js";
import { MAX_MERGE_DEPTH, type LowerContext } from "./lower-context.js";

/** Most options an allOf's unions are distributed into (their product); past it the union stays after the rest. */
const MAX_DISTRIBUTED = 16;

/** One allOf part to merge: the schema, its JSON pointer and how deeply allOf/$ref nest above it. */
export interface Part {
  part: unknown;
  at: string;
  depth: number;
}

/**
 * `base` with every allOf part merged in, in order; a part's own allOf is merged where the part stands (depth
 * first), so members keep the order a reader sees (nested parts came after the later siblings). A part that is
 * a union (`anyOf`/`oneOf`) followed by more parts is distributed: each option merged with what came before and
 * what comes after (`A, anyOf[X, Y], B` is `anyOf[A X B, A Y B]`, exact), at most MAX_DISTRIBUTED options in all.
 */
export function mergeParts(cx: LowerContext, base: JsonSchema | false, parts: readonly Part[], width = 1): Result<JsonSchema | false> {
  let merged = base;
  const queue = [...parts];
  for (let next = queue.shift(); next; next = queue.shift()) {
    const { part, at, depth } = next;
    if (depth > MAX_MERGE_DEPTH) return err(invalid(at, "schema nests $ref/allOf too deeply"));
    const resolved = cx.resolvePart(part, at);
    if (!resolved.ok) return resolved;
    if (resolved.value === true) continue;
    if (resolved.value === false || merged === false) {
      merged = false;
      continue;
    }
    if ("if" in resolved.value && "if" in merged) {
      // A second if/then/else: this part as the union of its two branches (merged as any union is).
      const { if: cond, then: yes, else: no, ...rest } = resolved.value;
      const branches = { anyOf: [{ allOf: [cond, yes ?? true] }, { allOf: [{ not: cond }, no ?? true] }] };
      queue.unshift({ part: { allOf: [rest, branches] }, at, depth: depth + 1 });
      continue;
    }
    const { allOf: inner, ...own } = resolved.value;
    const key = Array.isArray(own.anyOf) === Array.isArray(own.oneOf) ? undefined : Array.isArray(own.anyOf) ? "anyOf" : "oneOf";
    const { [key ?? "anyOf"]: union, ...plain } = own;
    if (Array.isArray(inner)) {
      // Its own members, then its allOf, then its union (as the part reads), before the parts after it.
      const later = inner.map((p, j) => ({ part: p, at: pointer(at, "allOf", j), depth: depth + 1 }));
      queue.unshift(...later, ...(key ? [{ part: { [key]: union }, at, depth }] : []));
      const joined = mergeSchemas(merged, key ? plain : own, at);
      if (!joined.ok) return joined;
      merged = joined.value;
      continue;
    }
    const options = key ? (union as unknown[]) : [];
    if (key && (queue.length > 0 || key in merged) && width * options.length <= MAX_DISTRIBUTED) {
      const head = mergeSchemas(merged, plain, at);
      if (!head.ok) return head;
      const branches: (JsonSchema | false)[] = [];
      for (const [j, option] of options.entries()) {
        const branch = mergeParts(cx, head.value, [{ part: option, at: pointer(at, key, j), depth: depth + 1 }, ...queue], width * options.length);
        if (!branch.ok) return branch;
        branches.push(branch.value);
      }
      return ok({ [key]: branches });
    }
    const joined = mergeSchemas(merged, resolved.value, at);
    if (!joined.ok) return joined;
    merged = joined.value;
  }
  return ok(merged);
}
