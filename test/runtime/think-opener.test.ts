import { describe, expect, it } from "vitest";
import { hermes, qwen35 } from "../../src/formats/index.js";
import { ThinkOpener } from "../../src/runtime/think-opener.js";

const tokenize = (text: string) => (text === "\n\n" ? [271] : []);

describe("ThinkOpener", () => {
  it("watches the format's own opener in constrained mode; forces </think> and the blank line before it", () => {
    for (const format of [hermes, qwen35]) {
      const o = new ThinkOpener({ format, mode: "constrained", toolChoice: "auto" }, tokenize);
      expect(o.endsThinking(format.open.token)).toBe(true);
      expect(o.endsThinking(format.close.token)).toBe(false);
      expect(o.before).toEqual([format.think.close.token, 271]);
      expect(o.cost).toBe(3);
    }
  });

  it("is off unconstrained and under tool choice none", () => {
    expect(new ThinkOpener({ format: hermes, mode: "unconstrained", toolChoice: "auto" }, tokenize).endsThinking(hermes.open.token)).toBe(false);
    expect(new ThinkOpener({ format: hermes, mode: "constrained", toolChoice: "none" }, tokenize).endsThinking(hermes.open.token)).toBe(false);
  });
});
