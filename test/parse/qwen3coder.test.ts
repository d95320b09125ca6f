import { describe, expect, it } from "vitest";
import { parse } from "../../src/parse/index.js";
import { TOOLS, xmlCall } from "./helpers.js";

const fn = (body: string, name = "search") => `<tool_call>\n<function=${name}>\n${body}</function>\n</tool_call>`;
const p = (text: string, opts = {}) => parse(text, { tools: TOOLS, ...opts });
const args = (text: string, opts = {}) => p(text, opts).calls.map((c) => c.parsedArguments);
const reasons = (text: string, opts = {}) => p(text, opts).errors.map((e) => e.reason);

describe("qwen3coder blocks", () => {
  it("strips exactly one framing newline on each side of a value", () => {
    expect(args(fn("<parameter=text>\n\nindented\n  two\n\n</parameter>\n", "note"))).toEqual([{ text: "\nindented\n  two\n" }]);
    expect(args(fn("<parameter=text>same line</parameter>\n", "note"))).toEqual([{ text: "same line" }]);
    expect(args(fn("<parameter=text>\r\nwin\r\n</parameter>\n", "note"))).toEqual([{ text: "win" }]);
    expect(args(fn("<parameter=text>\n</parameter>\n", "note"))).toEqual([{ text: "" }]);
  });

  it("types values by the schema: strings never coerced, JSON first, then Python literals", () => {
    const body = [
      "<parameter=query>\n42\n</parameter>",
      "<parameter=limit>\n7\n</parameter>",
      "<parameter=verbose>\nTrue\n</parameter>",
      "<parameter=cutoff>\nNone\n</parameter>",
      "<parameter=filters>\n{'lang': 'py', 'tags': ['a', \"b\"],}\n</parameter>",
      "",
    ].join("\n");
    expect(args(fn(body))).toEqual([{ query: "42", limit: 7, verbose: true, cutoff: null, filters: { lang: "py", tags: ["a", "b"] } }]);
    expect(args(fn('<parameter=query>\n"quoted"\n</parameter>\n<parameter=filters>\n{"lang": "ts"}\n</parameter>\n'))).toEqual([{ query: '"quoted"', filters: { lang: "ts" } }]);
  });

  it("rejects a value that does not fit its type", () => {
    expect(reasons(fn("<parameter=query>\nq\n</parameter>\n<parameter=limit>\nseven\n</parameter>\n"))).toEqual(["schema"]);
    expect(reasons(fn("<parameter=query>\nq\n</parameter>\n<parameter=verbose>\nyes\n</parameter>\n"))).toEqual(["schema"]);
  });

  it("closes a missing </parameter> at the next <parameter= or at </function>", () => {
    expect(args(fn("<parameter=path>\na.ts\n<parameter=content>\nhello\n", "write_file"))).toEqual([{ path: "a.ts", content: "hello" }]);
  });

  it("keeps literal tags inside a string value", () => {
    const content = "see </parameter> and <parameter=x> inline, <tool_call> and </function> too";
    expect(args(xmlCall("write_file", { path: "a.md", content }))).toEqual([{ path: "a.md", content }]);
    const child = "<tool_call>\n<function=write_file>\n<path>a.html</path>\n<content><p>hi</p></content>\n</function>\n</tool_call>";
    expect(args(child)).toEqual([{ path: "a.html", content: "<p>hi</p>" }]);
  });

  it("rejects mixed forms, two functions and unclosed functions", () => {
    expect(reasons(fn("<parameter=query>\nq\n</parameter>\n<limit>3</limit>\n"))).toEqual(["mixed_forms"]);
    expect(reasons(fn("<query>q</query>\n<parameter=limit>\n3\n</parameter>\n"))).toEqual(["mixed_forms"]);
    expect(reasons(fn('{"query": "q"}\n<parameter=limit>\n3\n</parameter>\n'))).toEqual(["mixed_forms"]);
    expect(reasons(fn("<parameter=query>\nq\n</parameter>\n{\"limit\": 3}\n"))).toEqual(["mixed_forms"]);
    const two = "<tool_call>\n<function=read_file>\n<path>a</path>\n</function>\n<function=read_file>\n<path>b</path>\n</function>\n</tool_call>";
    expect(reasons(two)).toEqual(["multiple_functions"]);
    expect(reasons("<tool_call>\n<function=read_file>\n<path>a</path>\n</tool_call>")).toEqual(["bad_shape"]);
    expect(reasons("<tool_call>\n<function=read_file>\n<path>a</path>\n</function>\ntrailing\n</tool_call>")).toEqual(["bad_shape"]);
  });

  it("rejects malformed names and stray text", () => {
    expect(reasons("<tool_call>\n<function=read file>\n</function>\n</tool_call>")).toEqual(["bad_shape"]);
    expect(reasons("<tool_call>\n<function=read_file\n<path>a</path>\n</function>\n</tool_call>")).toEqual(["bad_shape"]);
    expect(reasons(fn("path: a\n", "read_file"))).toEqual(["bad_shape"]);
    expect(reasons(fn("<path>a\n", "read_file"))).toEqual(["bad_shape"]);
  });

  it("reports invalid JSON in a JSON body", () => {
    expect(reasons(fn('{"query": "a\nb"}\n'))).toEqual(["invalid_json"]);
    expect(reasons(fn('{"query": "q",}\n'))).toEqual(["invalid_json"]);
  });

  it("accepts a function with no arguments and checks names and arguments like hermes", () => {
    expect(args(fn("", "run_tests"))).toEqual([{}]);
    expect(reasons(fn("<parameter=path>\na\n</parameter>\n", "rm_rf"))).toEqual(["unknown_tool"]);
    expect(reasons(fn("<parameter=verbose>\ntrue\n</parameter>\n"))).toEqual(["missing_arguments"]);
    expect(reasons(fn("<parameter=query>\nq\n</parameter>\n<parameter=depth>\n2\n</parameter>\n"))).toEqual(["unknown_arguments"]);
  });

  it("sets a parameter named __proto__ as data, never as the prototype", () => {
    const r = parse(fn("<parameter=__proto__>\n{\"polluted\": 1}\n</parameter>\n", "anything"));
    expect(r.calls).toHaveLength(1);
    const a = r.calls[0]!.parsedArguments;
    expect(Object.getPrototypeOf(a)).toBe(Object.prototype);
    expect(Object.keys(a)).toEqual(["__proto__"]);
    expect(r.calls[0]!.arguments).toBe('{"__proto__":"{\\"polluted\\": 1}"}');
  });

  it("rejects a JSON body when the hermes-less qwen3coder format is forced and a bare JSON block appears", () => {
    expect(reasons('<tool_call>\n{"name": "read_file", "arguments": {"path": "a"}}\n</tool_call>', { format: "qwen3coder" })).toEqual(["bad_shape"]);
  });
});
