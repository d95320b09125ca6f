// The answer budget's lower bound (src/grammar/least-answer-tokens.ts) is sound and useful: the vocabulary fact it
// rests on (no token joins an ASCII digit to anything) holds over the whole Qwen3 vocabulary, it is at most the
// real token count of answers the constraints admit, and it is large enough to refuse the reproductions.

import type { LlamaModel } from "node-llama-cpp";
import { beforeAll, describe, expect, it } from "vitest";
import { checkTextConstraint } from "../../src/grammar/answer-constraint.js";
import { leastAnswerTokens } from "../../src/grammar/least-answer-tokens.js";
import { parseUserGrammar } from "../../src/engine/user-gbnf.js";
import { byteSymbols } from "../../src/model/byte-level.js";
import { readQwen3Vocab, TOKEN_TYPE } from "../../src/model/qwen3-vocab.js";
import { tinyModel } from "./helpers.js";

/** GPT-2's byte-level alphabet read backwards: the byte each vocabulary character spells. */
function byteDecoder(): Map<string, number> {
  return new Map(byteSymbols().map((symbol, byte) => [symbol, byte]));
}

function least(c: { regex: string } | { choice: string[] } | { grammar: string }): number | undefined {
  const checked = checkTextConstraint(c, parseUserGrammar);
  if (!checked.ok) throw new Error(checked.error.message);
  return leastAnswerTokens({ constraint: checked.value });
}

let model: LlamaModel;
beforeAll(async () => {
  ({ model } = await tinyModel());
});

describe("least answer tokens", () => {
  it("no token of the vocabulary spells an ASCII digit with anything else", async () => {
    const vocab = await readQwen3Vocab();
    const decode = byteDecoder();
    const joined: string[] = [];
    let digits = 0;
    for (const [id, spelled] of vocab.tokens.entries()) {
      if (vocab.tokenTypes[id] !== TOKEN_TYPE.NORMAL) continue;
      const bytes = [...spelled].map((c) => decode.get(c));
      const hasDigit = bytes.some((b) => b !== undefined && b >= 0x30 && b <= 0x39);
      if (hasDigit && bytes.length > 1) joined.push(spelled);
      if (hasDigit && bytes.length === 1) digits++;
    }
    expect(digits).toBe(10);
    expect(joined.slice(0, 20)).toEqual([]);
  });

  it("bounds regexes, choices, grammars and JSON objects", () => {
    expect(least({ regex: "[A-Z]{3}-[0-9]{4}" })).toBe(5);
    expect(least({ regex: "a*" })).toBe(0);
    expect(least({ regex: "[0-9]{1000}" })).toBe(1000);
    expect(least({ regex: "x|[0-9]{3}" })).toBe(1);
    expect(least({ choice: ["2024-01-01", "yes"] })).toBe(1);
    expect(least({ choice: ["2024-01-01"] })).toBe(10);
    expect(least({ grammar: 'root ::= "id-" [0-9] [0-9] [0-9]' })).toBe(4);
    // Recursion through rules: the least answer is one digit.
    expect(least({ grammar: 'root ::= [0-9] | "(" root ")"' })).toBe(1);
    const schema = { type: "object", properties: { verdict: { type: "string" }, score: { type: "integer" } }, required: ["verdict", "score"] };
    expect(leastAnswerTokens({ schema })).toBeGreaterThanOrEqual(4);
    expect(leastAnswerTokens({ schema: { type: "string" } })).toBe(1);
  });

  it("is at most the real token count of answers each constraint admits", () => {
    const cases: Array<[Parameters<typeof least>[0], string[]]> = [
      [{ regex: "[A-Z]{3}-[0-9]{4}" }, ["ABC-1234", "ZZZ-0000", "QWE-9876"]],
      [{ regex: "[a-z ]{3,40}" }, ["abc", "the quick brown fox", "a b c d e f g"]],
      [{ regex: "(yes|no), [0-9]+ times" }, ["yes, 1 times", "no, 20 times"]],
      [{ choice: ["hello world", "2024-01-01", "  spaced  "] }, ["hello world", "2024-01-01", "  spaced  "]],
      [{ grammar: 'root ::= word ("-" word)*\nword ::= [a-z]+ | [0-9]' }, ["abc", "a-1-b", "9"]],
    ];
    for (const [constraint, answers] of cases) {
      const bound = least(constraint)!;
      for (const answer of answers) expect(bound, `${JSON.stringify(constraint)} ${JSON.stringify(answer)}`).toBeLessThanOrEqual(model.tokenize(answer, false).length);
    }
    const schema = { type: "object", properties: { verdict: { type: "string" }, score: { type: "integer" } }, required: ["verdict", "score"] };
    for (const answer of ['{"verdict": "", "score": 0}', '{"score": 1, "verdict": "ok"}']) {
      expect(leastAnswerTokens({ schema })!).toBeLessThanOrEqual(model.tokenize(answer, false).length);
    }
  });
});
