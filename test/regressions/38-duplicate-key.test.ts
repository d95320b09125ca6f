// Issue 38: a key given twice in one object passed the parser (JSON.parse keeps the last value), so a program
// got an object the model never meant. Every format now refuses it with `duplicate_key`, naming the key.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parse } from "../../src/parse/index.js";
import { compileValidators } from "../../src/tools/validators.js";
import { runCli } from "../helpers/cli.js";

const TOOLS = [
  { type: "function", function: { name: "f", parameters: { type: "object", additionalProperties: true } } },
  { type: "function", function: { name: "g", parameters: { type: "object", properties: { opts: { type: "object" }, list: { type: "array" } } } } },
];
const tools = compileValidators(TOOLS);
const reasons = (text: string, format: "hermes" | "qwen3coder" | "auto") => {
  const r = parse(text, { tools, format, thinking: "closed" });
  return { calls: r.calls.length, errors: r.errors.map((e) => [e.reason, e.name, e.message.includes('"a"')]) };
};

afterEach(() => {
  process.exitCode = undefined;
});

describe("issue 38: duplicate keys are refused in every format", () => {
  it("hermes: in the arguments, nested, escaped alike, in arguments given as a string, and in the envelope", () => {
    for (const body of [
      '{"name": "f", "arguments": {"a": 1, "a": 2}}',
      '{"name": "g", "arguments": {"opts": {"a": 1, "b": {"a": 0}, "a": 2}}}',
      '{"name": "g", "arguments": {"list": [{"x": 1}, {"a": 1, "\\u0061": 2}]}}',
      '{"name": "f", "arguments": "{\\"a\\": 1, \\"a\\": 2}"}',
      '{"name": "g", "arguments": {"opts": "{\\"a\\": 1, \\"a\\": 2}"}}',
    ]) {
      expect(reasons(`<tool_call>\n${body}\n</tool_call>`, "hermes"), body).toEqual({ calls: 0, errors: [["duplicate_key", body.includes('"g"') ? "g" : "f", true]] });
    }
    expect(reasons('<tool_call>\n{"name": "f", "name": "f", "arguments": {}}\n</tool_call>', "hermes").errors[0]?.[0]).toBe("duplicate_key");
  });

  it("keeps equal keys in different objects, and keys quoted inside strings", () => {
    expect(reasons('<tool_call>\n{"name": "g", "arguments": {"opts": {"a": 1, "b": {"a": "\\"a\\": 2, \\"a\\""}}}}\n</tool_call>', "hermes")).toEqual({ calls: 1, errors: [] });
    expect(reasons('<tool_call>\n{"name": "g", "arguments": {"list": [{"a": 1}, {"a": 1}]}}\n</tool_call>', "hermes")).toEqual({ calls: 1, errors: [] });
  });

  it("qwen3coder: a JSON body, and JSON or Python-literal parameter values", () => {
    const bodies = [
      '<function=f>\n{"a": 1, "a": 2}\n</function>',
      '<function=g>\n<parameter=opts>\n{"a": 1, "a": 2}\n</parameter>\n</function>',
      "<function=g>\n<parameter=opts>\n{'a': 1, 'a': 2}\n</parameter>\n</function>",
      '<function=g>\n<parameter=list>\n[{"a": 1, "a": 2}]\n</parameter>\n</function>',
    ];
    for (const body of bodies) {
      const text = `<tool_call>\n${body}\n</tool_call>`;
      expect(reasons(text, "qwen3coder"), body).toEqual({ calls: 0, errors: [["duplicate_key", body.includes("=g") ? "g" : "f", true]] });
      expect(reasons(text, "auto").errors[0]?.[0], body).toBe("duplicate_key");
    }
  });

  it('`qtc parse` rejects {"a": 1, "a": 2} with duplicate_key', async () => {
    const dir = mkdtempSync(join(tmpdir(), "qtc-38-"));
    const file = join(dir, "out.txt");
    writeFileSync(file, '<tool_call>\n{"name": "f", "arguments": {"a": 1, "a": 2}}\n</tool_call>');
    const r = await runCli(["parse", file]);
    const json = JSON.parse(r.stdout);
    expect(json.calls).toEqual([]);
    expect(json.errors.map((e: { reason: string }) => e.reason)).toEqual(["duplicate_key"]);
    expect(json.errors[0].message).toContain('"a"');
  });
});
