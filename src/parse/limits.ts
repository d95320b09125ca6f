// Owns: checking parsed arguments against the parser's size limits (string length, array length, depth) and
// that every string and key is well-formed Unicode (no lone surrogates).

import type { ParseLimits } from "./options.js";
import { isWellFormed } from "./nesting.js";

export interface LimitProblem {
  reason: "too_large" | "invalid_utf8";
  /** Where and what, for the model, e.g. `arguments.path is a string of 2000000 characters; …`. */
  problem: string;
}

/** The first limit `value` breaks (or its first lone surrogate); undefined when it fits. */
export function checkLimits(value: unknown, limits: ParseLimits): LimitProblem | undefined {
  const path: Array<string | number> = [];
  const found = walk(value, limits, 1, path);
  if (!found) return undefined;
  let where = "arguments";
  for (const p of path) where += typeof p === "number" ? `[${p}]` : `.${p}`;
  return { reason: found.reason, problem: `${where} ${found.problem}` };
}

const LONE_SURROGATE = "holds a lone UTF-16 surrogate (such as \\ud800), which is not valid Unicode text";

/**
 * Returns what is wrong, with `path` left pointing at it (paths are only built on failure). Recursion is bounded
 * by limits.maxDepth (at most MAX_DEPTH_LIMIT, see options.ts): deeper values are reported, not descended into.
 */
function walk(value: unknown, limits: ParseLimits, depth: number, path: Array<string | number>): LimitProblem | undefined {
  if (typeof value === "string") {
    if (value.length > limits.maxStringLength) return tooLarge(`is a string of ${value.length} characters; the limit is ${limits.maxStringLength}`);
    return isWellFormed(value) ? undefined : { reason: "invalid_utf8", problem: LONE_SURROGATE };
  }
  if (typeof value !== "object" || value === null) return undefined;
  if (depth > limits.maxDepth) return tooLarge(`is nested deeper than ${limits.maxDepth} levels`);
  if (Array.isArray(value)) {
    if (value.length > limits.maxArrayLength) return tooLarge(`is an array of ${value.length} items; the limit is ${limits.maxArrayLength}`);
    for (let i = 0; i < value.length; i++) {
      const bad = walk(value[i], limits, depth + 1, path);
      if (bad) {
        path.unshift(i);
        return bad;
      }
    }
    return undefined;
  }
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (key.length > limits.maxStringLength) return tooLarge(`has a key longer than ${limits.maxStringLength} characters`);
    if (!isWellFormed(key)) return { reason: "invalid_utf8", problem: `has a key that ${LONE_SURROGATE}` };
    const bad = walk((value as Record<string, unknown>)[key], limits, depth + 1, path);
    if (bad) {
      path.unshift(key);
      return bad;
    }
  }
  return undefined;
}

function tooLarge(problem: string): LimitProblem {
  return { reason: "too_large", problem };
}
