// Owns: what one compile reports about what its grammar constrains: the policy for keywords a grammar cannot hold
// (`strict` | `validate`), the policy for objects without `additionalProperties`, the keywords ignored and the
// ones left to the validator (by JSON pointer), and a stable hash of the grammar.

import { createHash } from "node:crypto";
import type { BudgetSplit } from "./budget-share.js";
import type { KeywordSite } from "./schema-keywords.js";

/**
 * What the compiler does with a keyword that constrains values but that the grammar cannot hold exactly.
 * `strict`: refuse the schema (`unsupported_keyword` with the keyword's JSON pointer). `validate`: the grammar
 * holds a superset without that keyword (documented per keyword in docs/grammar.md) and the post-parser's ajv
 * validator judges the rest: a call that breaks it is a rejected call with the reason, never a returned call.
 */
export type UnsupportedPolicy = "strict" | "validate";

/**
 * Objects whose schema gives no `additionalProperties`. `schema`: JSON Schema's default (any extra member).
 * `closed`: only the listed members, a tool-call policy (a model that adds members no one listed is mostly
 * hallucinating them); what the grammar writes is still valid, and the report counts the objects it closed.
 */
export type ExtraMembersPolicy = "schema" | "closed";

/** A keyword the grammar does not hold: the validator judges it. */
export interface RelaxedSite extends KeywordSite {
  /** Why the grammar could not hold it (the strict policy's error message). */
  reason: string;
  /** The tool whose schema holds it (tool grammars), else absent. */
  tool?: string;
}

/** The report one lowering fills in. */
export interface ConstraintSites {
  ignored: KeywordSite[];
  relaxed: RelaxedSite[];
  /** JSON pointers of the objects the `closed` extra-members policy closed (at most 64 listed). */
  closed: string[];
  closedCount: number;
  /** Keywords the grammar admits more than, held beside it by the runtime's semantic guard (`uniqueItems`). */
  guarded?: KeywordSite[];
}

export function newSites(): ConstraintSites {
  return { ignored: [], relaxed: [], closed: [], closedCount: 0 };
}

/** What a compiled grammar constrains (every library result and server response carries it). */
export interface ConstraintReport {
  /** The policy the grammar was compiled under. */
  readonly policy: UnsupportedPolicy;
  readonly extraMembers: ExtraMembersPolicy;
  /** The grammar holds every constraining keyword of the schemas exactly (nothing was left to the validator). */
  readonly exact: boolean;
  /** First 16 hex digits of the GBNF's SHA-256: equal grammars have equal hashes. */
  readonly grammarHash: string;
  /** Keywords that constrain nothing, ignored (each word once, at its first pointer). */
  readonly ignored: readonly KeywordSite[];
  /** Keywords the grammar does not hold, left to the validator (`validate` only). */
  readonly relaxed: readonly RelaxedSite[];
  /**
   * Keywords the grammar text admits more than, held beside it by qtc's runtime (its semantic guard: `uniqueItems`
   * since issue 49). A turn of qtc's runtime holds them; the GBNF sent elsewhere does not (the validator judges).
   */
  readonly guarded: readonly KeywordSite[];
  /** Objects without `additionalProperties` that the grammar closed (policy `closed`). */
  readonly closedObjects: number;
  /** How the budget was split: "shared" (the default, closed in time by the budget guard) or "worst-case". */
  readonly budgetSplit: BudgetSplit;
}

export function grammarHash(gbnf: string): string {
  return createHash("sha256").update(gbnf).digest("hex").slice(0, 16);
}

export function constraintReport(gbnf: string, policy: UnsupportedPolicy, extraMembers: ExtraMembersPolicy, sites: ConstraintSites, budgetSplit: BudgetSplit): ConstraintReport {
  // The hash is computed when first read (a compile of a small tool list takes about a millisecond; hashing its
  // GBNF would add a tenth of that to every compile, read or not).
  let hash: string | undefined;
  const report = {
    policy,
    extraMembers,
    exact: sites.relaxed.length === 0,
    ignored: Object.freeze(sites.ignored.map((s) => Object.freeze({ ...s }))),
    relaxed: Object.freeze(sites.relaxed.map((s) => Object.freeze({ ...s }))),
    closedObjects: sites.closedCount,
    // A lowering retried under `validate` lists a site again: once each.
    guarded: Object.freeze([...new Map((sites.guarded ?? []).map((s) => [`${s.keyword} ${s.path}`, s])).values()].map((s) => Object.freeze({ ...s }))),
    budgetSplit,
  };
  Object.defineProperty(report, "grammarHash", { enumerable: true, get: () => (hash ??= grammarHash(gbnf)) });
  return Object.freeze(report) as ConstraintReport;
}

/** One line for logs and HTTP headers: `exact` or `validate: not at /properties/a/not, …` (at most 8 sites). */
export function reportLine(r: ConstraintReport): string {
  if (r.exact) return `grammar=${r.grammarHash}; exact`;
  const sites = r.relaxed.slice(0, 8).map((s) => `${s.tool ? s.tool + ":" : ""}${s.path}`);
  const more = r.relaxed.length > 8 ? ` +${r.relaxed.length - 8}` : "";
  return `grammar=${r.grammarHash}; validator=${sites.join(",")}${more}`;
}
