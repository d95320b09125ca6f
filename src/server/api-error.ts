// Owns: HTTP errors as values (status, stable code, param, message) and their OpenAI and Anthropic body shapes.

import { type ErrorCode, QtcException } from "../errors.js";

export type ApiDialect = "openai" | "anthropic";

/** An error answered to the client. `message` says what to fix; `code` is stable (tests key on it). */
export class ApiError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  /** The request field at fault, dotted (`messages[2].content`), when there is one. */
  readonly param: string | null;
  /** Machine-readable details a client SDK acts on (Anthropic's `error.details`), when there are any. */
  readonly details: Record<string, unknown> | undefined;
  constructor(status: number, code: ErrorCode, message: string, param: string | null = null, details?: Record<string, unknown>) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.param = param;
    this.details = details;
  }
}

/** A 400 for a field with the wrong type or value. */
export function badRequest(message: string, param: string | null = null): ApiError {
  return new ApiError(400, "invalid_request", message, param);
}

/** A 400 for a parameter qtc does not support. */
export function unsupported(param: string, message: string): ApiError {
  return new ApiError(400, "unsupported_parameter", message, param);
}

const OPENAI_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "invalid_request_error",
  404: "invalid_request_error",
  408: "invalid_request_error",
  413: "invalid_request_error",
  503: "server_error",
};

const ANTHROPIC_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  404: "not_found_error",
  408: "invalid_request_error",
  413: "request_too_large",
  529: "overloaded_error",
};

/** Anthropic error types chosen by code rather than status: a shutdown is "try again elsewhere or later". */
const ANTHROPIC_CODE_TYPES: Partial<Record<ErrorCode, string>> = { shutting_down: "overloaded_error", loading: "overloaded_error" };

/** The status each dialect answers for an error; Anthropic reports overload as 529. */
export function statusFor(error: ApiError, dialect: ApiDialect): number {
  return dialect === "anthropic" && error.code === "overloaded" ? 529 : error.status;
}

/** `{"error": {"message", "type", "param", "code"}}` as OpenAI sends it. */
export function openAIErrorBody(error: ApiError): { error: { message: string; type: string; param: string | null; code: string } } {
  const code = error.code === "unauthorized" ? "invalid_api_key" : error.code;
  return { error: { message: error.message, type: OPENAI_TYPES[error.status] ?? "server_error", param: error.param, code } };
}

/** `{"type": "error", "error": {"type", "message"}}` as Anthropic sends it. */
export function anthropicErrorBody(error: ApiError): { type: "error"; error: { type: string; message: string; details?: Record<string, unknown> } } {
  const status = statusFor(error, "anthropic");
  const message = error.param && !error.message.startsWith(error.param) ? `${error.param}: ${error.message}` : error.message;
  const type = ANTHROPIC_CODE_TYPES[error.code] ?? ANTHROPIC_TYPES[status] ?? "api_error";
  return { type: "error", error: { type, message, ...(error.details ? { details: error.details } : {}) } };
}

export function errorBody(error: ApiError, dialect: ApiDialect): object {
  return dialect === "anthropic" ? anthropicErrorBody(error) : openAIErrorBody(error);
}

/** Fastify error codes for bodies it could not read, mapped to what the client should fix. */
const FASTIFY_ERRORS: Record<string, (e: { message: string }) => ApiError> = {
  FST_ERR_CTP_INVALID_JSON_BODY: (e) => badRequest(`The body is not valid JSON (${e.message}). Send one JSON object.`),
  FST_ERR_CTP_EMPTY_JSON_BODY: () => badRequest("The body is empty. Send one JSON object."),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () => badRequest("Unsupported Content-Type. Send the body as JSON with Content-Type: application/json."),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => badRequest("Content-Length does not match the body."),
  FST_ERR_CTP_BODY_TOO_LARGE: () => new ApiError(413, "request_too_large", "The request body is over the server's size limit. Send a smaller request (or raise the limit)."),
};

/** Which request field each kind of library error is about, as the request spelt it (set per route). */
export interface ParamHints {
  /** `max_tokens` or `max_completion_tokens`. */
  maxTokens: string;
  /** Where the request's response schema sits, when it has one. */
  responseSchema?: string;
}

/** Status of a library error code that is not the client's fault, or that HTTP has its own status for. */
const CODE_STATUS: Partial<Record<ErrorCode, number>> = {
  request_too_large: 413,
  unauthorized: 401,
  not_found: 404,
  request_timeout: 408,
  overloaded: 503,
  shutting_down: 503,
  loading: 503,
  internal: 500,
  aborted: 500,
  model_not_found: 500,
  model_load_failed: 500,
  download_failed: 500,
  file_not_found: 500,
  sandbox_unavailable: 500,
  unknown_format: 500,
  invalid_task: 500,
  // An upstream engine's failure is not the client's: a gateway status, so clients retry as they do for those.
  upstream_unavailable: 503,
  upstream_error: 502,
  upstream_timeout: 504,
  upstream_grammar_dropped: 502,
  unsupported_model: 500,
};

const SCHEMA_CODES: ReadonlySet<ErrorCode> = new Set(["unsupported_keyword", "invalid_schema", "schema_too_large", "unsatisfiable_schema"]);

