import { describe, expect, it } from "vitest";
import { parsePythonLiteral, typeXmlValue } from "../../src/parse/values.js";

describe("Python literals", () => {
  it("reads dict, list, tuple, str, int, float, bool and None reprs", () => {
    expect(parsePythonLiteral("{'a': 1, \"b\": [True, False, None], 'c': (1.5, -2e3), 'd': {}}")).toEqual({
      ok: true,
      value: { a: 1, b: [true, false, null], c: [1.5, -2000], d: {} },
    });
    expect(parsePythonLiteral("'it\\'s\\n\\x41\\u00e9'")).toEqual({ ok: true, value: "it's\nAé" });
    expect(parsePythonLiteral("[1, 2,]")).toEqual({ ok: true, value: [1, 2] });
  });

  it("refuses anything else", () => {
    for (const text of ["{1: 2}", "[1 2]", "Truex", "'open", "{'a': 1} extra", "nan", "set()", "[" .repeat(100) + "]".repeat(100)]) {
      expect(parsePythonLiteral(text)).toEqual({ ok: false });
    }
  });

  it("sets a '__proto__' key as data", () => {
    const r = parsePythonLiteral("{'__proto__': {'x': 1}}");
    expect(r.ok).toBe(true);
    const v = (r as { value: Record<string, unknown> }).value;
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(Object.keys(v)).toEqual(["__proto__"]);
  });
});

describe("typing an XML value", () => {
  it("keeps strings when there is no schema or the schema allows strings", () => {
    expect(typeXmlValue("42", undefined)).toBe("42");
    expect(typeXmlValue("42", new Set(["string", "integer"]))).toBe("42");
  });

  it("tries JSON first, then a Python literal, else keeps the text", () => {
    expect(typeXmlValue(" 42 ", new Set(["integer", "number"]))).toBe(42);
    expect(typeXmlValue('{"a": [1]}', new Set(["object"]))).toEqual({ a: [1] });
    expect(typeXmlValue("{'a': True}", new Set(["object"]))).toEqual({ a: true });
    expect(typeXmlValue("None", "any")).toBe(null);
    expect(typeXmlValue("hello world", "any")).toBe("hello world");
    expect(typeXmlValue("12 apples", new Set(["integer", "number"]))).toBe("12 apples");
  });
});
