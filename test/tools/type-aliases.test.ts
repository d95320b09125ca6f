// Issue 15, class 7: tool schemas as users really write them (BFCL-style `float`, `dict`, `tuple`, `any`, and
// Python's `int`/`bool`/`str`/`list`) compile, with a note each; any other type is `invalid_schema` naming the
// tool and the JSON pointer. Both the validators and the grammar read the rewritten schema.
import { describe, expect, it } from "vitest";
import { QtcException } from "../../src/errors.js";
import { compileToolGrammar } from "../../src/grammar/compile.js";
import { parse } from "../../src/parse/index.js";
import { compileValidators } from "../../src/tools/validators.js";
import { normalizeTools } from "../../src/tools/normalize.js";
import { jsonCall, xmlCall } from "../parse/helpers.js";

const bfcl = [
  {
    name: "calc",
    parameters: {
      type: "object",
      properties: {
        rate: { type: "float" },
        settings: { type: "dict", properties: { debug: { type: "bool" } } },
        point: { type: "tuple", items: { type: "float" } },
        anything: { type: "any" },
        count: { type: ["int", "null"] },
        tag: { type: "str", enum: ["float"] },
      },
      required: ["rate"],
    },
  },
];

describe("schema type aliases", () => {
  it("rewrites each alias to its JSON Schema type, notes it, and leaves the input untouched", () => {
    const input = structuredClone(bfcl);
    const [tool] = normalizeTools(input);
    const props = tool!.parameters.properties as Record<string, Record<string, unknown>>;
    expect(props.rate).toEqual({ type: "number" });
    expect(props.settings).toEqual({ type: "object", properties: { debug: { type: "boolean" } } });
    expect(props.point).toEqual({ type: "array", items: { type: "number" } });
    expect(props.anything).toEqual({});
    expect(props.count).toEqual({ type: ["integer", "null"] });
    expect(props.tag).toEqual({ type: "string", enum: ["float"] }); // enum values are data, never rewritten
    expect(tool!.notes).toContain('tool "calc": type "float" at /properties/rate/type read as "number"');
    expect(tool!.notes).toContain('tool "calc": type "any" at /properties/anything/type read as any type');
    expect(input).toEqual(bfcl);
  });

  it("validates calls against the rewritten schema in both formats and reports the aliases as notes", () => {
    const tools = compileValidators(bfcl);
    const ok = parse(jsonCall("calc", { rate: 0.5, point: [1, 2], anything: "x" }), { tools, format: "hermes" });
    expect(ok.calls.map((c) => c.parsedArguments)).toEqual([{ rate: 0.5, point: [1, 2], anything: "x" }]);
    expect(ok.diagnostics.notes.some((n) => n.includes('"float"'))).toBe(true);
    const coder = parse(xmlCall("calc", { rate: "0.5", point: "(1.5, 2)", settings: '{"debug": true}' }), { tools, format: "qwen3coder" });
    expect(coder.calls.map((c) => c.parsedArguments)).toEqual([{ rate: 0.5, point: [1.5, 2], settings: { debug: true } }]);
    expect(parse(jsonCall("calc", { rate: "high" }), { tools, format: "hermes" }).errors.map((e) => e.reason)).toEqual(["schema"]);
  });

  it("compiles a grammar from the rewritten schema", () => {
    const grammar = compileToolGrammar(normalizeTools(bfcl));
    expect(grammar.ok).toBe(true);
  });

  it("refuses any other unknown type with invalid_schema, naming the tool and the pointer", () => {
    let error: unknown;
    try {
      normalizeTools([{ name: "odd", parameters: { type: "object", properties: { a: { type: "object", properties: { b: { type: "decimal" } } } } } }]);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(QtcException);
    expect((error as QtcException).code).toBe("invalid_schema");
    expect((error as QtcException).path).toBe("/properties/a/properties/b/type");
    expect((error as QtcException).message).toContain('tool "odd"');
  });
});
