import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { QtcException } from "../../src/errors.js";
import {
  pythonJsonDumps,
  pythonLstrip,
  pythonRstrip,
  pythonStr,
  pythonStringRepr,
  pythonStrip,
} from "../../src/prompt/python-json.js";

interface PythonValue {
  value: unknown;
  json: string;
  str: string;
  repr: string;
}

// Written by test/fixtures/prompt/make-fixtures.py with Python's own json.dumps, str() and repr().
const values = JSON.parse(
  readFileSync(new URL("../fixtures/prompt/python-values.json", import.meta.url), "utf8"),
) as PythonValue[];

describe("Python spellings, against values Python printed", () => {
  it("covers at least 30 values", () => expect(values.length).toBeGreaterThanOrEqual(30));

  for (const v of values) {
    it(`json.dumps / str / repr of ${v.json.slice(0, 40)}`, () => {
      expect(pythonJsonDumps(v.value)).toBe(v.json);
      expect(pythonStr(v.value)).toBe(v.str);
      if (typeof v.value === "string") expect(pythonStringRepr(v.value)).toBe(v.repr);
    });
  }
});

describe("pythonJsonDumps", () => {
  it("drops undefined members like JSON does and writes non-finite numbers as Python does", () => {
    expect(pythonJsonDumps({ a: undefined, b: [undefined, 1] })).toBe('{"b": [null, 1]}');
    expect(pythonJsonDumps([NaN, Infinity, -Infinity])).toBe("[NaN, Infinity, -Infinity]");
    expect(pythonStr([NaN, Infinity])).toBe("[nan, inf]");
  });

  it("writes integer-valued numbers as integers (the documented int/float difference)", () => {
    expect(pythonJsonDumps(1.0)).toBe("1");
    expect(pythonJsonDumps(1e21)).toBe("1000000000000000000000");
    expect(pythonJsonDumps(-0)).toBe("0");
  });

  it("refuses a circular value with invalid_messages", () => {
    const loop: Record<string, unknown> = {};
    loop.self = loop;
    expect(() => pythonJsonDumps(loop)).toThrow(QtcException);
    try {
      pythonJsonDumps(loop);
    } catch (e) {
      expect((e as QtcException).code).toBe("invalid_messages");
    }
  });
});

describe("pythonStrip", () => {
  it("strips Python's whitespace set, which differs from JavaScript's trim", () => {
    expect(pythonStrip("\u001c\u0085 x \u3000")).toBe("x");
    expect(pythonStrip("\ufeffx\ufeff")).toBe("\ufeffx\ufeff");
    expect("\ufeffx\ufeff".trim()).toBe("x");
  });

  it("strips only the given characters when told", () => {
    expect(pythonStrip("\n\n a \n", "\n")).toBe(" a ");
    expect(pythonLstrip("\n\nab\n", "\n")).toBe("ab\n");
    expect(pythonRstrip("\nab\n\n", "\n")).toBe("\nab");
  });
});
