import { describe, expect, it } from "vitest";
import { parse } from "../../src/parse/index.js";
import { jsonCall, TOOLS } from "./helpers.js";

const wrap = (body: string) => `<tool_call>\n${body}\n</tool_call>`;
const reasons = (text: string, opts = {}) => parse(text, { tools: TOOLS, ...opts }).errors.map((e) => e.reason);
const args = (text: string) => parse(text, { tools: TOOLS }).calls.map((c) => c.parsedArguments);

describe("hermes blocks", () => {
  it("accepts the canonical spelling and compact JSON alike", () => {
    expect(args(jsonCall("grep", { pattern: "a.*b", path: "src" }))).toEqual([{ pattern: "a.*b", path: "src" }]);
    expect(args(wrap('{"name":"grep","arguments":{"pattern":"x","path":"."}}'))).toEqual([{ pattern: "x", path: "." }]);
  });

  it("requires strict JSON", () => {
    expect(reasons(wrap("{'name': 'read_file', 'arguments': {'path': 'a'}}"))).toEqual(["invalid_json"]);
    expect(reasons(wrap('{"name": "read_file", "arguments": {"path": "a",}}'))).toEqual(["invalid_json"]);
    expect(reasons(wrap('{"name": "read_file", "arguments": {"path": "a"}} trailing'))).toEqual(["invalid_json"]);
    expect(reasons(wrap('{"name": "read_file", "arguments": {"path": "a\tb"}}'))).toEqual(["invalid_json"]);
  });

  it("requires exactly name and arguments", () => {
    expect(reasons(wrap('{"name": "read_file"}'))).toEqual(["bad_shape"]);
    expect(reasons(wrap('{"name": "read_file", "parameters": {"path": "a"}}'))).toEqual(["bad_shape"]);
    expect(reasons(wrap('{"name": "read_file", "arguments": {"path": "a"}, "id": 1}'))).toEqual(["bad_shape"]);
    expect(reasons(wrap('{"arguments": {"path": "a"}}'))).toEqual(["bad_shape"]);
    expect(reasons(wrap('{"name": "", "arguments": {}}'))).toEqual(["bad_shape"]);
    expect(reasons(wrap('[{"name": "read_file", "arguments": {"path": "a"}}]'))).toEqual(["bad_shape"]);
    expect(reasons(wrap('{"name": "read_file", "arguments": ["a"]}'))).toEqual(["bad_shape"]);
  });

  it("decodes arguments given as a JSON string holding an object, once", () => {
    expect(args(wrap('{"name": "read_file", "arguments": "{\\"path\\": \\"a\\"}"}'))).toEqual([{ path: "a" }]);
    expect(reasons(wrap('{"name": "read_file", "arguments": "\\"{\\\\\\"path\\\\\\": 1}\\""}'))).toEqual(["bad_shape"]);
    expect(reasons(wrap('{"name": "read_file", "arguments": "path=a"}'))).toEqual(["bad_shape"]);
  });

  it("never guesses or case-corrects a tool name", () => {
    expect(reasons(jsonCall("Read_File", { path: "a" }))).toEqual(["unknown_tool"]);
    expect(reasons(jsonCall("read", { path: "a" }))).toEqual(["unknown_tool"]);
  });

  it("checks required and unknown arguments", () => {
    expect(reasons(jsonCall("write_file", { path: "a" }))).toEqual(["missing_arguments"]);
    expect(reasons(jsonCall("read_file", { path: "a", encoding: "utf8" }))).toEqual(["unknown_arguments"]);
    expect(reasons(jsonCall("read_file", { file_path: "a" }))).toEqual(["missing_arguments"]);
    expect(reasons(jsonCall("run_tests", { verbose: true }))).toEqual(["unknown_arguments"]);
    expect(args(jsonCall("run_tests", {}))).toEqual([{}]);
    // additionalProperties: true allows extra arguments
    expect(args(jsonCall("note", { text: "t", mood: 3 }))).toEqual([{ text: "t", mood: 3 }]);
  });

  it("does not mistake inherited property names for arguments", () => {
    expect(reasons(jsonCall("write_file", { path: "a", constructor: "x" }))).toEqual(["missing_arguments"]);
    expect(reasons(wrap('{"name": "read_file", "arguments": {"path": "a", "__proto__": {"x": 1}}}'))).toEqual(["unknown_arguments"]);
  });

  it("validates values against the schema with ajv", () => {
    expect(args(jsonCall("search", { query: "q", limit: 3, mode: "fast", filters: { lang: "ts", tags: ["a"] }, verbose: false, cutoff: null }))).toHaveLength(1);
    expect(reasons(jsonCall("search", { query: "q", limit: 3.5 }))).toEqual(["schema"]);
    expect(reasons(jsonCall("search", { query: "q", limit: 99 }))).toEqual(["schema"]);
    expect(reasons(jsonCall("search", { query: "q", mode: "slow" }))).toEqual(["schema"]);
    expect(reasons(jsonCall("search", { query: "q", filters: { lang: "ts", extra: 1 } }))).toEqual(["schema"]);
    expect(reasons(jsonCall("search", { query: "q", filters: { tags: [1] } }))).toEqual(["schema"]);
    expect(reasons(jsonCall("search", { query: "" }))).toEqual(["schema"]);
    expect(reasons(jsonCall("search", { query: "q", cutoff: "high" }))).toEqual(["schema"]);
  });

  it("names the failing argument in the schema message", () => {
    const r = parse(jsonCall("search", { query: "q", mode: "slow" }), { tools: TOOLS });
    expect(r.errors[0]!.message).toContain('"mode"');
    expect(r.errors[0]!.message).toContain('"fast", "exact"');
  });

  it("enforces the size limits as too_large", () => {
    expect(reasons(jsonCall("write_file", { path: "a", content: "x".repeat(101) }), { limits: { maxStringLength: 100 } })).toEqual(["too_large"]);
    expect(reasons(jsonCall("note", { text: "t", list: [1, 2, 3, 4] }), { limits: { maxArrayLength: 3 } })).toEqual(["too_large"]);
    let deep: unknown = 1;
    for (let i = 0; i < 5; i++) deep = { d: deep };
    expect(reasons(jsonCall("note", { text: "t", deep }), { limits: { maxDepth: 5 } })).toEqual(["too_large"]);
    expect(reasons(jsonCall("note", { text: "t", deep }), { limits: { maxDepth: 7 } })).toEqual([]);
  });

  it("keeps a literal open tag inside a JSON string in the value", () => {
    expect(args(jsonCall("write_file", { path: "a.md", content: "use <tool_call> then <function=x>" }))).toEqual([
      { path: "a.md", content: "use <tool_call> then <function=x>" },
    ]);
  });

  it("rejects the XML form when the hermes format is forced", () => {
    expect(reasons("<tool_call>\n<function=read_file>\n<path>a</path>\n</function>\n</tool_call>", { format: "hermes" })).toEqual(["bad_shape"]);
  });
});
