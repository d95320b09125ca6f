// Owns: checking the values qtc takes from an upstream's replies (token counts, token ids, rates, slot and
// context sizes) before they reach a result, a client or /metrics: an upstream is untrusted input, so a value of
// the wrong type or out of its bounds is an upstream_error naming the field, never passed on.

import { upstreamFailure } from "./upstream-http.js";

/** Largest token count an upstream may report (llama.cpp counts tokens in int32). */
export const MAX_UPSTREAM_COUNT = 2 ** 31 - 1;

/** Largest decode rate taken from an upstream, in tokens per second (anything above is not a measurement). */
export const MAX_UPSTREAM_RATE = 1e7;

/** Most slots an upstream may say it has (what `load` and the slot pool count on). */
export const MAX_UPSTREAM_SLOTS = 4096;

/**
 * A whole number in [min, max] from `where`'s field `field`, or `undefined` when the field is absent (undefined
 * or null); anything else (a string, 1e308, -1, 2.5) is an upstream_error.
 */
export function upstreamInteger(value: unknown, where: string, field: string, min = 0, max = MAX_UPSTREAM_COUNT): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw upstreamFailure("upstream_error", `${where}: ${field} is ${describe(value)}, not a whole number from ${min} to ${max}; the reply is refused`);
  }
  return value;
}

/** A finite number in [0, max], or undefined when absent; anything else is an upstream_error. */
export function upstreamRate(value: unknown, where: string, field: string, max = MAX_UPSTREAM_RATE): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || value > max) {
    throw upstreamFailure("upstream_error", `${where}: ${field} is ${describe(value)}, not a number from 0 to ${max}; the reply is refused`);
  }
  return value;
}

/** A short, safe rendering of an upstream value for an error message. */
function describe(value: unknown): string {
  const text = typeof value === "string" ? JSON.stringify(value.slice(0, 40)) : String(JSON.stringify(value) ?? typeof value);
  return text.slice(0, 60);
}
