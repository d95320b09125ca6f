// Owns: the public surface of the tools stage (normalize, compile, load, schema reading).

export type { JsonSchema, ToolChoice, ToolDefinition, ToolInput } from "./types.js";
export { normalizeTools } from "./normalize.js";
export { BoundedCache } from "./bounded-cache.js";
export { normalizeToolChoice, type DeclaredTools, type ToolChoiceError, type ToolChoiceProblem } from "./tool-choice.js";
export { compileValidators, compileValueValidator, ValidatorCache, VALIDATOR_CACHE_DEFAULTS, type CompiledTool, type ValueValidator, type CompiledTools, type SchemaError, type ToolsLike } from "./validators.js";
export { loadToolsFile, parseToolsJson, jsonErrorWhere, lineColumn } from "./load.js";
export { readParameters, typesOf, type JsonType, type ParameterInfo, type TypeSet } from "./schema-info.js";
export { VALIDATOR_LIMITS, checkSchemaDepth, checkSchemaDocument, declaredDraft, type SchemaDraft, type ValidatorLimits } from "./schema-limits.js";
export { DECLARED_TOOL_NAME, isDeclarableToolName } from "./names.js";
