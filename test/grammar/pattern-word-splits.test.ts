// A pattern of words under maxLength (`^(?:\S+\s+){0,29}\S+$`, 300 characters: MaskBench's o21072 family): the
// grammar cannot count words and characters at once, so it caps both. One split of the length gave few long words
// and refused a plain nine-word sentence; each word pattern now gets a branch per split (src/grammar/regex-gbnf.ts,
// WORD_SPLITS), and still admits nothing the schema refuses.

import { describe, expect, it } from "vitest";
import { compileSchema } from "../../src/grammar/index.js";
import { judgeTextWithGbnf } from "../../src/engine/text-judge.js";
import { compileValueValidator } from "../../src/tools/validators.js";

const schema = { type: "string", pattern: "^(?:\\S+\\s+){0,29}\\S+$", maxLength: 300 };
const words = (n: number, letters: number) => Array.from({ length: n }, () => "w".repeat(letters)).join(" ");

describe("a pattern of words under maxLength", () => {
  const compiled = compileSchema(schema, { maxTokens: 8192, unsupported: "strict" });
  if (!compiled.ok) throw new Error(compiled.error.message);
  const admits = (text: string) => judgeTextWithGbnf(compiled.value.gbnf, JSON.stringify(text)) === "accepted";
  const valid = compileValueValidator(schema);

  it("admits a sentence of many short words, one long word, and a few long words", () => {
    for (const text of ["The website is fully functional and meets all requirements", words(16, 5), words(12, 12), "Cost-effectiveness-and-reliability", words(6, 30)]) {
      expect(valid(text), text).toBeNull();
      expect(admits(text), text).toBe(true);
    }
  });

  it("admits nothing the schema refuses: too many words, a leading or trailing space, over 300 characters", () => {
    for (const text of [words(31, 1), ` ${words(3, 3)}`, `${words(3, 3)} `, "w".repeat(301), ""]) {
      expect(valid(text), text).not.toBeNull();
      expect(admits(text), text).toBe(false);
    }
  });
});