/** The request field a library error (thrown by the runtime, the grammar or the renderer) is about. */
function paramFor(e: QtcException, hints: ParamHints | undefined): string | null {
  switch (e.code) {
    case "budget_too_small":
      return hints?.maxTokens ?? "max_tokens";
    case "invalid_option": // the prompt plus max_tokens is over the context size
    case "invalid_messages":
      return e.path?.startsWith("/messages") ? paramFromPath(e.path) : "messages";
    case "invalid_tools":
      return "tools";
    case "invalid_tool_choice":
    case "no_valid_call":
      return "tool_choice";
    default:
      if (!SCHEMA_CODES.has(e.code)) return null;
      // The grammar names the tool (`tool "x": …`) for a tool's schema; anything else is the response schema.
      return e.message.startsWith('tool "') || !hints?.responseSchema ? "tools" : hints.responseSchema;
  }
}

/**
 * Any error thrown while handling a request, as an ApiError. Caller mistakes reported by the library
 * (QtcException: a bad tool schema, a budget too small, an unknown tool) become 400 naming the field `hints`
 * point to; server-side failures and anything unexpected become a 500 that names no internals (the caller logs
 * the original).
 */
export function toApiError(e: unknown, hints?: ParamHints): ApiError {
  if (e instanceof ApiError) return e;
  if (e instanceof QtcException) {
    const status = CODE_STATUS[e.code] ?? 400;
    if (status === 500) return internalError();
    if (UPSTREAM_CODES.has(e.code)) return upstreamError(status, e.code);
    const where = e.path && !e.message.includes(e.path) ? ` (at ${e.path})` : "";
    return new ApiError(status, e.code, `${e.message}${where}`, status === 400 ? paramFor(e, hints) : null);
  }
  const fe = e as { code?: unknown; message?: unknown; validation?: unknown; statusCode?: unknown };
  if (typeof fe?.code === "string" && FASTIFY_ERRORS[fe.code]) return FASTIFY_ERRORS[fe.code]!({ message: String(fe.message ?? "") });
  if (Array.isArray(fe?.validation)) return fromValidation(fe.validation as ValidationItem[]);
  if (e instanceof SyntaxError) return badRequest(`The body is not valid JSON (${e.message}). Send one JSON object.`);
  if (typeof fe?.statusCode === "number" && fe.statusCode >= 400 && fe.statusCode < 500) {
    return badRequest(String(fe.message ?? "Bad request."));
  }
  return internalError();
}

const UPSTREAM_CODES: ReadonlySet<ErrorCode> = new Set(["upstream_unavailable", "upstream_error", "upstream_timeout", "upstream_grammar_dropped"]);

const UPSTREAM_ANSWERS: Partial<Record<ErrorCode, string>> = {
  upstream_unavailable: "The engine behind this server could not be reached.",
  upstream_error: "The engine behind this server gave a broken or failed reply.",
  upstream_timeout: "The engine behind this server did not answer in time.",
  upstream_grammar_dropped: "The engine behind this server ignored the tool-call grammar, so its output was refused.",
};

/**
 * An upstream engine's failure, for the client: its code and a gateway status, never the upstream's address
 * or reply (they are the operator's, and go to the server's log).
 */
function upstreamError(status: number, code: ErrorCode): ApiError {
  return new ApiError(status, code, `${UPSTREAM_ANSWERS[code]} Retry later; the server's log has the details.`);
}

/** The one 500 answer: it says nothing about the cause, which goes to the server's log instead. */
export function internalError(): ApiError {
  return new ApiError(500, "internal", "Internal server error; the server's log has the details. Please report it if it persists.");
}

interface ValidationItem {
  instancePath?: string;
  message?: string;
  keyword?: string;
  params?: Record<string, unknown>;
}

/** A fastify schema-validation failure (ajv), as a 400 naming the field. */
function fromValidation(items: ValidationItem[]): ApiError {
  const first = items[0] ?? {};
  let param = paramFromPath(first.instancePath ?? "");
  if (first.keyword === "required" && typeof first.params?.missingProperty === "string") {
    param = param ? `${param}.${first.params.missingProperty}` : first.params.missingProperty;
    return badRequest(`${param} is required.`, param);
  }
  if (!param) return badRequest("The body must be one JSON object, sent with Content-Type: application/json.");
  const p = first.params ?? {};
  let message = `${param} ${first.message ?? "is invalid"}`;
  if (first.keyword === "type") message = `${param} must be ${article(String(p.type))} ${p.type}`;
  if (first.keyword === "minItems") message = `${param} must have at least ${p.limit} item${p.limit === 1 ? "" : "s"}`;
  if (first.keyword === "minimum" || first.keyword === "maximum") message = `${param} must be ${first.keyword === "minimum" ? "at least" : "at most"} ${p.limit}`;
  return badRequest(`${message}.`, param);
}

function article(word: string): string {
  return /^[aeiou]/.test(word) ? "an" : "a";
}

/** `/messages/0/content` → `messages[0].content`. */
export function paramFromPath(pointer: string): string {
  if (!pointer.startsWith("/")) return pointer;
  let out = "";
  for (const part of pointer.slice(1).split("/")) {
    const key = part.replace(/~1/g, "/").replace(/~0/g, "~");
    out += /^\d+$/.test(key) ? `[${key}]` : out ? `.${key}` : key;
  }
  return out;
}
