// SemanticMatcher: the engine's matcher with the call's semantic state inside it. Its mask leaves out a token that
// would complete a key the object has, `accept` refuses one, fork and rollback carry the keys with the grammar, and
// keys are read by their bytes (a character that only partial-UTF-8 tokens spell is one character, not U+FFFD).
import type { Token } from "node-llama-cpp";
import { describe, expect, test, vi } from "vitest";
import { allows, QtcMatcher } from "../../../src/engine/index.js";
import { KeyGuard, KeyVocab, SemanticMatcher, semanticStateFor } from "../../../src/engine/semantic/index.js";
import { decodeHolding } from "../../../src/engine/semantic/semantic-matcher.js";
import { getFormat } from "../../../src/formats/index.js";
import { compileToolGrammar } from "../../../src/grammar/index.js";
import { parse } from "../../../src/parse/index.js";
import { normalizeTools } from "../../../src/tools/index.js";
import { useTinyVocab } from "../../helpers/tiny-vocab.js";

const vocab = useTinyVocab();
const schema = { type: "object", additionalProperties: { type: "integer", minimum: 0, maximum: 9 }, minProperties: 2, maxProperties: 4 };
const tools = normalizeTools([{ name: "t", parameters: schema }]);

/** A semantic matcher over the open map's call grammar, past `head` (a hermes call's text). */
function matcherAfter(head: string, over = tools): { m: SemanticMatcher; tokens: number[] } {
  const compiled = compileToolGrammar(over, { toolChoice: "required", maxTokens: 256, parallel: false });
  if (!compiled.ok) throw new Error(compiled.error.message);
  const { model, engine, tables } = vocab();
  const keyVocab = new KeyVocab(tables.texts);
  const m = SemanticMatcher.wrap(QtcMatcher.create(compiled.value, engine), new KeyGuard(keyVocab), keyVocab, engine);
  const tokens = model.tokenize(head, true) as number[];
  expect(m.acceptAll(tokens)).toEqual(tokens);
  return { m, tokens };
}

/** Tokens the grammar alone allows here that close the key (their text begins with a quote). */
function closingQuotes(m: SemanticMatcher): number[] {
  const { tables } = vocab();
  const next = m.inner.nextTokens();
  return tables.texts.flatMap((text, t) => (text.startsWith('"') && allows(next, t) ? [t] : []));
}

/** The first two CJK characters (渋 is one) that the vocabulary spells only with tokens that cut them. */
function partialOnlyCharacters(): [string, string] {
  const { model, engine } = vocab();
  const cut = new Set(engine.cutTokens);
  const found: string[] = [];
  for (let cp = 0x4e00; cp <= 0x9fff && found.length < 2; cp++) {
    const ch = String.fromCodePoint(cp);
    if ((model.tokenize(ch, true) as number[]).every((t) => cut.has(t))) found.push(ch);
  }
  expect(found.length).toBe(2);
  return found as [string, string];
}

const HEAD = '<tool_call>\n{"name": "t", "arguments": {"ab": 1, "ab';

