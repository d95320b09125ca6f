// Owns: which names a declared tool may have — the one rule the grammar compiler and the server both check.

/**
 * 1–128 of letters (any script), marks, digits, `_`, `-`, `.` and `:` (OpenAI's set, letters beyond ASCII as the
 * peers accept them, and MCP-style separators), starting with a letter or `_`. The parser matches a declared name
 * exactly; an undeclared one is judged by the stricter rule in src/parse/block.ts.
 */
export const DECLARED_TOOL_NAME = /^[\p{L}_][\p{L}\p{M}\p{N}_.:-]{0,127}$/u;

export const isDeclarableToolName = (name: string): boolean => DECLARED_TOOL_NAME.test(name);
