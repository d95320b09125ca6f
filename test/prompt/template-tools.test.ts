import { describe, expect, it } from "vitest";
import { QtcException } from "../../src/errors.js";
import { toTemplateTool, toTemplateTools } from "../../src/prompt/template-tools.js";

const schema = { type: "object", properties: { q: { type: "string" } } };

describe("toTemplateTool", () => {
  it("passes an OpenAI tool through untouched", () => {
    const tool = { type: "function" as const, function: { name: "f", strict: true, parameters: schema } };
    expect(toTemplateTool(tool)).toBe(tool);
  });

  it("maps Anthropic and bare tools to the OpenAI shape with only the keys they had", () => {
    expect(toTemplateTool({ name: "f", description: "d", input_schema: schema })).toEqual({
      type: "function",
      function: { name: "f", description: "d", parameters: schema },
    });
    expect(Object.keys(toTemplateTool({ name: "f", parameters: schema }).function)).toEqual(["name", "parameters"]);
    expect(toTemplateTool({ name: "g" } as never)).toEqual({ type: "function", function: { name: "g" } });
  });

  it("refuses shapes it cannot read with invalid_tools and a pointer", () => {
    const cases: unknown[] = [null, "f", { description: "x" }, { type: "function", function: {} }, { name: "f", parameters: [] }];
    for (const tool of cases) {
      try {
        toTemplateTools([tool as never]);
        expect.unreachable();
      } catch (e) {
        expect(e).toBeInstanceOf(QtcException);
        expect((e as QtcException).code).toBe("invalid_tools");
        expect((e as QtcException).path).toBe("/tools/0");
      }
    }
    expect(toTemplateTools(undefined)).toEqual([]);
  });
});
