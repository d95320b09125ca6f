// Owns: every stable error code qtc emits, the QtcError value, the Result union, and the one exception type
// thrown at bad caller input. Parsers and compilers return Results; only caller mistakes throw.

/** Why a tool-call block was rejected by the post-parser. Stable: tests and reports key on these. */
export const CALL_ERROR_CODES = [
  /** The block body is not strict JSON (hermes), e.g. a raw newline inside a string. */
  "invalid_json",
  /** JSON parsed but is not an object with exactly `name` and `arguments` (or the XML shape is wrong). */
  "bad_shape",
  /** The function name is not one of the declared tools. */
  "unknown_tool",
  /** A required argument is absent. */
  "missing_arguments",
  /** An argument the schema does not list (and `additionalProperties` is not true). */
  "unknown_arguments",
  /** A value fails the tool's JSON Schema. */
  "schema",
  /** The block was cut off (token limit) before it was complete. */
  "truncated",
  /** The same `<parameter=…>` appears twice in one call (qwen3coder). */
  "duplicate_parameter",
  /** `<parameter=…>`, child tags and a JSON body mixed in one function (qwen3coder). */
  "mixed_forms",
  /** Two `<function=…>` in one call block (qwen3coder). */
  "multiple_functions",
  /** A string, array, nesting depth or block exceeds the parser's limits. */
  "too_large",
  /** The block holds bytes that are not valid UTF-8 (U+FFFD replacement characters). */
  "invalid_utf8",
  /** An open and a close call tag with nothing in between. */
  "empty_block",
  /** The same key twice in one JSON object (JSON.parse would keep the last silently). */
  "duplicate_key",
] as const;
export type CallErrorCode = (typeof CALL_ERROR_CODES)[number];

/** Why a text answer was refused against the response schema or the answer constraint (GenerateResult.answer). */
export const ANSWER_REFUSALS = ["invalid_json", "schema", "truncated", "regex", "choice", "grammar", "stop_sequence"] as const;
export type AnswerRefusal = (typeof ANSWER_REFUSALS)[number];

