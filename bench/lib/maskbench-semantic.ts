// Owns: MaskBench's counts of the semantic keywords (what a context-free grammar cannot say by itself: key sets,
// member counts, unique or contained items, exactly-one-of): which a schema uses, and how many such schemas compile.

/** The keywords counted (issue 38). `uniqueItems` counts only when true. */
export const SEMANTIC_KEYWORDS = ["propertyNames", "minProperties", "maxProperties", "uniqueItems", "contains", "minContains", "maxContains", "oneOf"] as const;
export type SemanticKeyword = (typeof SEMANTIC_KEYWORDS)[number];

/** Most subschemas one walk visits (a schema file is at most a few MB). */
const MAX_NODES = 200_000;

/** The semantic keywords anywhere in `schema` (each once, in SEMANTIC_KEYWORDS order). Iterative; never throws. */
export function semanticKeywords(schema: unknown): SemanticKeyword[] {
  const found = new Set<SemanticKeyword>();
  const stack: unknown[] = [schema];
  let visited = 0;
  while (stack.length > 0 && visited++ < MAX_NODES) {
    const v = stack.pop();
    if (Array.isArray(v)) {
      for (const x of v) stack.push(x);
      continue;
    }
    if (typeof v !== "object" || v === null) continue;
    for (const [k, x] of Object.entries(v)) {
      if ((SEMANTIC_KEYWORDS as readonly string[]).includes(k) && (k !== "uniqueItems" || x === true)) found.add(k as SemanticKeyword);
      // enum/const values are data, not schemas.
      if (k !== "enum" && k !== "const" && k !== "examples" && k !== "default") stack.push(x);
    }
  }
  return SEMANTIC_KEYWORDS.filter((k) => found.has(k));
}

/** Per keyword: schemas that use it, and how many of them compiled. */
export type SemanticCounts = Partial<Record<SemanticKeyword, { schemas: number; compiled: number }>>;

export function countSemantic(results: readonly { status: string; semantic?: readonly SemanticKeyword[] }[]): SemanticCounts {
  const out: SemanticCounts = {};
  for (const r of results) {
    for (const k of r.semantic ?? []) {
      const c = (out[k] ??= { schemas: 0, compiled: 0 });
      c.schemas++;
      if (r.status !== "compile-error" && r.status !== "crash") c.compiled++;
    }
  }
  return out;
}

/** One line for the report: `propertyNames 12 (9 compiled), …`. */
export function semanticLine(counts: SemanticCounts): string {
  const parts = SEMANTIC_KEYWORDS.filter((k) => counts[k]).map((k) => `${k} ${counts[k]!.schemas} (${counts[k]!.compiled} compiled)`);
  return `Semantic keywords (schemas using each; compiled): ${parts.join(", ") || "none"}.`;
}
