// A pattern's own `<` (src/grammar/regex-gbnf.ts, guardTags; issue 49's MaskBench refusals: pubspec's `<2.0.0`,
// webextension's `<all_urls>`): kept where no character that may begin one of the format's tags can follow it,
// dropped everywhere else, so that no string the grammar spells holds a tag.

import { describe, expect, it } from "vitest";
import { compileSchema } from "../../src/grammar/index.js";
import { judgeTextWithGbnf } from "../../src/engine/text-judge.js";

type FormatId = "hermes" | "qwen35";

/** Which of `values` the compiled grammar (qtc's engine, text alone) admits as the whole value. */
function admitted(pattern: string, values: readonly string[], format: FormatId = "hermes"): string[] {
  const r = compileSchema({ type: "string", pattern }, { maxTokens: 256, unsupported: "strict", format });
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
  return values.filter((v) => judgeTextWithGbnf(r.value.gbnf, JSON.stringify(v)) === "accepted");
}

function compiles(pattern: string, format: FormatId): boolean {
  return compileSchema({ type: "string", pattern }, { maxTokens: 256, unsupported: "strict", format }).ok;
}

describe("a pattern's own `<` (issue 49)", () => {
  it("is kept where a digit, `=` or a letter no tag begins with follows it", () => {
    const versions = "^(?:(?:>=|>|<=|<)\\d+\\.\\d+\\.\\d+\\s*)+$";
    expect(admitted(versions, [">=2.12.0 <3.0.0", "<=1.0.0", "<1.0.0", "<<1.0.0", "<a1.0.0"])).toEqual([">=2.12.0 <3.0.0", "<=1.0.0", "<1.0.0"]);
    const urls = "^https://[a-z]+(/.*)?$|^<all_urls>$";
    expect(admitted(urls, ["<all_urls>", "https://x/y", "<all_url>", "x<all_urls>"])).toEqual(["<all_urls>", "https://x/y"]);
  });

  it("is kept at the end of the string, where the closing quote follows it", () => {
    expect(admitted("^(x<)*$", ["x<x<", "x<", "", "x<<"])).toEqual(["x<x<", "x<", ""]);
    expect(admitted("^(<x)+$", ["<x<x", "<x", "<"])).toEqual(["<x<x", "<x"]);
  });

  it("keeps a literal `<` by narrowing the character after it", () => {
    expect(admitted("^.+ <.+@.+>$", ["Ann <ann@x.y>", "Ann <tom@x.y>", "Ann </a@x.y>", "A<b <ann@x.y>"])).toEqual(["Ann <ann@x.y>"]);
    expect(admitted("^<[a-z]+$", ["<ab", "<tab", "<a"])).toEqual(["<ab", "<a"]);
    expect(admitted("^<<.+>>$", ["<< a.b >>", "<<a>>", "<<tab>>"])).toEqual(["<< a.b >>", "<<a>>"]);
  });

  it("is dropped where a tag's second character may follow it, within the pattern or through a repetition", () => {
    // `t` may follow the `<` (hermes bans `<too`), so only the strings without a `<` stay.
    expect(admitted("^(a<)*t$", ["t", "a<t", "a<a<t"])).toEqual(["t"]);
    expect(admitted("^x(<|t)*$", ["x", "xtt", "x<", "x<t", "x<y"])).toEqual(["x", "xtt"]);
    expect(compiles("^[a-z]<(/|b)$", "hermes")).toBe(false);
    expect(compiles("^</tool_call>$", "hermes")).toBe(false);
  });

  it("follows the format's tags: `<pa` is text in hermes and the start of `<parameter=` in Qwen3.5 XML", () => {
    expect(admitted("^<pa$", ["<pa"], "hermes")).toEqual(["<pa"]);
    expect(compiles("^<pa$", "qwen35")).toBe(false);
    expect(admitted("^<a$", ["<a"], "qwen35")).toEqual(["<a"]);
  });
});
