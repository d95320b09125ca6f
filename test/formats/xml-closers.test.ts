import { describe, expect, it } from "vitest";
import { QWEN3CODER_SETTINGS } from "../../src/formats/index.js";
import { closerAt, closerRunFrom, leavesTagOpen } from "../../src/formats/xml-closers.js";

const S = QWEN3CODER_SETTINGS.spelling;

describe("xml closers", () => {
  it("reads exact and drifted closers", () => {
    expect(closerAt(S, "</parameter>", 0)).toEqual({ kind: "parameter", end: 12, drifted: false });
    expect(closerAt(S, "</function>", 0)).toEqual({ kind: "function", end: 11, drifted: false });
    for (const t of ["</parameter1>", "</parameter/>", "</parameter_function>", "</parameterfunction>"]) {
      expect(closerAt(S, t, 0)).toEqual({ kind: "parameter", end: t.length, drifted: true });
    }
    expect(closerAt(S, "</function_invocation>", 0)).toEqual({ kind: "function", end: 22, drifted: true });
    expect(closerAt(S, "</parameter\n</function>", 0)).toEqual({ kind: "parameter", end: 11, drifted: true });
    expect(closerAt(S, "</parameter", 0)).toEqual({ kind: "parameter", end: 11, drifted: true });
  });

  it("refuses what is no closer", () => {
    for (const t of ["</path>", "</parameter x\n>", "</parameter<b>", `</parameter${"x".repeat(40)}>`, "<parameter=a>"]) {
      expect(closerAt(S, t, 0), t).toBeUndefined();
    }
  });

  it("a run is only closers and whitespace up to the end", () => {
    expect(closerRunFrom(S, "\n</parameter>\n</function>\n</function>\n", 0)?.closers.map((c) => c.kind)).toEqual(["parameter", "function", "function"]);
    expect(closerRunFrom(S, "  \n", 0)?.closers).toEqual([]);
    expect(closerRunFrom(S, "</parameter>\nEOF\n</parameter>", 0)).toBeUndefined();
    expect(closerRunFrom(S, "</parameter>\n<parameter=b>\n1\n</parameter>", 0)).toBeUndefined();
  });

  it("tells whether a value leaves a tag of its own open", () => {
    const v = "<function=inner>\n<parameter=a>\n1\n";
    expect(leavesTagOpen(S, v, 0, v.length)).toBe(true);
    const closed = "<function=inner>\n<parameter=a>\n1\n</parameter>\n</function>\n";
    expect(leavesTagOpen(S, closed, 0, closed.length)).toBe(false);
    expect(leavesTagOpen(S, "plain text </function>", 0, 22)).toBe(false);
  });
});
