import { describe, expect, it } from "vitest";
import { checkSchemaDepth, declaredDraft, VALIDATOR_LIMITS } from "../../src/tools/index.js";

/** A document nested exactly `depth` objects deep: {"a": {"a": … {} …}}. */
function nested(depth: number): unknown {
  let value: Record<string, unknown> = {};
  for (let i = 1; i < depth; i++) value = { a: value };
  return value;
}

describe("checkSchemaDepth", () => {
  it("accepts a document at the limit and refuses one level more, with the pointer of the first value past it", () => {
    expect(checkSchemaDepth(nested(VALIDATOR_LIMITS.maxDepth))).toBeUndefined();
    const error = checkSchemaDepth(nested(VALIDATOR_LIMITS.maxDepth + 1));
    expect(error?.code).toBe("schema_too_large");
    expect(error?.path).toBe(`/${Array(VALIDATOR_LIMITS.maxDepth).fill("a").join("/")}`);
  });

  it("counts arrays, escapes keys in the pointer, and walks 100,000 levels without a stack", () => {
    expect(checkSchemaDepth({ "x/y": [[{}]] }, { maxDepth: 3 })?.path).toBe("/x~1y/0/0");
    const deep = JSON.parse(`${"[".repeat(100_000)}${"]".repeat(100_000)}`);
    expect(checkSchemaDepth(deep)?.code).toBe("schema_too_large");
  });
});

describe("declaredDraft", () => {
  it("knows draft-07, 2019-09 and 2020-12 spelt with http or https, with or without #", () => {
    expect(declaredDraft({})).toEqual({ ok: true, value: undefined });
    expect(declaredDraft({ $schema: "http://json-schema.org/draft-07/schema#" })).toEqual({ ok: true, value: "draft-07" });
    expect(declaredDraft({ $schema: "https://json-schema.org/draft-07/schema" })).toEqual({ ok: true, value: "draft-07" });
    expect(declaredDraft({ $schema: "https://json-schema.org/draft/2019-09/schema" })).toEqual({ ok: true, value: "2019-09" });
    expect(declaredDraft({ $schema: "https://json-schema.org/draft/2020-12/schema#" })).toEqual({ ok: true, value: "2020-12" });
  });

  it("refuses draft-04, draft-06, other URLs and non-strings with invalid_schema at /$schema", () => {
    for (const $schema of ["http://json-schema.org/draft-04/schema#", "http://json-schema.org/draft-06/schema#", "https://example.com/meta", 7]) {
      const r = declaredDraft({ $schema });
      expect(r.ok).toBe(false);
      if (!r.ok) expect([r.error.code, r.error.path]).toEqual(["invalid_schema", "/$schema"]);
    }
  });
});
