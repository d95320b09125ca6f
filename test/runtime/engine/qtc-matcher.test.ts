// The qtc engine's matcher on the tiny model's vocabulary (no weights): its mask is exactly the tokens the grammar
// takes at every position, free text included (checked against every token of the vocabulary), forced text is
// canonical, a sample drawn against the mask is replaced by something the grammar takes, fork is independent, the closing completes a call, and
// rollback returns to the state before the tokens it undoes.

import type { Llama, LlamaModel, Token } from "node-llama-cpp";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { QWEN3_TOKENS } from "../../../src/formats/index.js";
import { compileToolGrammar } from "../../../src/grammar/index.js";
import type { CompiledGrammar } from "../../../src/grammar/types.js";
import { HARNESS_TOOLS } from "../../../src/harness/index.js";
import { createLlama } from "../../../src/model/index.js";
import { parse } from "../../../src/parse/index.js";
import { EngineVocab } from "../../../src/engine/engine-vocab.js";
import { allows, type NextTokens } from "../../../src/engine/matcher.js";
import { QtcMatcher } from "../../../src/engine/qtc-matcher.js";
import type { TokenTables } from "../../../src/engine/token-tables.js";
import { readVocabulary } from "../../../src/model/vocabulary.js";
import { normalizeTools } from "../../../src/tools/index.js";
import { tinyModelPath } from "../../helpers/models.js";

let llama: Llama;
let model: LlamaModel;
let tables: TokenTables;
let engine: EngineVocab;
const tools = normalizeTools([...HARNESS_TOOLS]);

beforeAll(async () => {
  llama = await createLlama({ gpu: "cpu" });
  model = await llama.loadModel({ modelPath: await tinyModelPath(), vocabOnly: true });
  const read = readVocabulary(model);
  tables = read.tables;
  engine = read.engine!;
});
afterAll(async () => {
  await model?.dispose();
  await llama?.dispose();
});

const text = (tokens: readonly number[]) => model.detokenize(tokens as Token[], true);

