// The checker (qtc's constraint engine, the matcher the runtime constrains with, token by token) and the token
// bytes it maps offsets with.

import type { LlamaModel, Token } from "node-llama-cpp";
import { beforeAll, describe, expect, it } from "vitest";
import { compileSchema } from "../../src/grammar/index.js";
import { TokenBytes, unsafeUtf8Tokens } from "../../src/model/token-bytes.js";
import { GrammarChecker } from "../../src/model/grammar-checker.js";
import { tinyModel } from "./helpers.js";

let model: LlamaModel;
beforeAll(async () => {
  ({ model } = await tinyModel());
});

async function checkerFor(gbnf: string) {
  return GrammarChecker.create(model, gbnf);
}

describe("GrammarChecker", () => {
  it("checks token sequences; an end-of-generation token is accepted only where the grammar may end", async () => {
    const c = await checkerFor('root ::= <[151657]> "\\nab" "c"?\n');
    const toks = model.tokenize("<tool_call>\nab", true);
    expect(c.checkTokens(toks)).toEqual({ accepted: true, complete: true });
    expect(c.checkTokens([...toks, model.tokens.eos!])).toEqual({ accepted: true, complete: true });
    expect(c.checkTokens(toks.slice(0, 1))).toEqual({ accepted: false, complete: false });
    const early = c.checkTokens([toks[0]!, model.tokens.eos!]);
    expect(early.accepted).toBe(false);
    expect(early.stoppedAt?.tokenIndex).toBe(1);
  });

  it("reports where a text stops matching in UTF-16 offsets, inside a token, after multi-byte text", async () => {
    const c = await checkerFor('root ::= "😀é " [a-z]+\n');
    expect(c.checkText("😀é abc")).toEqual({ accepted: true, complete: true });
    const r = c.checkText("😀é abXc");
    expect(r.accepted).toBe(false);
    expect(r.complete).toBe(true);
    expect(r.stoppedAt?.offset).toBe(6);
    expect(r.stoppedAt?.text).toBe("Xc");
  });

  it("a forced special token cannot be spelled with plain characters", async () => {
    const c = await checkerFor('root ::= <[151657]> "x"\n');
    expect(c.checkText("<tool_call>x")).toEqual({ accepted: true, complete: true });
    // One token per character (tokenizing the whole tag would turn it back into its special token).
    const spelled = c.checkTokens([..."<tool_call>x"].flatMap((ch) => model.tokenize(ch, false)));
    expect(spelled.accepted).toBe(false);
    expect(spelled.stoppedAt?.tokenIndex).toBe(0);
  });

  it("refuses GBNF the engine cannot read", async () => {
    await expect(checkerFor("root ::= (\n")).rejects.toThrow();
  });

  it("points inside a rejected token at the first character the grammar refuses", async () => {
    const c = await checkerFor('root ::= "ab" [0-9]+\n');
    // "abcd" is one token: it is refused as a whole, and the refusal is the "c" after the accepted "ab".
    expect(model.tokenize("abcd", false)).toHaveLength(1);
    expect(c.checkText("abcd")).toEqual({ accepted: false, complete: false, stoppedAt: { offset: 2, tokenIndex: 0, text: "cd" } });
  });

  it("hands out the engine's matcher at the grammar's start, offering the special tokens a GBNF text names", async () => {
    const c = await checkerFor('root ::= <[151657]> "x"\n');
    const m = c.matcher();
    expect(m.nextTokens()).toEqual({ kind: "set", tokens: [151657] });
    expect(m.accept(151657)).toBe(true);
    // A second matcher starts over: the first one's tokens are its own.
    expect(c.matcher().canBeNext(151657)).toBe(true);
  });

  it("refuses a grammar over the engine's limits as schema_too_large, as the runtime does", async () => {
    await expect(checkerFor('root ::= "a"{0,20000}\n')).rejects.toMatchObject({ code: "schema_too_large" });
  });

  it("checks compiled schema grammars", async () => {
    const r = compileSchema({ type: "object", properties: { n: { type: "integer", minimum: 1 } }, required: ["n"] }, { maxTokens: 64, budgetSplit: "worst-case" });
    if (!r.ok) throw new Error(r.error.message);
    const c = await GrammarChecker.create(model, r.value);
    expect(c.checkText('{"n": 3}').accepted).toBe(true);
    expect(c.checkText('{"n": 0}').accepted).toBe(false);
    expect(r.value.worstCaseTokens).toBeLessThanOrEqual(64);
  });
});

describe("token bytes", () => {
  it("give back the exact UTF-8 of a tokenized text, special tokens included", () => {
    const bytes = new TokenBytes(model);
    for (const text of ["<tool_call>\n{\"a\": 1}\n</tool_call>", "naïve café 😀 ภาษาไทย", " \t\n  x"]) {
      const toks = model.tokenize(text, true);
      expect(Buffer.concat(toks.map((t) => bytes.of(t))).toString("utf8")).toBe(text);
    }
  });

  it("name the few tokens that could start an overlong UTF-8 sequence, none that real text uses", () => {
    const unsafe = unsafeUtf8Tokens(model, 151936);
    const bytes = new TokenBytes(model);
    expect(unsafe.length).toBeGreaterThan(0);
    expect(unsafe.length).toBeLessThan(20);
    for (const t of unsafe) expect([...bytes.of(t)].some((b) => b === 0xe0 || b === 0xf0)).toBe(true);
    const lone = [0xe0, 0xf0].map((b) => model.tokenize(Buffer.from([b]).toString("latin1"), false));
    expect(lone.length).toBe(2);
    const text = "ภาษาไทย हिन्दी 𝄞 😀 ఌ";
    for (const t of model.tokenize(text, false)) expect(unsafe).not.toContain(t as Token);
  });
});
