// Owns: HTTP errors as values (status, stable code, param, message) and their OpenAI and Anthropic body shapes.

import { type ErrorCode, QtcException } from "../errors.js";

export type ApiDialect = "openai" | "anthropic";

/** An error answered to the client. `message` says what to fix; `code` is stable (tests key on it). */
export class ApiError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  /** The request field at fault, dotted (`messages[2].content`), when there is one. */
  readonly param: string | null;
  constructor(status: number, code: ErrorCode, message: string, param: string | null = null) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.param = param;
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
  413: "invalid_request_error",
  503: "server_error",
};

const ANTHROPIC_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  404: "not_found_error",
  413: "request_too_large",
  529: "overloaded_error",
};

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
export function anthropicErrorBody(error: ApiError): { type: "error"; error: { type: string; message: string } } {
  const status = statusFor(error, "anthropic");
  const message = error.param && !error.message.startsWith(error.param) ? `${error.param}: ${error.message}` : error.message;
  return { type: "error", error: { type: ANTHROPIC_TYPES[status] ?? "api_error", message } };
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

/**
 * Any error thrown while handling a request, as an ApiError. Caller mistakes reported by the library
 * (QtcException: a bad tool schema, an unknown tool) become 400; anything else is a 500 that names no internals.
 */
export function toApiError(e: unknown): ApiError {
  if (e instanceof ApiError) return e;
  if (e instanceof QtcException) {
    if (e.code === "internal") return new ApiError(500, "internal", `Internal error: ${e.message}`);
    return new ApiError(400, e.code, e.path ? `${e.message} (at ${e.path})` : e.message);
  }
  const fe = e as { code?: unknown; message?: unknown; validation?: unknown; statusCode?: unknown };
  if (typeof fe?.code === "string" && FASTIFY_ERRORS[fe.code]) return FASTIFY_ERRORS[fe.code]!({ message: String(fe.message ?? "") });
  if (Array.isArray(fe?.validation)) return fromValidation(fe.validation as ValidationItem[]);
  if (e instanceof SyntaxError) return badRequest(`The body is not valid JSON (${e.message}). Send one JSON object.`);
  if (typeof fe?.statusCode === "number" && fe.statusCode >= 400 && fe.statusCode < 500) {
    return badRequest(String(fe.message ?? "Bad request."));
  }
  return new ApiError(500, "internal", "Internal server error.");
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