function grammar(format: "hermes" | "qwen3coder" = "hermes", maxTokens = 256): CompiledGrammar {
  const r = compileToolGrammar(tools, { format, toolChoice: "required", maxTokens, parallel: false });
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

/** A `set_config` tool's grammar (hermes, required): the listed properties beside open string-valued keys. */
function openConfigGrammar(properties: Record<string, unknown>): CompiledGrammar {
  const config = normalizeTools([{ name: "set_config", description: "set options", parameters: { type: "object", properties, additionalProperties: { type: "string" } } }]);
  const r = compileToolGrammar(config, { format: "hermes", toolChoice: "required", maxTokens: 256, parallel: false });
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

/** Every token of the vocabulary the matcher can take next, cut and special ones included (the slow, obvious answer). */
function everyToken(m: QtcMatcher): number[] {
  const out: number[] = [];
  for (let t = 0; t < tables.vocabSize; t++) if (m.canBeNext(t)) out.push(t);
  return out;
}

/** The tokens a mask allows, sorted. */
function allowedOf(next: NextTokens): number[] {
  if (next.kind === "set") return [...next.tokens].sort((a, b) => a - b);
  const allowed = Array.from({ length: tables.vocabSize }, (_, t) => t).filter((t) => allows(next, t));
  // The count a bitset carries is what consumers read to choose a list or a bias: it must be its bits'.
  expect(next.count).toBe(allowed.length);
  return allowed;
}

/** Every token of the vocabulary the matcher can take next, one by one (the slow, obvious answer). */
function bruteForce(m: QtcMatcher): number[] {
  const out: number[] = [];
  const partial = new Set(tables.partialUtf8Tokens);
  for (let t = 0; t < tables.vocabSize; t++) if (!partial.has(t) && m.canBeNext(t)) out.push(t);
  return out;
}

describe("QtcMatcher", () => {
  test("forced text is the tokenizer's own tokens; the allowed set at the name is exactly what the grammar takes", () => {
    const m = QtcMatcher.create(grammar(), engine);
    const forced = m.forcedContinuation(64);
    expect(text(forced.tokens)).toBe('<tool_call>\n{"name": "');
    expect(m.acceptAll(forced.tokens)).toEqual(forced.tokens);
    const next = m.nextTokens();
    expect(next.kind).toBe("set");
    const set = next.kind === "set" ? [...next.tokens].sort((a, b) => a - b) : [];
    expect(set).toEqual(bruteForce(m));
    expect(set.map((t) => text([t]))).toContain("grep");
  });

  test("where one letter leads on into a listed name and the others into the open key, the text chain answers, exactly, without walking the whole trie", () => {
    // At `{"w` beside a listed `wait`, `a` goes on into `wait` and every other letter into the open key: read as the
    // plain character, `a` made every letter odd, and the mask fell back to walking every token (85 ms on MaskBench).
    const g = openConfigGrammar({ wait: { type: "integer" }, water: { type: "boolean" }, echo: { type: "string" } });
    for (const key of ["w", "wa", "e", "x"]) {
      const own = new EngineVocab(tables, engine.trie, engine.tokenize);
      const m = QtcMatcher.create(g, own);
      const prefix = `<tool_call>\n{"name": "set_config", "arguments": {"${key}`;
      const toks = model.tokenize(prefix, true) as number[];
      expect(m.acceptAll(toks), prefix).toEqual(toks);
      const before = engine.trie.visits;
      const next = m.nextTokens();
      // Only the tokens that begin with the letter of a listed name are walked on the trie (under that letter).
      expect(engine.trie.visits - before, key).toBeLessThan(tables.vocabSize / 4);
      expect(allowedOf(next), key).toEqual(everyToken(m));
    }
  });

  test("inside a uuid, where only hex digits and the dash are taken, the mask is the trie walk's short list, exactly", () => {
    // `a` and `e` are hex digits, so a uuid's positions looked like free text: the text mask cleared the 20,000
    // tokens beginning with a digit one by one before walking them (300–1,300 µs a position, 16 positions a uuid).
    const tool = normalizeTools([{ name: "fetch", parameters: { type: "object", properties: { id: { type: "string", format: "uuid" } }, required: ["id"] } }]);
    const r = compileToolGrammar(tool, { format: "hermes", toolChoice: "required", maxTokens: 256, parallel: false });
    if (!r.ok) throw new Error(r.error.message);
    const m = QtcMatcher.create(r.value, new EngineVocab(tables, engine.trie, engine.tokenize));
    const prefix = '<tool_call>\n{"name": "fetch", "arguments": {"id": "';
    const toks = model.tokenize(prefix, true) as number[];
    expect(m.acceptAll(toks)).toEqual(toks);
    for (const piece of ["3f2a", "9c0e", "-", "b7", "d1", "-4", "e5"]) {
      const next = m.nextTokens();
      expect(next.kind, piece).toBe("set");
      expect(allowedOf(next), piece).toEqual(everyToken(m));
      const step = model.tokenize(piece, false) as number[];
      expect(m.acceptAll(step), piece).toEqual(step);
    }
  });

  test("inside a string value the mask is a bitset of every token but a few, exactly; a sample drawn against it is still replaced", () => {
    const m = QtcMatcher.create(grammar(), engine);
    m.acceptAll(model.tokenize('<tool_call>\n{"name": "read_file", "arguments": {"path": "', true) as number[]);
    const next = m.nextTokens();
    expect(next.kind).toBe("bits");
    expect(next.kind === "bits" && tables.vocabSize - next.count).toBeLessThan(tables.vocabSize / 4);
    expect(allowedOf(next)).toEqual(everyToken(m));
    const refused = QWEN3_TOKENS.toolCallOpen.token;
    expect(m.canBeNext(refused)).toBe(false);
    // A sampler that ignored the mask (a caller's own loop): the token is replaced by one the grammar takes, and counted.
    const before = m.fork();
    const taken = m.takeSampled(refused);
    expect(taken.length).toBe(1);
    expect(before.canBeNext(taken[0]!)).toBe(true);
    expect(m.replaced).toBe(1);
    const g = QtcMatcher.create(grammar(), engine);
    g.acceptAll(model.tokenize('<tool_call>\n{"name": "read_file", "arguments": {"path": "', true) as number[]);
    const abc = model.tokenize("abc", false) as number[];
    expect(g.takeSampled(abc[0]!)).toEqual([abc[0]]);
    expect(g.replaced).toBe(0);
  });

  test("at a key the schema leaves open beside listed names, the walked mask allows most of the vocabulary, as a bitset, exactly", () => {
    // `a` and `e` lead to different states here (each begins a listed name); the mask allows about 146,000 tokens,
    // which a list carried through every step (session 26).
    const m = QtcMatcher.create(openConfigGrammar({ alpha: { type: "string" }, echo: { type: "boolean" }, apple: { type: "integer" } }), engine);
    m.acceptAll(model.tokenize('<tool_call>\n{"name": "set_config", "arguments": {"', true) as number[]);
    const next = m.nextTokens();
    expect(next.kind).toBe("bits");
    expect(next.kind === "bits" && next.count * 2).toBeGreaterThanOrEqual(tables.vocabSize);
    expect(allowedOf(next)).toEqual(everyToken(m));
    expect(m.canBeNext(model.tokenize("alpha", false)[0]!)).toBe(true);
    expect(m.canBeNext(QWEN3_TOKENS.toolCallOpen.token)).toBe(false);
  });

  test("the mask is exact at every kind of free-text position: JSON strings, escapes, maxLength and pattern strings (a URI-like one too), keys, raw XML values", () => {
    const note = normalizeTools([
      {
        name: "note",
        description: "keep a note",
        parameters: {
          type: "object",
          properties: {
            text: { type: "string" },
            short: { type: "string", maxLength: 5 },
            code: { type: "string", pattern: "^[A-Z]{2}[0-9]{3}$" },
            city: { type: "string", pattern: "^渋{1,3}谷$" },
            site: { type: "string", pattern: "^[A-Za-z0-9:/._-]+$" },
            tags: { type: "object", additionalProperties: { type: "string" } },
          },
          required: ["text"],
        },
      },
    ]);
    const at = (format: "hermes" | "qwen3coder", prefix: string) => {
      const r = compileToolGrammar(note, { format, toolChoice: "required", maxTokens: 512, parallel: false });
      if (!r.ok) throw new Error(r.error.message);
      const m = QtcMatcher.create(r.value, engine);
      const toks = model.tokenize(prefix, true) as number[];
      expect(m.acceptAll(toks), prefix).toEqual(toks);
      return m;
    };
    const hermes = '<tool_call>\n{"name": "note", "arguments": {"text": ';
    const positions: ["hermes" | "qwen3coder", string][] = [
      ["hermes", `${hermes}"a`],
      ["hermes", `${hermes}"a\\`],
      ["hermes", `${hermes}"a <`],
      ["hermes", `${hermes}"a </`],
      ["hermes", `${hermes}"a </t`],
      ["hermes", `${hermes}"a <é`],
      ["hermes", `${hermes}"a", "short": "`],
      ["hermes", `${hermes}"a", "short": "abc`],
      ["hermes", `${hermes}"a", "short": "a<`],
      ["hermes", `${hermes}"a", "code": "A`],
      ["hermes", `${hermes}"a", "city": "渋`],
      ["hermes", `${hermes}"a", "site": "ab`],
      ["hermes", `${hermes}"a", "tags": {"`],
      ["hermes", `${hermes}"a", "tags": {"k": "v`],
      ["qwen3coder", "<tool_call>\n<function=note>\n<parameter=text>\nhello"],
      ["qwen3coder", "<tool_call>\n<function=note>\n<parameter=text>\nhello <"],
      ["qwen3coder", "<tool_call>\n<function=note>\n<parameter=text>\nhi\n</parameter>\n<parameter=short>\nab"],
    ];
    const kinds = new Set<string>();
    for (const [format, prefix] of positions) {
      const m = at(format, prefix);
      const next = m.nextTokens();
      kinds.add(next.kind);
      expect(allowedOf(next), `${format}: ${prefix}`).toEqual(everyToken(m));
    }
    expect([...kinds].sort()).toEqual(["bits", "set"]);
  });

  test("along bounded strings, position by position, the bitset mask is exact (a fresh vocabulary: its plain-token bitsets built for these strings)", () => {
    // Each position of a bounded string asks for the plain tokens of one length fewer; the order is the one a
    // turn writes, then a shorter string first.
    for (const order of ["long first", "short first"] as const) {
      const own = new EngineVocab(tables, engine.trie, engine.tokenize);
      const bounded = normalizeTools([
        { name: "pair", parameters: { type: "object", properties: { a: { type: "string", maxLength: 3 }, b: { type: "string", maxLength: 9 } }, required: ["a", "b"], additionalProperties: false } },
      ]);
      const r = compileToolGrammar(bounded, { format: "hermes", toolChoice: "required", maxTokens: 256, parallel: false });
      if (!r.ok) throw new Error(r.error.message);
      const head = '<tool_call>\n{"name": "pair", "arguments": {"a": "';
      // After a `<`, the characters that begin a close tag are judged apart (walked on the trie under each).
      const short = ["", "x", "xy", "x<"].map((s) => head + s);
      const long = ["", "wxyz", "wx", "w", "wxyzwxyz", "wxyzw<", "w<"].map((s) => `${head}abc", "b": "${s}`);
      for (const prefix of order === "long first" ? [...long, ...short] : [...short, ...long]) {
        const m = QtcMatcher.create(r.value, own);
        const toks = model.tokenize(prefix, true) as number[];
        expect(m.acceptAll(toks), prefix).toEqual(toks);
        const before = engine.trie.visits;
        const next = m.nextTokens();
        // The text chain answers (near the bound too, where every character but the closing quote is refused):
        // few tokens, if any, are walked on the trie.
        expect(engine.trie.visits - before, `${order}: ${prefix}`).toBeLessThan(tables.vocabSize / 4);
        expect(allowedOf(next), `${order}: ${prefix}`).toEqual(everyToken(m));
      }
    }
  });

  test("deep in a long bounded string, positions share one walked mask, and every mask is exact, near the bound too", () => {
    const own = new EngineVocab(tables, engine.trie, engine.tokenize);
    const long = normalizeTools([{ name: "say", parameters: { type: "object", properties: { text: { type: "string", maxLength: 1500 } }, required: ["text"], additionalProperties: false } }]);
    const r = compileToolGrammar(long, { format: "hermes", toolChoice: "required", maxTokens: 4096, parallel: false });
    if (!r.ok) throw new Error(r.error.message);
    const head = '<tool_call>\n{"name": "say", "arguments": {"text": "';
    // Words and the characters a string treats apart (`<`, an escaped backslash, a 2-byte one): 12 bytes a unit.
    const unit = "ab <c \\\\ é ";
    const at = (units: number, extra = "") => {
      const m = QtcMatcher.create(r.value, own);
      const toks = model.tokenize(head + unit.repeat(units) + extra, true) as number[];
      expect(m.acceptAll(toks), `${units} units`).toEqual(toks);
      return m;
    };
    // The canonical count sits a horizon of counts (some 950) above the bound's end: the first units in are deep,
    // and the bound is reached at 100 (a `<` and the character after it count 5 there: the grammar's bound is safe).
    const masks = new Map<string, NextTokens>();
    for (const [units, extra] of [[0, ""], [1, ""], [1, "x"], [25, "<"], [30, "\\"], [80, ""], [90, ""], [100, ""]] as const) {
      const m = at(units, extra);
      const next = m.nextTokens();
      masks.set(`${units}${extra}`, next);
      expect(allowedOf(next), `${units} units, then ${extra}`).toEqual(everyToken(m));
    }
    // The deep positions were served by one walk (the same mask object); the ones near the bound each by their own.
    const first = masks.get("0");
    expect(masks.get("1")).toBe(first);
    expect(masks.get("1x")).toBe(first);
    expect(masks.get("25<")).not.toBe(first);
    expect(masks.get("80")).not.toBe(first);
    expect(masks.get("90")).not.toBe(masks.get("80"));
    expect(masks.get("100")).not.toBe(masks.get("90"));
  });

  test("along a string bounded in bytes, every position's mask is exact, whichever end of it is masked first", () => {
    // Each position is a state of its own, and so is the state after each `<` and backslash in it; near the bound a
    // long tail (`<` and 16 characters) runs out of count, while far from it the same tail is taken.
    const bounded = normalizeTools([{ name: "say", parameters: { type: "object", properties: { text: { type: "string", maxLength: 60 } }, required: ["text"], additionalProperties: false } }]);
    const r = compileToolGrammar(bounded, { format: "hermes", toolChoice: "required", maxTokens: 256, parallel: false });
    if (!r.ok) throw new Error(r.error.message);
    const head = '<tool_call>\n{"name": "say", "arguments": {"text": "';
    const unit = "a<b \\\\ ";
    const positions = Array.from({ length: 12 }, (_, units) => unit.repeat(units >> 1) + (units % 2 ? "a<" : ""));
    for (const order of ["far first", "near first"] as const) {
      const own = new EngineVocab(tables, engine.trie, engine.tokenize);
      for (const text of order === "far first" ? positions : [...positions].reverse()) {
        const m = QtcMatcher.create(r.value, own);
        const toks = model.tokenize(head + text, true) as number[];
        expect(m.acceptAll(toks), `${order}: ${JSON.stringify(text)}`).toEqual(toks);
        expect(allowedOf(m.nextTokens()), `${order}: ${JSON.stringify(text)}`).toEqual(everyToken(m));
      }
    }
  });

  test("fork is independent; the closing completes a valid call from anywhere inside it", () => {
    for (const format of ["hermes", "qwen3coder"] as const) {
      const m = QtcMatcher.create(grammar(format), engine);
      m.acceptAll(m.forcedContinuation(64).tokens);
      const prefix = format === "hermes" ? 'grep", "arguments": {"pattern": "a<b' : "grep>\n<parameter=pattern>\na<b";
      const toks = model.tokenize(prefix, false) as number[];
      const f = m.fork();
      expect(m.acceptAll(toks)).toEqual(toks);
      const closing = m.closing()!;
      expect(closing).toBeDefined();
      expect(f.canBeNext(QWEN3_TOKENS.toolCallClose.token)).toBe(false);
      const all = [...model.tokenize(format === "hermes" ? '<tool_call>\n{"name": "' : "<tool_call>\n<function=", true), ...toks, ...closing] as number[];
      expect(m.acceptAll(closing)).toEqual(closing);
      const r = parse(text(all), { format, tools });
      expect(r.errors).toEqual([]);
      expect(r.calls.map((c) => c.name)).toEqual(["grep"]);
    }
  });

  test("inside a JSON key of a tag-spelled parameter (an open map), the closing is found and closes a valid call", () => {
    // The walk takes a value closer wherever the state takes it; a free key takes `/parameter>` as text, so the walk
    // wrote it into the key until its step limit and found no closing (issue 49): the search finds one.
    const env = normalizeTools([{ name: "env", parameters: { type: "object", properties: { v: { type: "object", additionalProperties: { type: "string" }, minProperties: 2 } }, required: ["v"] } }]);
    const compiled = compileToolGrammar(env, { format: "qwen3coder", toolChoice: "required", maxTokens: 256, parallel: false });
    if (!compiled.ok) throw new Error(compiled.error.message);
    const m = QtcMatcher.create(compiled.value, engine);
    const prefix = model.tokenize('<tool_call>\n<function=env>\n<parameter=v>\n{"a', true) as number[];
    expect(m.acceptAll(prefix)).toEqual(prefix);
    const closing = m.closing();
    expect(closing).toBeDefined();
    expect(m.acceptAll(closing!)).toEqual(closing);
    expect(closing!.at(-1)).toBe(QWEN3_TOKENS.toolCallClose.token);
    const r = parse(text([...prefix, ...closing!]), { format: "qwen3coder", tools: env });
    expect(r.calls.map((c) => c.name)).toEqual(["env"]);
  });

  test("a character only cut tokens spell (渋) is taken byte by byte: the mask lists them, then exactly their completions", () => {
    const shibu = normalizeTools([{ name: "go", parameters: { type: "object", properties: { city: { enum: ["渋谷"] } }, required: ["city"] } }]);
    const compiled = compileToolGrammar(shibu, { format: "hermes", toolChoice: "required", maxTokens: 64, parallel: false });
    if (!compiled.ok) throw new Error(compiled.error.message);
    const m = QtcMatcher.create(compiled.value, engine);
    m.acceptAll(m.forcedContinuation(64).tokens);
    const spelled = model.tokenize("渋", false) as number[];
    expect(spelled.length).toBeGreaterThan(1);
    expect(spelled.every((t) => engine.isCut(t))).toBe(true);
    // The allowed set is exact: every token of the vocabulary the matcher takes, cut ones included.
    const atValue = m.nextTokens();
    expect(atValue.kind).toBe("set");
    const listed = new Set(atValue.kind === "set" ? atValue.tokens : []);
    expect(listed.has(spelled[0]!)).toBe(true);
    const all: number[] = [];
    for (let t = 0; t < tables.vocabSize; t++) if (m.canBeNext(t)) all.push(t);
    expect([...listed].sort((a, b) => a - b)).toEqual(all);
    expect(m.accept(spelled[0]!)).toBe(true);
    // Mid-character: the set is the tokens that go on with it, and nothing whole (an ASCII letter) is taken.
    const inside = m.nextTokens();
    expect(inside.kind).toBe("set");
    expect(inside.kind === "set" && inside.tokens.includes(spelled[1]!)).toBe(true);
    expect(m.canBeNext(tables.byteTokens!["a".charCodeAt(0)]!)).toBe(false);
    // The closing finishes the character first; rollback returns to before it.
    const closing = m.closing()!;
    const fork = m.fork();
    expect(fork.acceptAll(closing)).toEqual(closing);
    const r = parse(text([...model.tokenize('<tool_call>\n{"name": "go", "arguments": {"city": "', true), spelled[0]!, ...closing] as number[]), { format: "hermes", tools: shibu });
    expect(r.errors).toEqual([]);
    expect(r.calls[0]!.parsedArguments).toEqual({ city: "渋谷" });
    m.rollback(1);
    expect(m.nextTokens()).toEqual(atValue);
    // A token whose text holds U+FFFD itself is whole UTF-8, but no call may hold it: refused like a broken one.
    const literal = tables.partialUtf8Tokens.find((t) => !engine.isCut(t));
    expect(literal).toBeDefined();
    expect(m.canBeNext(literal!)).toBe(false);
  });

  test("rollback undoes accepted tokens (a replaced sample counts as the tokens taken); a fork keeps its own past", () => {
    const m = QtcMatcher.create(grammar(), engine);
    const forced = m.forcedContinuation(64);
    m.acceptAll(forced.tokens);
    const atName = m.nextTokens();
    const name = model.tokenize('read_file", "arguments": {"path": "', false) as number[];
    expect(m.acceptAll(name)).toEqual(name);
    const inside = m.fork();
    const closing = m.closing();
    const taken = m.takeSampled(QWEN3_TOKENS.toolCallOpen.token);
    expect(m.replaced).toBe(1);
    m.rollback(taken.length);
    expect(m.closing()).toEqual(closing);
    m.rollback(name.length);
    expect(m.nextTokens()).toEqual(atName);
    m.rollback(forced.tokens.length);
    expect(m.forcedContinuation(64)).toEqual(forced);
    expect(() => m.rollback(1)).toThrow(/at most/);
    expect(() => m.rollback(-1)).toThrow(/whole number/);
    expect(m.forcedContinuation(64)).toEqual(forced);
    // The fork did not move with it, and rolls back through the past it was forked with.
    expect(inside.closing()).toEqual(closing);
    inside.rollback(name.length);
    expect(inside.nextTokens()).toEqual(atName);
  });
});
