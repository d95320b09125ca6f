// Owns: what the per-keyword lowering files (lower-*.ts) may ask of the one lowering in progress (schema-ir.ts):
// node making, recursion, `$ref` parts and the records it keeps; and the limits they share.

import type { Result } from "../errors.js";
import type { ConstraintSites, ExtraMembersPolicy } from "./constraint-report.js";
import type { JsonSchema } from "../tools/types.js";
import type { CodeRange } from "./gbnf.js";
import type { Body, Node } from "./schema-nodes.js";

/** Deepest nesting of $ref/allOf merges before a schema is refused as nesting too deeply. */
export const MAX_MERGE_DEPTH = 32;

/** A oneOf to check once every `$ref` has its target; `apart`: pairs "i,j" known disjoint already. */
export interface OneOfRecord {
  path: string;
  options: Node[];
  apart: ReadonlySet<string>;
}

/** The lowering in progress, as the per-keyword lowering functions see it. */
export interface LowerContext {
  /** The whole document (for `$ref`s and the validator's judge). */
  readonly root: unknown;
  readonly extraMembers: ExtraMembersPolicy;
  readonly sites: ConstraintSites;
  /** uniqueItems is held beside the grammar (see PolicyOptions.guardedUnique). */
  readonly guardedUnique: boolean;
  /** What may not follow a pattern's `<` (see PolicyOptions.tagStarts). */
  readonly tagStarts: readonly CodeRange[];
  /** oneOfs whose options are judged disjoint after lowering (see checkOneOfs). */
  readonly oneOfs: OneOfRecord[];
  node(path: string, hint: string, body: Body): Node;
  /**
   * `build`'s result, or undefined when it would make more than `share` (0..1) of the nodes the schema has left (a
   * rewrite worth trying only while it leaves room for the rest; the nodes it made are not counted then).
   */
  attempt<T>(share: number, build: () => T): T | undefined;
  /** The node no value matches. */
  never(path: string, hint: string): Node;
  /** The "any JSON value" node. */
  anyNode(): Node & { k: "ref" };
  lower(schema: unknown, path: string, hint: string, depth: number): Result<Node>;
  /** An allOf/oneOf part with its `$ref` (if any) resolved and merged. */
  resolvePart(part: unknown, at: string): Result<JsonSchema | boolean>;
}

/**
 * A mark of what a lowering has recorded so far (oneOfs to check, closed sites); calling the result puts the records
 * back as they were at the mark, for an attempt whose nodes are dropped or made again.
 */
export function recordsMark(cx: LowerContext): () => void {
  const [oneOfs, closed, closedCount] = [cx.oneOfs.length, cx.sites.closed.length, cx.sites.closedCount];
  return () => {
    cx.oneOfs.length = oneOfs;
    cx.sites.closed.length = closed;
    cx.sites.closedCount = closedCount;
  };
}
