// Issue 38 (MaskBench's Github_hard---o13029): a grammar the compiler wrote but qtc's engine will not hold (a
// repetition past the engine's limit) ended the turn with the engine's own exception, not an error a caller can
// act on. It is now `schema_too_large`, as for any tool list too costly to constrain.
import { describe, expect, it } from "vitest";
import { createMatcher } from "../../src/runtime/engine-choice.js";
import { QtcException } from "../../src/errors.js";
import { PROGRAM_LIMITS } from "../../src/engine/gbnf-program.js";
import { useTinyVocab } from "../helpers/tiny-vocab.js";

const vocab = useTinyVocab();

describe("a grammar over the engine's limits", () => {
  it("is refused as schema_too_large with a message that says what to do", async () => {
    const gbnf = `root ::= "{" [a-z]{0,${PROGRAM_LIMITS.maxRepeat + 1}} "}"`;
    const made = createMatcher({ gbnf, specialTokens: [], closeToken: -1, valueClosers: [] }, { engine: vocab().engine } as never);
    await expect(made).rejects.toBeInstanceOf(QtcException);
    await expect(made).rejects.toMatchObject({ code: "schema_too_large", message: expect.stringMatching(/too large for qtc's constraint engine.*fewer tools/) });
  });

  it("a grammar inside the limits still makes a matcher", async () => {
    const m = await createMatcher({ gbnf: `root ::= "{" [a-z]{0,8} "}"`, specialTokens: [], closeToken: -1, valueClosers: [] }, { engine: vocab().engine } as never);
    expect(m.canBeNext(vocab().model.tokenize("{")[0]!)).toBe(true);
  });
});