/** Errors about inputs, schemas, models and the environment (not about one tool-call block). */
export const INPUT_ERROR_CODES = [
  /** A schema keyword the grammar compiler cannot honour. */
  "unsupported_keyword",
  /** maxTokens is too small for even the shortest call (or value) the grammar would have to admit. */
  "budget_too_small",
  /** The prompt (plus the asked output tokens) does not fit the model's context (qtc serve, in each API's wording). */
  "context_length_exceeded",
  /** A JSON Schema that is malformed or that ajv cannot compile. */
  "invalid_schema",
  /** A tools list that is not valid JSON or has the wrong shape. */
  "invalid_tools",
  /** A `tool_choice` naming no declared tool, or otherwise malformed. */
  "invalid_tool_choice",
  /** An unknown format id, or a template qtc cannot map to a format. */
  "unknown_format",
  /** A CLI flag or option value that is not accepted. */
  "invalid_option",
  /** A file the caller named does not exist or cannot be read. */
  "file_not_found",
  /** A model path, URI or registry name that does not resolve. */
  "model_not_found",
  /** A download failed (network, HTTP status, disk). */
  "download_failed",
  /** The model file exists but llama.cpp could not load it. */
  "model_load_failed",
  /** A messages list that is malformed. */
  "invalid_messages",
  /** The caller aborted the request (AbortSignal). */
  "aborted",
  /** An HTTP request body that is not JSON, or a field with the wrong type or value (qtc serve). */
  "invalid_request",
  /** A request parameter qtc does not support, e.g. `n: 2` or `logprobs` (qtc serve). */
  "unsupported_parameter",
  /** An HTTP request body over the server's size limit (qtc serve). */
  "request_too_large",
  /** A missing or wrong API key (qtc serve --api-key). */
  "unauthorized",
  /** An unknown route or model (qtc serve). */
  "not_found",
  /** The request queue is full; retry later (qtc serve). */
  "overloaded",
  /** A bug in qtc: an invariant was broken. The message says which. */
  "internal",
  /** A bench task folder whose task.json is malformed, or a task that fails the tasks check. */
  "invalid_task",
  /** A schema over qtc's stated size limits (enum size, nesting depth, item bounds, total size); names the keyword. */
  "schema_too_large",
  /** A schema no value can satisfy (e.g. `minimum` above `maximum`), so no call could ever be valid. */
  "unsatisfiable_schema",
  /** No OS sandbox is available to confine code the model wrote; the run is refused unless unconfined runs are allowed. */
  "sandbox_unavailable",
  /** A request (or its body) took longer than the server's time limit (qtc serve). */
  "request_timeout",
  /** The server is shutting down; the answer was cut off and is not complete (qtc serve). */
  "shutting_down",
  /** Building llama.cpp's programs (llama-server, the trainer) from the bundled source failed; the message shows the log's end. */
  "llama_build_failed",
  /** An upstream engine refused the connection, failed its health check, or no healthy replica is left. */
  "upstream_unavailable",
  /** An upstream engine answered with an error status or a reply qtc cannot read. */
  "upstream_error",
  /** An upstream engine did not answer (or stopped streaming) within the time limit. */
  "upstream_timeout",
  /** An upstream engine ignored the grammar qtc sent (it would have generated unconstrained). */
  "upstream_grammar_dropped",
  /** A model the operation cannot use as it is (e.g. fine-tuning needs an F32 GGUF). */
  "unsupported_model",
  /** Fine-tuning failed (the trainer exited with an error); the message shows its output's end. */
  "training_failed",
  /**
   * The tool choice demands a call (`required` or a named tool) and the turn made no valid one: every call was
   * rejected, or none was written. The same answer on every engine (a 400 naming `tool_choice` on the server).
   */
  "no_valid_call",
  /** The server is still loading its model; retry once GET /health answers 200. */
  "loading",
] as const;
export type InputErrorCode = (typeof INPUT_ERROR_CODES)[number];

export type ErrorCode = CallErrorCode | InputErrorCode;

/** An error as data. `message` is written for whoever reads it next: the model for call errors, a person otherwise. */
export interface QtcError {
  code: ErrorCode;
  message: string;
  /** JSON pointer (schemas) or file path the error is about, when there is one. */
  path?: string;
}

export type Result<T, E = QtcError> = { ok: true; value: T } | { ok: false; error: E };

export const ok = <T>(value: T): { ok: true; value: T } => ({ ok: true, value });
export const err = <E = QtcError>(error: E): { ok: false; error: E } => ({ ok: false, error });

/**
 * Thrown only for bad caller input (a tools file that does not parse, an unknown flag value, a missing model).
 * The CLI prints `message` on one line and exits with `exitCode`; it never prints a stack for these.
 */
export class QtcException extends Error {
  readonly code: ErrorCode;
  readonly path?: string;
  /** Process exit code the CLI uses. 2 = bad usage or input, 1 = an operation failed. */
  readonly exitCode: number;
  constructor(error: QtcError, exitCode = 2) {
    super(error.message);
    this.name = "QtcException";
    this.code = error.code;
    this.path = error.path;
    this.exitCode = exitCode;
  }
}

/**
 * A broken invariant inside qtc: a bug, not bad input. The one way to raise it (code `internal`, exit 1), so a
 * report or an API answer can tell qtc's own faults from the caller's.
 */
export function internal(message: string): never {
  throw new QtcException({ code: "internal", message: `internal error (a bug in qtc): ${message}` }, 1);
}

/** Throw a QtcException built from a code and a message. */
export function fail(code: ErrorCode, message: string, opts: { path?: string; exitCode?: number } = {}): never {
  throw new QtcException({ code, message, path: opts.path }, opts.exitCode ?? 2);
}
