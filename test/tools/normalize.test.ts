import { describe, expect, it } from "vitest";
import { QtcException } from "../../src/errors.js";
import { normalizeTools } from "../../src/tools/index.js";

const schema = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };

function code(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (e) {
    return e instanceof QtcException ? e.code : "not-a-QtcException";
  }
}

describe("normalizeTools", () => {
  it("accepts OpenAI, Anthropic and bare shapes", () => {
    const tools = normalizeTools([
      { type: "function", function: { name: "read_file", description: "Read", parameters: schema } },
      { name: "grep", input_schema: schema },
      { type: "custom", name: "ls", description: "List", input_schema: schema },
      { name: "run_tests", parameters: schema },
      { name: "ping" },
    ]);
    expect(tools).toEqual([
      { name: "read_file", description: "Read", parameters: schema },
      { name: "grep", parameters: schema },
      { name: "ls", description: "List", parameters: schema },
      { name: "run_tests", parameters: schema },
      { name: "ping", parameters: { type: "object", properties: {} } },
    ]);
    expect(Object.isFrozen(tools)).toBe(true);
    expect(Object.isFrozen(tools[0])).toBe(true);
    expect(tools[0]!.parameters).toBe(schema);
  });

  it("refuses bad shapes with invalid_tools, naming the tool", () => {
    expect(code(() => normalizeTools({ tools: [] }))).toBe("invalid_tools");
    expect(code(() => normalizeTools(["read_file"]))).toBe("invalid_tools");
    expect(code(() => normalizeTools([{ type: "function" }]))).toBe("invalid_tools");
    expect(code(() => normalizeTools([{ type: "bash_20250124", name: "bash" }]))).toBe("invalid_tools");
    expect(code(() => normalizeTools([{ description: "no name" }]))).toBe("invalid_tools");
    expect(code(() => normalizeTools([{ name: "has space" }]))).toBe("invalid_tools");
    expect(code(() => normalizeTools([{ name: "a", parameters: "{}" }]))).toBe("invalid_tools");
    expect(code(() => normalizeTools([{ name: "a", parameters: { type: "string" } }]))).toBe("invalid_tools");
    expect(code(() => normalizeTools([{ name: "a", parameters: { type: "object", required: "x" } }]))).toBe("invalid_tools");
    expect(code(() => normalizeTools([{ name: "a", input_schema: schema, parameters: schema }]))).toBe("invalid_tools");
    expect(code(() => normalizeTools([{ name: "a" }, { name: "a" }]))).toBe("invalid_tools");
    expect(() => normalizeTools([{ name: "a", parameters: { type: "array" } }])).toThrow(/tool "a"/);
  });
});
