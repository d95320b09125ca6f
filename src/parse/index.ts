// Owns: the public surface of the post-parser.

export type { CallDiagnostic, CallDiagnosticCode, CallError, ParseDiagnostics, ParseEvent, ParseResult, ToolCall } from "./types.js";
export { createParser, parse, type Parser } from "./parser.js";
export { PARSE_LIMITS, PARSER_DEFAULTS, randomCallId, type EndOptions, type ParseLimits, type ParserOptions, type ThinkingStart } from "./options.js";
export { parsePythonLiteral, typeXmlValue } from "./values.js";
export { parseJsonlLine, type JsonlDefaults, type JsonlOutcome } from "./jsonl.js";
export { explainParse, explanationLines, type BlockExplanation, type ParseExplanation } from "./explain.js";
