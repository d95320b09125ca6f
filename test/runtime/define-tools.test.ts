import { describe, expect, it } from "vitest";
import { QtcException } from "../../src/errors.js";
import type { ToolCall } from "../../src/parse/types.js";
import { defineTools } from "../../src/runtime/define-tools.js";

const tools = [
  {
    type: "function" as const,
    function: {
      name: "add",
      parameters: { type: "object", properties: { a: { type: "integer" }, b: { type: "integer" } }, required: ["a", "b"] },
    },
  },
  { name: "fail_always", parameters: { type: "object", properties: {} } },
];

interface Args extends Record<string, unknown> {
  add: { a: number; b: number };
  fail_always: Record<string, never>;
}

function call(name: string, parsedArguments: Record<string, unknown>): ToolCall {
  return { id: "c1", name, arguments: JSON.stringify(parsedArguments), parsedArguments, format: "hermes", raw: "", start: 0, end: 0 };
}

describe("defineTools", () => {
  const defined = defineTools<Args>(tools, {
    add: ({ a, b }) => ({ sum: a + b }),
    fail_always: () => {
      throw new Error("disk on fire");
    },
  });

  it("runs a valid call through its typed handler and returns JSON text", async () => {
    expect(await defined.run(call("add", { a: 2, b: 3 }))).toEqual({ ok: true, name: "add", callId: "c1", content: '{"sum":5}' });
  });

  it("re-validates arguments before running anything", async () => {
    const r = await defined.run(call("add", { a: "2", b: 3 }));
    expect(r.ok).toBe(false);
    expect(r).toMatchObject({ reason: "schema" });
  });

  it("refuses undeclared tools and names the declared ones", async () => {
    const r = await defined.run(call("rm_rf", {}));
    expect(r).toMatchObject({ ok: false, reason: "unknown_tool" });
    expect(r.content).toContain("add, fail_always");
  });

  it("turns a throwing handler into a result the model can read", async () => {
    expect(await defined.run(call("fail_always", {}))).toMatchObject({ ok: false, reason: "handler_failed", content: expect.stringContaining("disk on fire") });
  });

  it("requires exactly one handler per tool", () => {
    expect(() => defineTools(tools, { add: () => 1 } as never)).toThrow(QtcException);
    expect(() => defineTools(tools, { add: () => 1, fail_always: () => 1, extra: () => 1 } as never)).toThrow(/undeclared/);
  });
});
