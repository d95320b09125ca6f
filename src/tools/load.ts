// Owns: reading a tools file from disk into normalized, compiled tools, with errors a person can act on.

import { readFileSync } from "node:fs";
import { fail } from "../errors.js";
import { jsonErrorOffset } from "./json-position.js";
import { compileValidators, type CompiledTools } from "./validators.js";

/**
 * Read a tools file: a JSON array of tools (OpenAI, Anthropic or bare shapes), or an object with a `tools`
 * array (a request body). Throws QtcException: `file_not_found` when it cannot be read, `invalid_tools` when
 * it is not JSON (with line and column) or has the wrong shape, `invalid_schema` naming the tool whose schema
 * ajv cannot compile.
 */
export function loadToolsFile(path: string): CompiledTools {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "no such file" : code === "EISDIR" ? "it is a directory" : (e as Error).message;
    fail("file_not_found", `cannot read tools file ${path}: ${why}`, { path });
  }
  return parseToolsJson(text, path);
}

/** Parse tools JSON text (see loadToolsFile); `source` names it in error messages. */
export function parseToolsJson(text: string, source = "tools"): CompiledTools {
  let value: unknown;
  try {
    value = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (e) {
    fail("invalid_tools", `${source} is not valid JSON: ${jsonErrorWhere(text, e)}`, { path: source });
  }
  const list = Array.isArray(value) ? value : isObject(value) && Array.isArray(value.tools) ? value.tools : undefined;
  if (!list) {
    fail("invalid_tools", `${source} must hold a JSON array of tools (or an object with a "tools" array)`, { path: source });
  }
  try {
    return compileValidators(list);
  } catch (e) {
    if (e instanceof Error) e.message = `${source}: ${e.message}`;
    throw e;
  }
}

/** A JSON.parse error with line and column (found by jsonErrorOffset; V8's messages do not always say where). */
export function jsonErrorWhere(text: string, e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  const base = msg
    .replace(/\s*in JSON at position \d+.*$/, "")
    .replace(/, "(?:[^"\\]|\\.)*" is not valid JSON$/, "")
    .replace(/^Unexpected end of JSON input$/, "unexpected end of input");
  const pos = jsonErrorOffset(text);
  if (pos === undefined) return base;
  const { line, column } = lineColumn(text, pos);
  return `${base} at line ${line}, column ${column}`;
}

/** 1-based line and column of a UTF-16 offset. */
export function lineColumn(text: string, pos: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf("\n"); i !== -1 && i < pos; i = text.indexOf("\n", i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: pos - lineStart + 1 };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
