// Every library error code a thrown QtcException can carry maps to one HTTP status: the client's mistakes to 400
// with the request field at fault, server-side failures to a 500 that names nothing.

import { describe, expect, test } from "vitest";
import { INPUT_ERROR_CODES, type InputErrorCode, QtcException } from "../../src/errors.js";
import { toApiError } from "../../src/server/api-error.js";

const SERVER_SIDE: InputErrorCode[] = ["internal", "aborted", "model_not_found", "model_load_failed", "download_failed", "file_not_found", "sandbox_unavailable", "unknown_format", "invalid_task", "unsupported_model"];
const OWN_STATUS: Partial<Record<InputErrorCode, number>> = { request_too_large: 413, unauthorized: 401, not_found: 404, request_timeout: 408, overloaded: 503, shutting_down: 503, loading: 503, upstream_unavailable: 503, upstream_error: 502, upstream_timeout: 504, upstream_grammar_dropped: 502 };
const hints = { maxTokens: "max_completion_tokens", responseSchema: "response_format.json_schema.schema" };

describe("toApiError on a QtcException", () => {
  test.each(INPUT_ERROR_CODES.map((c) => [c]))("%s has one status", (code) => {
    const e = toApiError(new QtcException({ code, message: `secret detail of ${code}` }), hints);
    if (SERVER_SIDE.includes(code)) {
      expect([e.status, e.code]).toEqual([500, "internal"]);
      expect(e.message).not.toContain("secret");
    } else {
      expect(e.status).toBe(OWN_STATUS[code] ?? 400);
      expect(e.code).toBe(code);
    }
  });

  test.each<[InputErrorCode, string, string | undefined, string | null]>([
    ["budget_too_small", "maxTokens 1 is too small for even the shortest call", undefined, "max_completion_tokens"],
    ["schema_too_large", 'tool "f": enum has 100000 values', "/properties/a/enum", "tools"],
    ["unsatisfiable_schema", 'tool "f": minimum 10 is above maximum 1', "/properties/a", "tools"],
    ["unsupported_keyword", 'tool "f": keyword "if" is not supported', "/if", "tools"],
    ["schema_too_large", "minItems 1e15 is over the limit", "/minItems", "response_format.json_schema.schema"],
    ["unsatisfiable_schema", "minimum 10 is above maximum 1", "", "response_format.json_schema.schema"],
    ["invalid_schema", "the response schema cannot be compiled", "", "response_format.json_schema.schema"],
    ["invalid_messages", "messages[2].content: must be a string", "/messages/2/content", "messages[2].content"],
    ["invalid_option", "the prompt plus maxTokens exceeds the context size", undefined, "messages"],
    ["invalid_tools", "tools[0]: bad", "/tools/0", "tools"],
    ["invalid_tool_choice", "tool choice names x", undefined, "tool_choice"],
  ])("%s (%s) → 400 naming %s", (code, message, path, param) => {
    const e = toApiError(new QtcException({ code, message, ...(path !== undefined ? { path } : {}) }), hints);
    expect([e.status, e.code, e.param]).toEqual([400, code, param]);
  });

  test("a schema error without a response schema in the request is about the tools", () => {
    const e = toApiError(new QtcException({ code: "unsatisfiable_schema", message: "minimum 10 is above maximum 1" }), { maxTokens: "max_tokens" });
    expect(e.param).toBe("tools");
  });

  test("anything that is not a known error is a generic 500", () => {
    for (const thrown of [new RangeError("Maximum call stack size exceeded"), new TypeError("x is undefined"), "a string", null]) {
      const e = toApiError(thrown);
      expect([e.status, e.code, e.param]).toEqual([500, "internal", null]);
      expect(e.message).not.toMatch(/stack|undefined|string/);
    }
  });
});
