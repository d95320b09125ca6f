import { describe, expect, it } from "vitest";
import type { GrammarTool } from "../../../src/grammar/index.js";
import { KeyGuard, KeyVocab, type KeyProbe } from "../../../src/engine/semantic/key-guard.js";
import { XmlKeyGuard } from "../../../src/engine/semantic/xml-key-guard.js";

// A toy vocabulary and a toy grammar: keys are `k0`..`k2` (pattern ^k[0-2]$), spelled `k` then a digit then `"`.
const TEXTS = ["k", "0", "1", "2", '"', '": ', "k0", ",", "}", ' "', "x"];
const id = (t: string) => TEXTS.indexOf(t);

/** The key grammar as a probe: the state is the text of the key so far. */
class KeyGrammar implements KeyProbe {
  constructor(private text = "") {}
  fork(): KeyGrammar {
    return new KeyGrammar(this.text);
  }
  accept(token: number): boolean {
    const next = this.text + TEXTS[token]!;
    if (!this.allows(next)) return false;
    this.text = next;
    return true;
  }
  canBeNext(token: number): boolean {
    return this.allows(this.text + TEXTS[token]!);
  }
  nextTokens() {
    return { kind: "set" as const, tokens: TEXTS.map((_, i) => i).filter((i) => this.allows(this.text + TEXTS[i]!)) };
  }
  /** After a comma the grammar forces the separator's space and the key's quote. */
  forcedContinuation() {
    return { tokens: this.text === "," ? [id(' "')] : [] };
  }
  private allows(text: string): boolean {
    if (text.startsWith(",")) return /^,( "?)?$/.test(text) || /^, "(k[0-2]?)?$/.test(text) || /^, "k[0-2]"/.test(text);
    return /^(k[0-2]?)?$/.test(text) || /^k[0-2]"/.test(text);
  }
}

describe("KeyGuard", () => {
  const vocab = new KeyVocab(TEXTS);

  it("bans the tokens that would complete a key the object already has, nothing else", () => {
    const guard = new KeyGuard(vocab);
    guard.feed('{"k0": 1, "k');
    expect(guard.atKey).toBe(true);
    const g = new KeyGrammar("k");
    expect(guard.banned(g, g.nextTokens().tokens).sort()).toEqual([id("0")]);
    // Free text: a token that spells the rest of a seen key and its closing quote.
    const fresh = new KeyGuard(vocab);
    fresh.feed('{"k0": 1, "');
    expect(fresh.banned(new KeyGrammar(""), undefined)).toEqual([id("k0")]);
  });

  it("keys are per object: a nested object starts empty, and its close returns to the outer keys", () => {
    const guard = new KeyGuard(vocab);
    guard.feed('{"k0": {"k1": 2}, "k');
    const g = new KeyGrammar("k");
    expect(guard.banned(g, g.nextTokens().tokens)).toEqual([id("0")]);
    const inner = new KeyGuard(vocab);
    inner.feed('{"k0": {"k');
    expect(inner.atKey).toBe(false);
  });

  it("bans a comma when every key the grammar admits is already there", () => {
    const guard = new KeyGuard(vocab);
    guard.feed('{"k0": 1, "k1": 1, "k2": 1');
    expect(guard.afterMember).toBe(true);
    expect(guard.banned(new KeyGrammar(""), [id(","), id("}")])).toEqual([id(",")]);
    const open = new KeyGuard(vocab);
    open.feed('{"k0": 1, "k1": 1');
    expect(open.banned(new KeyGrammar(""), [id(","), id("}")])).toEqual([]);
  });

  it("ignores quotes and braces inside string values", () => {
    const guard = new KeyGuard(vocab);
    guard.feed('{"k0": "a \\" } { \\"k1\\": ", "k');
    const g = new KeyGrammar("k");
    expect(guard.banned(g, g.nextTokens().tokens)).toEqual([id("0")]);
  });

  it("settles a key's look-ahead on a character that leaves the seen keys, without the grammar's mask", () => {
    // Free keys: any run of letters and digits, then the closing quote. The mask at a key state the look-ahead had
    // not seen walked the whole vocabulary; a one-character token apart from every seen key answers the same.
    const texts = [...TEXTS, "a"];
    let masks = 0;
    const takes = (text: string) => /^[a-z0-9]*"?$/.test(text);
    const free = (text: string): KeyProbe => ({
      fork: () => free(text),
      accept: (t) => takes((text += texts[t]!)),
      canBeNext: (t) => takes(text + texts[t]!),
      nextTokens: () => {
        masks++;
        return { kind: "text" };
      },
      forcedContinuation: () => ({ tokens: [] }),
    });
    const guard = new KeyGuard(new KeyVocab(texts));
    guard.feed('{"k0": 1, "k');
    // `0` spells the seen key so far, and `a` or `"` can still take it apart.
    expect(guard.banned(free("k"), [texts.indexOf("0"), texts.indexOf("1")])).toEqual([]);
    expect(masks).toBe(0);
    // Where the grammar admits only the seen key's spelling, the mask is still asked for, and the token is banned.
    const only: KeyGrammar = new KeyGrammar("k");
    expect(guard.banned(only, only.nextTokens().tokens)).toEqual([id("0")]);
  });

  it("bans a token that opens and closes a seen key in one (it is never inside the key)", () => {
    const texts = [...TEXTS, '"k0"', '"k1"'];
    const guard = new KeyGuard(new KeyVocab(texts));
    guard.feed('{"k0": 1,');
    const any: KeyProbe = { fork: () => any, accept: () => true, canBeNext: () => true, nextTokens: () => ({ kind: "text" }), forcedContinuation: () => ({ tokens: [] }) };
    expect(guard.banned(any, [texts.indexOf('"k0"'), texts.indexOf('"k1"')])).toEqual([texts.indexOf('"k0"')]);
    expect(guard.feed(' "k1": 2, "k0"')).toBe(true);
  });
});

describe("XmlKeyGuard", () => {
  const vocab = new KeyVocab(TEXTS);
  const spelling = { functionOpen: "<function=", functionClose: "</function>", parameterOpen: "<parameter=", parameterClose: "</parameter>", tagEnd: ">" };
  const tools: GrammarTool[] = [{ name: "f", worstCaseTokens: 100, params: { json: ["map"], raw: ["note"], extraJson: false } }];

  it("guards the keys of a JSON parameter's value, not a raw one's text, and starts afresh at each parameter", () => {
    const guard = new XmlKeyGuard(vocab, spelling, tools);
    const g = new KeyGrammar("k");
    guard.feed('<tool_call>\n<function=f>\n<parameter=note>\n{"k0": 1, "k');
    expect(guard.banned(g, g.nextTokens().tokens)).toEqual([]);
    guard.feed('0": 1}\n</parameter>\n<parameter=map>\n{"k0": 1, "k');
    expect(guard.banned(g, g.nextTokens().tokens)).toEqual([id("0")]);
    // A close tag inside a string of the JSON value is text; the value's own close ends it.
    guard.feed('1": "</parameter>"}\n</parameter>\n<parameter=map>\n{"k');
    expect(guard.banned(g, g.nextTokens().tokens)).toEqual([]);
    expect(guard.clone().feed('0": 1, "k0"')).toBe(true);
  });
});
