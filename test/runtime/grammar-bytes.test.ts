// Owns: tests for src/runtime/grammar-bytes.ts: the bytes a GBNF text's terminals can match, read conservatively
// (anything it does not narrow means every byte, so the prober never skips a byte llama.cpp could accept).

import { describe, expect, it } from "vitest";
import { grammarBytes } from "../../src/runtime/grammar-bytes.js";

const bytesOf = (gbnf: string): string => {
  const mask = grammarBytes(gbnf);
  return [...mask].flatMap((on, b) => (on ? [b] : [])).map((b) => (b < 0x80 ? String.fromCharCode(b) : `<${b.toString(16)}>`)).join("");
};
const every = (gbnf: string) => expect([...grammarBytes(gbnf)].every((b) => b === 1)).toBe(true);

describe("grammarBytes", () => {
  it("reads literals and classes, escapes included, and ignores rule names, operators and comments", () => {
    expect(bytesOf('root ::= "ab" | "\\"c\\"" x # zzz "q"\nx ::= [0-2] "\\n" "\\x41"')).toBe('\n"012Aabc');
    expect(bytesOf("root ::= <[151657]> \"{\" [a-c]{1,3} <[151658]>")).toBe("abc{");
  });

  it("a non-ASCII character or range marks every high byte (a partial UTF-8 sequence may be pending)", () => {
    const mask = grammarBytes('root ::= "é"');
    expect([...mask.slice(0x80)].every((b) => b === 1)).toBe(true);
    expect(mask["a".charCodeAt(0)]).toBe(0);
    expect(grammarBytes("root ::= [a-\\u00ff]")[0xc3]).toBe(1);
  });

  it("anything it does not narrow means every byte: negated classes, any-char, token negation, unknown escapes, other token forms", () => {
    every('root ::= [^"\\\\]*');
    every("root ::= .");
    every("root ::= !<[151657]>");
    every('root ::= "\\q"');
    every("root ::= <|im_end|>");
    every('root ::= "unterminated');
  });
});
