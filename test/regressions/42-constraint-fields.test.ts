// Issue 42: no constraining field is ignored. Each of vLLM's `structured_outputs` keys (and `guided_*`),
// llama-server's `grammar` and `json_schema`, and qtc's `x-qtc-constraint` becomes the request's `constraint` on
// the routes that take it, or a 400 naming the field. Before, these fields were dropped and the request ran free.

import { describe, expect, test } from "vitest";
import { ApiError } from "../../src/server/api-error.js";
import { anthropicToGenerate } from "../../src/server/anthropic-request.js";
import { completionsToGenerate } from "../../src/server/completions.js";
import { openAIToGenerate } from "../../src/server/openai-request.js";
import { responsesToGenerate } from "../../src/server/responses-request.js";

const ctx = { mode: "constrained" as const, maxTokensLimit: 4096 };
const chat = (extra: Record<string, unknown>) => openAIToGenerate({ messages: [{ role: "user", content: "x" }], ...extra }, ctx).request.constraint;
const completion = (extra: Record<string, unknown>) => completionsToGenerate({ prompt: "x", ...extra }, ctx).request.constraint;
const responses = (extra: Record<string, unknown>) => responsesToGenerate({ model: "m", input: "x", ...extra }, ctx).request.constraint;
const messages = (extra: Record<string, unknown>) => anthropicToGenerate({ model: "m", max_tokens: 16, messages: [{ role: "user", content: "x" }], ...extra }, ctx).request.constraint;

/** The 400 a conversion throws, as {status, param}. */
function refusal(f: () => unknown): { status: number; param: string | null } {
  try {
    f();
  } catch (e) {
    if (e instanceof ApiError) return { status: e.status, param: e.param };
    throw e;
  }
  throw new Error("expected a 400");
}

const SCHEMA = { type: "object", properties: { a: { type: "integer" } }, required: ["a"] };

describe("issue 42: constraining fields are honoured", () => {
  test.each([
    [{ structured_outputs: { regex: "[A-Z]{3}" } }, { regex: "[A-Z]{3}" }],
    [{ structured_outputs: { choice: ["PASS", "FAIL"] } }, { choice: ["PASS", "FAIL"] }],
    [{ structured_outputs: { grammar: 'root ::= "a"' } }, { grammar: 'root ::= "a"' }],
    [{ structured_outputs: { json: SCHEMA } }, { jsonSchema: SCHEMA }],
    [{ structured_outputs: { json: JSON.stringify(SCHEMA) } }, { jsonSchema: SCHEMA }],
    [{ guided_regex: "[0-9]+" }, { regex: "[0-9]+" }],
    [{ guided_choice: ["y", "n"] }, { choice: ["y", "n"] }],
    [{ guided_grammar: 'root ::= "b"' }, { grammar: 'root ::= "b"' }],
    [{ guided_json: SCHEMA }, { jsonSchema: SCHEMA }],
    [{ grammar: 'root ::= [a-z]{1,4}' }, { grammar: "root ::= [a-z]{1,4}" }],
    [{ json_schema: SCHEMA }, { jsonSchema: SCHEMA }],
    [{ "x-qtc-constraint": { choice: ["a"] } }, { choice: ["a"] }],
  ])("chat, text completions, responses and messages: %j", (field, constraint) => {
    expect(chat(field)).toEqual(constraint);
    expect(completion(field)).toEqual(constraint);
    expect(responses(field)).toEqual(constraint);
    expect(messages(field)).toEqual(constraint);
  });

  test("/v1/messages: x-qtc-constraint", () => {
    expect(messages({ "x-qtc-constraint": { regex: "[A-Z]{3}-[0-9]{4}" } })).toEqual({ regex: "[A-Z]{3}-[0-9]{4}" });
    expect(messages({ "x-qtc-constraint": { grammar: 'root ::= "ok"' } })).toEqual({ grammar: 'root ::= "ok"' });
  });
});

describe("issue 42: what qtc cannot hold is a 400 naming the field", () => {
  test.each([
    [{ structured_outputs: { structural_tag: "{}" } }, "structured_outputs.structural_tag"],
    [{ structured_outputs: { json_object: true } }, "structured_outputs.json_object"],
    [{ structured_outputs: { whitespace_pattern: " " , regex: "a" } }, "structured_outputs.whitespace_pattern"],
    [{ structured_outputs: { lark: "start: x" } }, "structured_outputs.lark"],
    [{ structured_outputs: { regex: "a", choice: ["a"] } }, "structured_outputs"],
    [{ structured_outputs: { regex: "(\\d+\\.?\\d*)*z[ab]*a[ab]{11}" } }, "structured_outputs.regex"],
    [{ structured_outputs: { choice: Array.from({ length: 300 }, (_, i) => `c${i}`) } }, "structured_outputs.choice"],
    [{ structured_outputs: { grammar: "start: x" } }, "structured_outputs.grammar"],
    [{ guided_decoding_backend: "xgrammar" }, "guided_decoding_backend"],
    [{ grammar: "root ::= root \"a\"" }, "grammar"],
    [{ grammar: "root ::= <[151657]>" }, "grammar"],
    [{ grammar: 'root ::= "<tool_call>"' }, "grammar"],
    [{ grammar_lazy: true, grammar: 'root ::= "a"' }, "grammar_lazy"],
    [{ grammar_triggers: [{ type: 1, value: "x" }] }, "grammar_triggers"],
    [{ grammar: 'root ::= "a"', structured_outputs: { regex: "a" } }, "grammar"],
    [{ json_schema: { type: "object", properties: { a: { type: "nope" } } } }, "json_schema"],
  ])("%j → 400 on %s", (field, param) => {
    expect(refusal(() => chat(field))).toEqual({ status: 400, param });
    expect(refusal(() => completion(field))).toEqual({ status: 400, param });
    expect(refusal(() => responses(field))).toEqual({ status: 400, param });
    expect(refusal(() => messages(field))).toEqual({ status: 400, param });
  });

  test("a constraint beside a JSON response_format or text.format is refused, naming the constraint", () => {
    expect(refusal(() => chat({ response_format: { type: "json_object" }, structured_outputs: { regex: "a" } }))).toEqual({ status: 400, param: "structured_outputs.regex" });
    expect(refusal(() => responses({ text: { format: { type: "json_object" } }, grammar: 'root ::= "a"' }))).toEqual({ status: 400, param: "grammar" });
  });

  test("/v1/messages: a bad x-qtc-constraint names itself", () => {
    expect(refusal(() => messages({ "x-qtc-constraint": { regex: "a", grammar: "root ::= \"a\"" } }))).toEqual({ status: 400, param: "x-qtc-constraint" });
    expect(refusal(() => messages({ "x-qtc-constraint": { choice: [] } }))).toEqual({ status: 400, param: "x-qtc-constraint.choice" });
  });
});
