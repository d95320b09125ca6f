import { describe, expect, it } from "vitest";
import { toReport, toShape } from "../../src/adapters/index.js";
import { parse } from "../../src/parse/index.js";
import { counterIds, jsonCall, TOOLS } from "../parse/helpers.js";

describe("qtc parse report", () => {
  it("has exactly the contract's fields", () => {
    const text = `ok\n${jsonCall("read_file", { path: "a" })}\n${jsonCall("nope", {})}`;
    const r = parse(text, { tools: TOOLS, newId: counterIds() });
    const report = toReport(r);
    expect(Object.keys(report)).toEqual(["content", "reasoning", "calls", "errors", "diagnostics"]);
    expect(report.calls).toEqual([{ id: "id1", name: "read_file", arguments: { path: "a" } }]);
    expect(report.errors.map((e) => Object.keys(e))).toEqual([["reason", "message", "start", "end"]]);
    expect(report.errors[0]!.reason).toBe("unknown_tool");
    expect(toShape(r, "ir")).toEqual(report);
    expect(toShape(r, "openai")).toMatchObject({ role: "assistant", content: "ok", tool_calls: [{ id: "call_id1" }] });
    expect(toShape(r, "anthropic")).toMatchObject({ role: "assistant", stop_reason: "tool_use", content: [{ type: "text" }, { type: "tool_use", id: "toolu_id1" }] });
  });
});
