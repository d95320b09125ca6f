// Owns: the public API of the qtc package (package.json `exports` points here). Explicit named exports only.

// Runtime: load a model, generate constrained or unconstrained turns, stream them.
export {
  defineTools,
  GENERATE_DEFAULTS,
  RUNTIME_DEFAULTS,
  type AnswerCheck,
  type DecodePass,
  type DefinedTools,
  type FinishReason,
  type GenerateEvent,
  type GenerateOutput,
  type GenerateRequest,
  type GenerateResult,
  type GenerateTimings,
  type GenerateUsage,
  type GenerationMode,
  type GrammarUse,
  type ModelInfo,
  type Runtime,
  type RuntimeLoad,
  type RuntimeOptions,
  type ToolHandler,
  type ToolHandlers,
  type ToolRunResult,
} from "./runtime/index.js";
// Engines: which one serves a model spec (local node-llama-cpp, llama-server, OpenAI-compatible) is chosen here.
export { createRuntime } from "./engines/index.js";
export { generateOnce } from "./engines/run-once.js";

// Post-parser: judge any model output, batch or streaming.
export {
  createParser,
  parse,
  PARSE_LIMITS,
  PARSER_DEFAULTS,
  type CallDiagnostic,
  type CallDiagnosticCode,
  type CallError,
  type EndOptions,
  type ParseDiagnostics,
  type ParseEvent,
  type ParseLimits,
  type Parser,
  type ParserOptions,
  type ParseResult,
  type ThinkingStart,
  type ToolCall,
} from "./parse/index.js";

// Adapters: OpenAI and Anthropic shapes.
export {
  createAnthropicEventTranslator,
  createOpenAIDeltaTranslator,
  streamEventsOf,
  toAnthropicContent,
  toOpenAIMessage,
  toOpenAIToolCalls,
  type AnthropicContentBlock,
  type AnthropicMessageShape,
  type AnthropicStreamEvent,
  type OpenAIAssistantMessage,
  type OpenAIDelta,
  type OpenAIToolCall,
  type StreamEvent,
} from "./adapters/index.js";

// Formats, tools and prompts.
export { detectFormat, FORMAT_IDS, getFormat, hermes, qwen35, qwen3coder, QWEN35_TOKENS, QWEN3_TOKENS, type FormatId, type ToolCallFormat } from "./formats/index.js";
export { compileValidators, loadToolsFile, normalizeToolChoice, normalizeTools, ValidatorCache, type CompiledTools, type JsonSchema, type ToolChoice, type ToolDefinition, type ToolInput } from "./tools/index.js";
export { renderPrompt, type ChatMessage, type RenderPromptOptions } from "./prompt/index.js";
export { CONSTRAINT_LIMITS, type AnswerConstraint, type ConstraintKind } from "./grammar/answer-constraint.js";
// The grammar and the constraint engine, for a caller with their own sampler: compile the tools once, then one
// matcher per sequence (accept, allowed set, forced text, closing, fork, rollback); or check a whole text.
export { compileToolGrammar, type CompiledGrammar, type ToolGrammarOptions } from "./grammar/index.js";
export type { CheckResult } from "./engine/checker.js";
export type { Continuation, Matcher, NextTokens } from "./engine/matcher.js";
export { allows, bannedTokens, listedTokens } from "./engine/matcher.js";
export { createMatcher, GrammarChecker } from "./model/grammar-checker.js";

// Models: resolution, synthetic models, download.
export { DEFAULT_MODEL, ensureSyntheticModel, MODEL_REGISTRY, pullModel, resolveModel, type ResolvedModel } from "./model/index.js";

// Errors.
export { ANSWER_REFUSALS, CALL_ERROR_CODES, INPUT_ERROR_CODES, QtcException, type AnswerRefusal, type CallErrorCode, type ErrorCode, type QtcError, type Result } from "./errors.js";
