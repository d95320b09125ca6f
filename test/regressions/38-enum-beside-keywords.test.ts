// Issue 38: an enum beside other keywords was spelled as all its values, the other keywords ignored
// (`{"enum": ["a", "b"], "pattern": "^a"}` admitted "b", which the validator refuses: a constrained call that
// fails validation). Now only the values the whole schema admits are spelled.

import { describe, expect, it } from "vitest";
import type { JsonSchema } from "../../src/tools/types.js";
import { schemaChecker } from "../grammar/helpers.js";

const accepts = async (schema: JsonSchema, text: string) => (await schemaChecker(schema))(text);

describe("38: an enum beside other keywords", () => {
  it("spells only the values the other keywords admit", async () => {
    expect(await accepts({ enum: ["a", "b"], pattern: "^a" }, '"a"')).toBe(true);
    expect(await accepts({ enum: ["a", "b"], pattern: "^a" }, '"b"')).toBe(false);
    expect(await accepts({ type: "string", enum: ["a", "bb"], maxLength: 1 }, '"bb"')).toBe(false);
    expect(await accepts({ enum: [1, 5], maximum: 3 }, "5")).toBe(false);
    expect(await accepts({ enum: [1, 5], maximum: 3 }, "1")).toBe(true);
  });

  it("resolves a $ref beside the values in the document's definitions", async () => {
    const schema = { enum: ["x", "yy"], allOf: [{ $ref: "#/definitions/short" }], definitions: { short: { maxLength: 1 } } } as JsonSchema;
    expect(await accepts(schema, '"x"')).toBe(true);
    expect(await accepts(schema, '"yy"')).toBe(false);
  });
});
