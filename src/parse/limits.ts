// Owns: checking parsed arguments against the parser's size limits (string length, array length, depth).

import type { ParseLimits } from "./options.js";

/** The first limit `value` breaks, as a message for the model; undefined when it fits. */
export function checkLimits(value: unknown, limits: ParseLimits): string | undefined {
  const path: Array<string | number> = [];
  const problem = walk(value, limits, 1, path);
  if (!problem) return undefined;
  let where = "arguments";
  for (const p of path) where += typeof p === "number" ? `[${p}]` : `.${p}`;
  return `${where} ${problem}`;
}

/** Returns what is wrong, with `path` left pointing at it (paths are only built on failure). */
function walk(value: unknown, limits: ParseLimits, depth: number, path: Array<string | number>): string | undefined {
  if (typeof value === "string") {
    return value.length > limits.maxStringLength ? `is a string of ${value.length} characters; the limit is ${limits.maxStringLength}` : undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  if (depth > limits.maxDepth) return `is nested deeper than ${limits.maxDepth} levels`;
  if (Array.isArray(value)) {
    if (value.length > limits.maxArrayLength) return `is an array of ${value.length} items; the limit is ${limits.maxArrayLength}`;
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
    if (key.length > limits.maxStringLength) return `has a key longer than ${limits.maxStringLength} characters`;
    const bad = walk((value as Record<string, unknown>)[key], limits, depth + 1, path);
    if (bad) {
      path.unshift(key);
      return bad;
    }
  }
  return undefined;
}
