// Owns: lowering a schema under the caller's policy: ignored keywords reported; under `strict` the first keyword
// the grammar cannot hold is refused by pointer; under `validate` such keywords are taken out of a copy of the
// document (each removal only widens what the grammar admits) and reported for the validator to judge.

import { err, type Result } from "../errors.js";
import type { JsonSchema } from "../tools/types.js";
import type { ConstraintSites, ExtraMembersPolicy, UnsupportedPolicy } from "./constraint-report.js";
import type { CodeRange } from "./gbnf.js";
import { checkSchemaSize, type SizeMeter } from "./limits.js";
import { lowerDocument, type Node } from "./schema-ir.js";
import { isObject, scanKeywords, unsupported } from "./schema-keywords.js";

/**
 * Keywords never left to the validator (issue 38): where the grammar cannot hold one of these counts or sets, the
 * superset it would write admits calls that fail it, so the compile refuses it under every policy, naming it.
 * (`oneOf` stays relaxable: options the compiler cannot prove disjoint are often disjoint in truth.)
 */
export const NEVER_RELAXED: ReadonlySet<string> = new Set(["propertyNames", "contains", "minContains", "maxContains", "uniqueItems", "minProperties", "maxProperties"]);

/** Keywords taken out of one schema under `validate` before the compile gives up and refuses (bounds the work). */
export const MAX_RELAXED = 64;

export interface PolicyOptions {
  policy: UnsupportedPolicy;
  extraMembers: ExtraMembersPolicy;
  sites: ConstraintSites;
  /** The tool the schema belongs to (named in the report). */
  tool?: string;
  /**
   * `uniqueItems` beside a guard that holds it (the runtime's semantic guard, fed the text as it is written): the
   * array is lowered as a plain one marked `unique`. Without one it is refused (the grammar alone cannot hold it).
   * Default: false.
   */
  guardedUnique?: boolean;
  /**
   * The characters that may not follow a pattern's `<` in the compile's format (text-chain.ts's tagStarts). Default:
   * `/` and the letters, any tag's.
   */
  tagStarts?: readonly CodeRange[];
}

/**
 * Lower a schema document under a policy (see PolicyOptions). The document is checked against the size limits
 * first (`meter` sums them over every schema of one compile); the caller's object is never changed.
 */
export function lowerSchema(
  root: JsonSchema | boolean,
  hint: string,
  ids: { next: number } = { next: 0 },
  meter?: SizeMeter,
  options: PolicyOptions = { policy: "strict", extraMembers: "schema", sites: { ignored: [], relaxed: [], closed: [], closedCount: 0 } },
): Result<Node> {
  const size = checkSchemaSize(root, meter);
  if (size) return err(size);
  const scan = scanKeywords(root);
  if (scan.error) return err(scan.error);
  const { sites, policy } = options;
  for (const s of scan.ignored) if (sites.ignored.length < 64) sites.ignored.push(s);
  let doc: unknown = root;
  if (scan.refused.length > 0) {
    const first = scan.refused[0]!;
    if (policy === "strict") return err(unsupported(first.path, `keyword "${first.keyword}" is not supported by the grammar compiler`));
    const kept = scan.refused.find((site) => NEVER_RELAXED.has(site.keyword));
    if (kept) return err(unsupported(kept.path, `keyword "${kept.keyword}" is not supported by the grammar compiler here, and is not left to the validator (a call could fail it)`));
    doc = structuredClone(root);
    for (const site of scan.refused) {
      if (relaxAt(doc, site.path)) sites.relaxed.push({ ...site, reason: `keyword "${site.keyword}" is not held by the grammar`, ...(options.tool ? { tool: options.tool } : {}) });
    }
    // A document with more refused keywords than the scan lists is refused rather than half relaxed.
    if (scan.refused.length >= 64) return err(unsupported(first.path, `more than 64 keywords the grammar cannot hold`));
  }
  const closedBefore = { list: sites.closed.length, count: sites.closedCount };
  for (let round = 0; ; round++) {
    // A retry lowers the document again: what the last attempt counted is counted anew.
    sites.closed.length = closedBefore.list;
    sites.closedCount = closedBefore.count;
    const lowered = lowerDocument(doc as JsonSchema | boolean, hint, ids, options.extraMembers, sites, options.guardedUnique === true, options.tagStarts);
    if (lowered.ok || policy === "strict" || lowered.error.code !== "unsupported_keyword" || lowered.error.path === undefined) return lowered;
    if (round >= MAX_RELAXED) return lowered;
    if (doc === root) doc = structuredClone(root);
    const path = lowered.error.path;
    if (NEVER_RELAXED.has(lastToken(path))) return err({ ...lowered.error, message: `${lowered.error.message} (not left to the validator: a call could fail it)` });
    if (!relaxAt(doc, path)) return lowered;
    sites.relaxed.push({ keyword: lastToken(path), path, reason: lowered.error.message, ...(options.tool ? { tool: options.tool } : {}) });
  }
}

function lastToken(path: string): string {
  const tokens = path.split("/");
  return tokens[tokens.length - 1]!.replace(/~1/g, "/").replace(/~0/g, "~");
}

/**
 * Take the keyword at `path` out of `doc` (in place) so that the schema admits more values, never fewer:
 * `oneOf` becomes `anyOf`; `patternProperties` leaves its members to `additionalProperties` (widened to admit
 * them). False when the pointer names no keyword of `doc`.
 */
export function relaxAt(doc: unknown, path: string): boolean {
  const tokens = path.split("/").slice(1).map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
  const key = tokens.pop();
  if (key === undefined) return false;
  let parent: unknown = doc;
  for (const t of tokens) {
    if (Array.isArray(parent) && /^\d+$/.test(t)) parent = parent[Number(t)];
    else if (isObject(parent) && t in parent) parent = parent[t];
    else return false;
  }
  if (!isObject(parent) || !(key in parent)) return false;
  if (key === "oneOf" && !("anyOf" in parent)) {
    parent.anyOf = parent.oneOf;
  } else if (key === "patternProperties") {
    const ap = parent.additionalProperties;
    const schemas = isObject(parent.patternProperties) ? Object.values(parent.patternProperties) : [];
    parent.additionalProperties = ap === undefined || ap === true ? true : { anyOf: [ap, ...schemas] };
  }
  delete parent[key];
  return true;
}
