// Owns: reading a vLLM or SGLang reply safely: a JSON object or upstream_error, whole numbers in bounds.

import { upstreamFailure } from "./upstream-http.js";
import { upstreamInteger } from "./upstream-values.js";
import type { XgrammarEngineOptions } from "./xgrammar-upstream.js";

export type EngineOptionsLike = XgrammarEngineOptions;

/** The reply as an object; anything else is upstream_error. */
export function readReplyObject(data: unknown, where: string): Record<string, unknown> {
  if (typeof data !== "object" || data === null || Array.isArray(data)) throw readReplyObject.failure(where, "the reply is not a JSON object");
  return data as Record<string, unknown>;
}
readReplyObject.failure = (where: string, what: string) => upstreamFailure("upstream_error", `${where}: ${what}`);

/** A count the upstream reports (0 when absent). */
export function replyInteger(v: unknown, where: string, field: string): number {
  return upstreamInteger(v, where, field) ?? 0;
}
