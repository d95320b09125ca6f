// Issue 50: the closing from inside a character went on with the first token that finished it, even one that began
// another character, which could lead back to the same search without end: "Maximum call stack size exceeded" on
// 4 MaskBench schemas when the token-cost bench walked them (uniform picks among the exact mask, the closing asked
// at every step). The schema below is MaskBench's Glaiveai2K---calculate_area_8db8eedc (guidance-ai/jsonschemabench,
// maskbench/data), whose open `dimensions` object lets keys and values hold any character.

import { expect, test } from "vitest";
import { allows, type NextTokens } from "../../src/engine/matcher.js";
import { QtcMatcher } from "../../src/engine/qtc-matcher.js";
import { compileSchema } from "../../src/grammar/index.js";
import { useTinyVocab } from "../helpers/tiny-vocab.js";

const SCHEMA = {
  type: "object",
  properties: {
    dimensions: { type: "object", properties: { base: { type: "number" }, height: { type: "number" }, length: { type: "number" }, radius: { type: "number" }, width: { type: "number" } } },
    shape: { type: "string", enum: ["circle", "rectangle", "triangle"] },
  },
  required: ["shape", "dimensions"],
};

const vocab = useTinyVocab();

/** A uniform pick among what the mask allows (what random weights do). */
function pick(next: NextTokens, vocabSize: number, random: () => number): number {
  if (next.kind === "set") return next.tokens[Math.floor(random() * next.tokens.length)]!;
  for (;;) {
    const t = Math.floor(random() * vocabSize);
    if (allows(next, t)) return t;
  }
}

/** Mid-character, the mask is exactly the tokens that go on with it: each begins with a continuation byte. */
function insideCharacter(next: NextTokens): boolean {
  const { engine } = vocab();
  return next.kind === "set" && next.tokens.length > 0 && next.tokens.every((t) => engine.isCut(t) && (engine.bytes(t)![0]! & 0xc0) === 0x80);
}

test("seeded walks of an open object: the closing asked at every position, inside a character too, answers (and a closing found ends the value)", () => {
  const grammar = compileSchema(SCHEMA, { maxTokens: 8192 });
  if (!grammar.ok) throw new Error(grammar.error.message);
  const { engine } = vocab();
  const { vocabSize } = engine.tables;
  let askedInside = 0;
  for (let walk = 0; walk < 4; walk++) {
    let s = 100 + walk;
    const random = () => ((s = (s * 1103515245 + 12345) >>> 0) / 2 ** 32);
    const m = QtcMatcher.create({ gbnf: grammar.value.gbnf, specialTokens: [], closeToken: -1, valueClosers: [] }, engine);
    for (let step = 0; step < 128; step++) {
      m.acceptAll(m.forcedContinuation(128).tokens);
      // Asked at every step (the budget guard does): it answers, a closing or none, without running away.
      const closing = m.closing();
      if (closing) {
        const end = m.fork();
        expect(end.acceptAll(closing), `walk ${walk}, step ${step}`).toEqual(closing);
        expect(end.canBeNext(engine.eogTokens[0]!)).toBe(true);
      }
      const next = m.nextTokens();
      if (insideCharacter(next)) askedInside++;
      const token = pick(next, vocabSize, random);
      if (engine.isEog(token)) break;
      expect(m.takeSampled(token)).toEqual([token]);
    }
  }
  expect(askedInside, "the walks must stop inside a character to ask for the closing from there").toBeGreaterThan(0);
});
