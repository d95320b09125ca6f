// Owns: the public surface of the grammar stage: compile tools or a schema into GBNF, the budget rule, the
// cache, and the xgrammar dialect (printer and checker). The grammar checker is the engine's (src/engine/checker.ts).

export { compileSchema, compileToolGrammar, GrammarCache, worstCaseCallTokens } from "./compile.js";
export {
  type CompiledGrammar,
  type CompiledSchema,
  GRAMMAR_DEFAULTS,
  GRAMMAR_PHASES,
  SCHEMA_GRAMMAR_DEFAULTS,
  type GrammarPhase,
  type GrammarTool,
  type SchemaGrammarOptions,
  type ToolGrammarOptions,
} from "./types.js";
export { tagWords } from "./envelope.js";
export { SUPPORTED_FORMATS } from "./string-formats.js";
export { ANNOTATION_KEYWORDS, CONSTRAINING_UNSUPPORTED, SUPPORTED_KEYWORDS, type KeywordSite } from "./schema-keywords.js";
export { type ConstraintReport, type ExtraMembersPolicy, type RelaxedSite, type UnsupportedPolicy } from "./constraint-report.js";
export { ASSERTED_FORMATS, FORMAT_PATTERNS } from "./string-formats.js";
export { SCHEMA_LIMITS } from "./limits.js";
export { type BudgetSplit } from "./budget-share.js";
export { type LeastCallOptions, leastCallTokens } from "./least-tokens.js";
export { compileXgrammar, compileXgrammarSchema, GRAMMAR_DIALECTS, type GrammarDialect, type XgrammarGrammar } from "./xgrammar.js";
export { type XgLeftToValidator, XG_MAX_UNROLL } from "./xgrammar-values.js";
export { literalItems, mustBeDistinct, shapesAtItem, shapesAtKey, uniquePlan, type UniquePlan, type ValueShape } from "./unique-plan.js";
