// Issue 30, item 11 (the rest): work within the limits. (a) A `prefixItems` of 4,900 entries was within every
// stated limit and ajv compiled it for 1.5 s (55% of it ajv's optimize pass), twice. The validator now counts a
// schema's objects in the walk that checks its depth, before ajv sees it (VALIDATOR_LIMITS.maxObjects, set so the
// largest schemas the grammar's limits allow still pass), and compiles without the optimize pass. (b) A 1,000-
// string enum of 250 B in a response schema spent 11.5 s in jump-forward's probes: every forced byte was proven
// unique with 257 probes of llama.cpp's grammar. qtc's engine, the runtime's only one since issue 48, reads the
// forced text from its own parse state (no probes); the forced text through the enum is checked here. Work is
// counted here (ajv compiles, optimize passes), never timed.

import AjvCore from "ajv/dist/core.js";
import { CodeGen } from "ajv/dist/compile/codegen/index.js";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { QtcException } from "../../src/errors.js";
import { compileSchema } from "../../src/grammar/index.js";
import { createQtcMatcher } from "../../src/engine/qtc-matcher.js";
import { checkSchemaDocument, compileValidators, compileValueValidator, VALIDATOR_LIMITS } from "../../src/tools/index.js";
import { largestSchemas } from "../grammar/largest-schemas.js";
import { useTinyVocab } from "../helpers/tiny-vocab.js";

const prefixItems = (n: number) => ({ type: "array", prefixItems: Array.from({ length: n }, () => ({ type: "string" })) });

function thrown(f: () => unknown): QtcException {
  try {
    f();
  } catch (e) {
    if (e instanceof QtcException) return e;
    throw e;
  }
  throw new Error("expected a QtcException");
}

describe("issue 30: the validator's work is bounded before ajv compiles", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("a prefixItems of 4,900 is refused before any compile, naming the first object past the limit and what to do", () => {
    const compile = vi.spyOn(AjvCore.prototype, "compile");
    const value = thrown(() => compileValueValidator(prefixItems(4900)));
    expect(value.code).toBe("schema_too_large");
    // The root is the first object; /prefixItems/2499 is object 2,501.
    expect(value.path).toBe("/prefixItems/2499");
    expect(value.message).toMatch(/more than 2500 objects/);
    expect(value.message).toMatch(/`items` instead of a long `prefixItems`/);
    const tool = thrown(() => compileValidators([{ name: "t", parameters: { type: "object", properties: { list: prefixItems(4900) } } }]));
    expect(tool.code).toBe("schema_too_large");
    expect(tool.path).toBe("/properties/list/prefixItems/2497");
    expect(tool.message).toMatch(/^tool "t": its parameters schema is too large/);
    expect(compile).not.toHaveBeenCalled();
  });

  it("the largest schemas the stated limits allow pass the validator's limits, compile without ajv's optimize pass and validate", () => {
    // The 2020-12 meta-schema checker is made (and compiled, once per process) on first use: before counting.
    compileValueValidator({ type: "string" });
    const passes: unknown[] = [];
    const optimize = CodeGen.prototype.optimize;
    vi.spyOn(CodeGen.prototype, "optimize").mockImplementation(function (this: CodeGen, n?: number) {
      passes.push(n);
      return optimize.call(this, n);
    });
    const schemas: Record<string, object> = { ...(largestSchemas() as Record<string, object>), "the longest prefixItems": prefixItems(VALIDATOR_LIMITS.maxObjects - 1) };
    for (const [name, schema] of Object.entries(schemas)) {
      expect(checkSchemaDocument(schema), name).toBeUndefined();
      const validate = compileValueValidator(schema);
      expect(validate(schema === schemas["the longest prefixItems"] ? Array.from({ length: 2499 }, () => "a") : 5), name).toSatisfy((r) => r === null || Array.isArray(r));
    }
    expect(compileValueValidator(schemas["the longest prefixItems"]!)(Array.from({ length: 2499 }, () => "a"))).toBeNull();
    expect(passes.length).toBeGreaterThan(0);
    expect(passes.every((n) => n === 0)).toBe(true);
    expect(thrown(() => compileValueValidator(prefixItems(VALIDATOR_LIMITS.maxObjects))).code).toBe("schema_too_large");
  });
});

describe("issue 30: jump-forward through a 1,000-string enum", () => {
  const tiny = useTinyVocab();

  /** 1,000 distinct strings of 250 lowercase letters (a fixed pseudo-random sequence). */
  const values = Array.from({ length: 1000 }, (_, i) => {
    let s = "";
    let x = (i * 2654435761) >>> 0;
    while (s.length < 250) {
      x = (x * 1103515245 + 12345) >>> 0;
      s += String.fromCharCode(97 + ((x >>> 16) % 26));
    }
    return s;
  });

  it("forces the rest of the value and its closing quote once its prefix is unique, and can only end there", () => {
    const compiled = compileSchema({ enum: values }, { maxTokens: 300 });
    if (!compiled.ok) throw new Error(compiled.error.message);
    const { model, engine } = tiny();
    const target = values[500]!;
    const m = createQtcMatcher({ gbnf: compiled.value.gbnf, specialTokens: [], closeToken: -1, valueClosers: [] }, engine);
    // The model has written the quote and the value's first six letters (unique among the 1,000 by then).
    const typed = model.tokenize(`"${target.slice(0, 6)}`, false) as number[];
    expect(m.acceptAll(typed)).toEqual(typed);
    const run = m.forcedContinuation(1000);
    expect(run.ends).toBe(true);
    expect(run.tokens).toEqual(engine.tokenize(`${target.slice(6)}"`));
  });
});
