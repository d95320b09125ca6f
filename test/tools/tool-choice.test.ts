// normalizeToolChoice: the one check of a tool choice against the declared tools.

import { describe, expect, it } from "vitest";
import { compileValidators, normalizeToolChoice } from "../../src/tools/index.js";

describe("normalizeToolChoice", () => {
  const names = ["read_file", "grep"];

  it("keeps auto and none whatever the tools, required with tools, a declared name as a fresh {name}", () => {
    expect(normalizeToolChoice([], "auto")).toEqual({ ok: true, value: "auto" });
    expect(normalizeToolChoice(undefined, "none")).toEqual({ ok: true, value: "none" });
    expect(normalizeToolChoice(names, "required")).toEqual({ ok: true, value: "required" });
    expect(normalizeToolChoice(names, { name: "grep", extra: 1 })).toEqual({ ok: true, value: { name: "grep" } });
  });

  it("reads names from a list of names, tool objects or a compiled set", () => {
    const compiled = compileValidators([{ name: "grep", parameters: { type: "object" } }]);
    for (const tools of [["grep"], [{ name: "grep" }], compiled]) expect(normalizeToolChoice(tools, { name: "grep" }).ok).toBe(true);
  });

  it("refuses with invalid_tool_choice and says why (shape, no tools, unknown name)", () => {
    const problem = (tools: string[], choice: unknown) => {
      const r = normalizeToolChoice(tools, choice);
      return r.ok ? undefined : [r.error.code, r.error.problem, r.error.name];
    };
    expect(problem(names, "always")).toEqual(["invalid_tool_choice", "shape", undefined]);
    expect(problem(names, { type: "function" })).toEqual(["invalid_tool_choice", "shape", undefined]);
    expect(problem([], "required")).toEqual(["invalid_tool_choice", "no_tools", undefined]);
    expect(problem(names, { name: "rm_rf" })).toEqual(["invalid_tool_choice", "unknown_name", "rm_rf"]);
  });
});