describe("SemanticMatcher", () => {
  test("its mask leaves out the tokens that would complete a key the object has; accept refuses them", () => {
    const { m } = matcherAfter(HEAD);
    const quotes = closingQuotes(m);
    expect(quotes.length).toBeGreaterThan(0);
    for (const t of quotes) {
      expect(m.inner.canBeNext(t)).toBe(true);
      expect(m.canBeNext(t)).toBe(false);
      expect(allows(m.nextTokens(), t)).toBe(false);
      expect(m.accept(t)).toBe(false);
    }
    // A key that differs goes on: `abc` then its quote.
    const [c] = vocab().model.tokenize("c", true) as number[];
    expect(m.canBeNext(c!)).toBe(true);
    expect(m.accept(c!)).toBe(true);
    expect(closingQuotes(m).some((t) => m.canBeNext(t))).toBe(true);
  });

  test("fork and rollback carry the keys with the grammar's position", () => {
    const { m } = matcherAfter(HEAD);
    const quote = closingQuotes(m)[0]!;
    const [c] = vocab().model.tokenize("c", true) as number[];
    const fork = m.fork();
    expect(fork.acceptAll([c!, quote])).toEqual([c!, quote]);
    // The original is where it was: the repeated key's quote is still banned there.
    expect(m.canBeNext(quote)).toBe(false);
    // Back in the fork to the key `ab`: banned again, and again after a rollback past a second key.
    fork.rollback(2);
    expect(fork.canBeNext(quote)).toBe(false);
  });

  test("its closing writes distinct keys where the grammar's own would repeat one", () => {
    const head = '<tool_call>\n{"name": "t", "arguments": {"';
    const { m } = matcherAfter(head);
    const { model } = vocab();
    const closing = m.closing()!;
    const r = parse(head + model.detokenize(closing as Token[], true), { tools });
    expect(r.errors).toEqual([]);
    expect(Object.keys(JSON.parse(r.calls[0]!.arguments) as object).length).toBe(2);
    // The grammar's own closing spells the shortest key each time: a repeat the parser refuses.
    const plain = parse(head + model.detokenize(m.inner.closing()! as Token[], true), { tools });
    expect(plain.errors.map((e) => e.reason)).toContain("duplicate_key");
    expect(m.acceptAll(closing)).toEqual(closing);
  });

  test("keys are read by their bytes: two characters that only cut tokens spell are two keys, not one", () => {
    const { model } = vocab();
    const [a, b] = partialOnlyCharacters();
    const head = `<tool_call>\n{"name": "t", "arguments": {"${a}": 1, "`;
    // Where a key is compared, the mask keeps cut tokens out (the look-ahead reads texts), so these are fed, not sampled.
    const { m } = matcherAfter(head);
    const [cut] = model.tokenize(b, true) as number[];
    expect(m.canBeNext(cut!)).toBe(false);
    // Read by text both keys are U+FFFD runs alike, and the second was refused as a repeat; by bytes it is taken.
    const second = model.tokenize(`${b}"`, true) as number[];
    expect(m.acceptAll(second)).toEqual(second);
    // The first key's character again completes that key a second time: refused.
    const { m: again } = matcherAfter(head);
    const same = model.tokenize(`${a}"`, true) as number[];
    expect(again.acceptAll(same).length).toBeLessThan(same.length);
  });

  test("bans and closings are kept per grammar position and state: the same position under other items gets its own", () => {
    const digits = normalizeTools([
      { name: "d", parameters: { type: "object", properties: { xs: { type: "array", uniqueItems: true, minItems: 3, maxItems: 4, items: { type: "integer", minimum: 0, maximum: 9 } } }, required: ["xs"], additionalProperties: false } },
    ]);
    const compiled = compileToolGrammar(digits, { toolChoice: "required", maxTokens: 256, parallel: false });
    if (!compiled.ok) throw new Error(compiled.error.message);
    const { model, engine, tables } = vocab();
    const keyVocab = new KeyVocab(tables.texts);
    const [one, two] = ["1", "2"].map((d) => (model.tokenize(d, true) as number[])[0]!);
    // Matchers of one grammar and one vocabulary share the engine's state pool, and so what it keeps.
    const after = (head: string) => {
      const state = semanticStateFor(getFormat("hermes"), compiled.value.tools, keyVocab)!;
      const m = SemanticMatcher.wrap(QtcMatcher.create(compiled.value, engine), state, keyVocab, engine);
      const tokens = model.tokenize(head, true) as number[];
      expect(m.acceptAll(tokens)).toEqual(tokens);
      return { m, banned: vi.spyOn(state, "banned") };
    };
    // The second item is one grammar position after `[1, ` and after `[2, `: each bans its own first item.
    const head = (first: string) => `<tool_call>\n{"name": "d", "arguments": {"xs": [${first}, `;
    const seen = after(head("1"));
    const other = after(head("2"));
    for (const m of [seen.m, other.m]) expect([one, two].every((t) => m.inner.canBeNext(t))).toBe(true);
    expect([allows(seen.m.nextTokens(), one), allows(seen.m.nextTokens(), two)]).toEqual([false, true]);
    expect([allows(other.m.nextTokens(), one), allows(other.m.nextTokens(), two)]).toEqual([true, false]);
    expect(other.banned).toHaveBeenCalledTimes(1);
    // The same position and items again: the answer kept for `seen` is the answer, not asked of the state anew.
    const again = after(head("1"));
    expect([allows(again.m.nextTokens(), one), allows(again.m.nextTokens(), two)]).toEqual([false, true]);
    expect(again.banned).not.toHaveBeenCalled();
    // Closings too (the grammar's own writes the least item again and again): each state's own, each a valid call.
    for (const [first, m] of [["1", seen.m], ["2", other.m]] as const) {
      const r = parse(head(first) + model.detokenize(m.closing()! as Token[], true), { tools: digits });
      expect(r.errors).toEqual([]);
      expect(r.calls).toHaveLength(1);
    }
    expect(model.detokenize(again.m.closing()! as Token[], true)).toBe(model.detokenize(seen.m.closing()! as Token[], true));
  });

  test("decodeHolding holds the bytes of a character until a later token finishes it", () => {
    const bytes = new TextEncoder().encode("名");
    const first = decodeHolding(new Uint8Array(0), bytes.subarray(0, 1));
    expect(first.text).toBe("");
    const second = decodeHolding(first.held, bytes.subarray(1));
    expect(second).toEqual({ text: "名", held: new Uint8Array(0) });
    expect(decodeHolding(new Uint8Array(0), new TextEncoder().encode('a"名')).text).toBe('a"名');
  });
});

describe("which calls get a semantic state (issue 49: a schema with none of its keywords pays nothing for it)", () => {
  const closed = normalizeTools([
    { name: "read", parameters: { type: "object", properties: { path: { type: "string" }, lines: { type: "array", items: { type: "integer" } } }, required: ["path"], additionalProperties: false } },
    { name: "nested", parameters: { type: "object", properties: { at: { type: "object", properties: { x: { type: "integer" } }, additionalProperties: false } }, additionalProperties: false } },
  ]);
  const open: [string, Record<string, unknown>][] = [
    ["an open map", { type: "object", additionalProperties: { type: "integer" } }],
    ["pattern keys", { type: "object", patternProperties: { "^x[0-9]$": { type: "integer" } }, additionalProperties: false }],
    ["an untyped value (any object, any keys)", { type: "object", properties: { v: {} }, required: ["v"], additionalProperties: false }],
    ["an open map inside an array", { type: "object", properties: { rows: { type: "array", items: { type: "object", additionalProperties: { type: "string" } } } }, additionalProperties: false }],
    ["distinct items", { type: "object", properties: { ids: { type: "array", items: { type: "integer" }, uniqueItems: true } }, additionalProperties: false }],
  ];
  const stateOf = (format: "hermes" | "qwen35", over: ReturnType<typeof normalizeTools>) => {
    const compiled = compileToolGrammar(over, { format, toolChoice: "required", maxTokens: 512, parallel: false });
    if (!compiled.ok) throw new Error(compiled.error.message);
    return semanticStateFor(getFormat(format), compiled.value.tools, new KeyVocab(vocab().tables.texts));
  };

  for (const format of ["hermes", "qwen35"] as const) {
    test(`${format}: tools whose keys the grammar writes at most once get none`, () => {
      expect(stateOf(format, closed)).toBeUndefined();
    });
    for (const [what, parameters] of open) {
      test(`${format}: ${what} beside a closed tool gets one`, () => {
        expect(stateOf(format, [...closed, ...normalizeTools([{ name: "o", parameters }])])).toBeDefined();
      });
    }
  }
});
