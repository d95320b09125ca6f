// The grammar matcher (qtc's engine, as the runtime makes it) and the budget guard. The matcher is built from a
// compiled harness grammar (its special tokens come with it); the guard is tested on its own with a scripted
// closing cost, then inside a real turn driven by a fake sequence (the vocabulary of the tiny model, no weights:
// the "sampler" is a script that picks what the grammar allows), at every budget where the turn is guarded, so
// that it acts at the last tokens.

import type { Llama, LlamaModel, Token, TokenBias } from "node-llama-cpp";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { QtcException } from "../../src/errors.js";
import { hermes, QWEN3_TOKENS } from "../../src/formats/index.js";
import { GrammarCache } from "../../src/grammar/compile.js";
import { compileToolGrammar } from "../../src/grammar/index.js";
import { GrammarChecker } from "../../src/model/grammar-checker.js";
import type { CompiledGrammar } from "../../src/grammar/types.js";
import { HARNESS_TOOLS } from "../../src/harness/index.js";
import { createLlama } from "../../src/model/index.js";
import { parse } from "../../src/parse/index.js";
import { BudgetGuard, GUARD_LOOKAHEAD, GUARD_MARGIN, type Closable } from "../../src/runtime/budget-guard.js";
import { createMatcher } from "../../src/runtime/engine-choice.js";
import { allows } from "../../src/engine/matcher.js";
import { QtcMatcher } from "../../src/engine/qtc-matcher.js";
import { turnGrammarSource } from "../../src/runtime/grammar-source.js";
import type { MatcherEnv, MatcherGrammar, NextTokens } from "../../src/runtime/matcher.js";
import type { TokenTables } from "../../src/engine/token-tables.js";
import { readVocabulary } from "../../src/model/vocabulary.js";
import { runTurn, type TurnEnv, type TurnOutcome, type TurnPlan } from "../../src/runtime/turn.js";
import { normalizeTools } from "../../src/tools/index.js";
import { tinyModelPath } from "../helpers/models.js";

let llama: Llama;
let vocab: LlamaModel;
let tables: TokenTables;
let env: MatcherEnv;
const tools = normalizeTools([...HARNESS_TOOLS]);

beforeAll(async () => {
  llama = await createLlama({ gpu: "cpu" });
  vocab = await llama.loadModel({ modelPath: await tinyModelPath(), vocabOnly: true });
  const read = readVocabulary(vocab);
  tables = read.tables;
  env = { tokenize: read.tokenizeText, engine: read.engine! };
});
afterAll(async () => {
  await vocab?.dispose();
  await llama?.dispose();
});

const text = (tokens: readonly number[]) => vocab.detokenize(tokens as Token[], true);

/** Special token ids a GBNF text names as `<[id]>`. */
function grammarSpecialTokens(gbnf: string): number[] {
  return [...new Set([...gbnf.matchAll(/<\[(\d+)\]>/g)].map((m) => Number(m[1])))];
}

function compiled(extra: Parameters<typeof compileToolGrammar>[1] = {}): CompiledGrammar {
  const r = compileToolGrammar(tools, { format: "hermes", toolChoice: "required", maxTokens: 256, parallel: false, ...extra });
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

describe("the compiled grammar carries what a matcher needs", () => {
  test.each(["start", "after-open"] as const)("phase %s: its special tokens are exactly the ones its GBNF names, with the close tag", (phase) => {
    for (const format of ["hermes", "qwen3coder"] as const) {
      const g = compiled({ format, phase, toolChoice: "auto", parallel: true });
      expect([...g.specialTokens].sort()).toEqual(grammarSpecialTokens(g.gbnf).sort());
      expect(g.specialTokens).toContain(QWEN3_TOKENS.toolCallClose.token);
      expect(g.closeToken).toBe(QWEN3_TOKENS.toolCallClose.token);
      expect(g.triggerToken).toBe(QWEN3_TOKENS.toolCallOpen.token);
      expect(g.valueClosers.length).toBeGreaterThan(0);
    }
  });
});

describe("the runtime's matcher", () => {
  test("forced continuation, accept, the allowed set, free text, fork and the cost to close", async () => {
    const m = await createMatcher(compiled({ toolChoice: { name: "read_file" } }), env);
    // The whole envelope up to the path's first character is forced, as the tokenizer's own tokens.
    const envelope = m.forcedContinuation(1000);
    expect(envelope.ends).toBe(false);
    expect(text(envelope.tokens)).toBe('<tool_call>\n{"name": "read_file", "arguments": {"path": "');
    expect(envelope.tokens.slice(1)).toEqual(vocab.tokenize('\n{"name": "read_file", "arguments": {"path": "', false));
    expect(m.acceptAll(envelope.tokens)).toEqual(envelope.tokens);
    const inString = m.nextTokens();
    expect(inString.kind).toBe("bits");
    expect(allows(inString, QWEN3_TOKENS.toolCallOpen.token)).toBe(false);
    expect(allows(inString, tables.byteTokens!["a".charCodeAt(0)]!)).toBe(true);
    const cost = m.closing()!;
    expect(text(cost)).toBe('"}}\n</tool_call>');

    // A fork moves on its own; the original stays where it was.
    const fork = m.fork();
    const a = tables.byteTokens!["a".charCodeAt(0)]!;
    expect(fork.accept(a)).toBe(true);
    expect(fork.closing()).toEqual(cost);
    const quote = tables.byteTokens!['"'.charCodeAt(0)]!;
    expect(fork.accept(quote)).toBe(true);
    const after = fork.nextTokens();
    expect(after.kind).toBe("set");
    const texts = after.kind === "set" ? after.tokens.map((t) => text([t])) : [];
    expect(texts).toContain("}");
    for (const t of texts) expect('}}\n'.startsWith(t), t).toBe(true);
    expect(m.closing()).toEqual(cost);
    expect(m.nextTokens()).toEqual(inString);

    // Accepting stops at the first token the grammar rejects.
    const brace = vocab.tokenize("{", false)[0]!;
    expect(fork.acceptAll([brace])).toEqual([]);
    expect(fork.canBeNext(QWEN3_TOKENS.toolCallClose.token)).toBe(false);
    expect(m.ms).toBeGreaterThan(0);
  });

  test("the closing of a call from inside an escape is a valid call", async () => {
    const m = await createMatcher(compiled({ toolChoice: { name: "grep" } }), env);
    m.acceptAll(m.forcedContinuation(1000).tokens);
    const typed = vocab.tokenize("TO\\", false) as number[];
    expect(m.acceptAll(typed)).toEqual(typed);
    const closing = m.closing()!;
    const raw = text([...vocab.tokenize('<tool_call>\n{"name": "grep", "arguments": {"pattern": "', true), ...typed, ...closing]);
    const r = parse(raw, { tools, format: "hermes" });
    expect(r.errors).toEqual([]);
    expect(r.calls.map((c) => c.name)).toEqual(["grep"]);
    expect(closing[closing.length - 1]).toBe(QWEN3_TOKENS.toolCallClose.token);
  });
});

describe("the allowed set along a whole harness call", () => {
  /** Every token of the vocabulary the matcher takes next, asked one by one. */
  const bruteForce = (m: QtcMatcher) => {
    const out: number[] = [];
    for (let t = 0; t < tables.vocabSize; t++) if (m.canBeNext(t)) out.push(t);
    return out;
  };
  /** The tokens a mask allows, sorted. */
  const allowedOf = (next: NextTokens) => {
    if (next.kind === "set") return [...next.tokens].sort((a, b) => a - b);
    return Array.from({ length: tables.vocabSize }, (_, t) => t).filter((t) => allows(next, t));
  };

  test("in both formats, every mask it gives, free text included, is exactly what the grammar takes; before the close tag, only the tag", async () => {
    const calls = {
      hermes: `<tool_call>\n{"name": "grep", "arguments": {"pattern": "TODO", "path": "src"}}\n</tool_call>`,
      qwen3coder: `<tool_call>\n<function=grep>\n<parameter=pattern>\nTODO\n</parameter>\n<parameter=path>\nsrc\n</parameter>\n</function>\n</tool_call>`,
    } as const;
    let exact = 0;
    for (const format of ["hermes", "qwen3coder"] as const) {
      const g = compiled({ format });
      const tokens = vocab.tokenize(calls[format], true) as number[];
      for (let i = 0; i <= tokens.length; i += 3) {
        const m = await createMatcher(g, env);
        expect(m.acceptAll(tokens.slice(0, i))).toHaveLength(i);
        expect(allowedOf(m.nextTokens()), `${format} after ${i} tokens`).toEqual(bruteForce(m));
        exact++;
      }
      const beforeClose = await createMatcher(g, env);
      beforeClose.acceptAll(tokens.slice(0, -1));
      expect(beforeClose.nextTokens()).toEqual({ kind: "set", tokens: [QWEN3_TOKENS.toolCallClose.token] });
    }
    expect(exact).toBeGreaterThanOrEqual(8);
  });
});

/** A matcher stand-in whose closing costs what the script says, counting how often it was asked. */
class ScriptedClosable implements Closable {
  asked = 0;
  accepted: number[] = [];
  constructor(
    public cost: number,
    /** How many tokens of a closing the "grammar" accepts. */
    public acceptable = Infinity,
  ) {}
  closing(): number[] | undefined {
    this.asked++;
    return Number.isFinite(this.cost) ? Array.from({ length: this.cost }, (_, i) => 1000 + i) : undefined;
  }
  acceptAll(tokens: readonly number[]): number[] {
    const taken = tokens.slice(0, this.acceptable);
    this.accepted.push(...taken);
    return taken;
  }
}

describe("BudgetGuard", () => {
  test("measures every step: a closing that grew far from the end still closes in time", () => {
    const m = new ScriptedClosable(6);
    const guard = new BudgetGuard(m);
    expect(guard.fits(100)).toBe(true);
    for (let remaining = 100; remaining > 40; remaining--) expect(guard.check(remaining)).toBeUndefined();
    // The model opened a member with required ones inside, 40 tokens from the end: the closing is 30 now.
    m.cost = 30;
    for (let remaining = 40; remaining > 30 + GUARD_MARGIN; remaining--) expect(guard.check(remaining)).toBeUndefined();
    expect(guard.check(30 + GUARD_MARGIN)).toMatchObject({ finish: "tool_calls" });
    expect(m.accepted).toHaveLength(30);
  });

  test("near the end, the candidates after which the call could not close are named; if none could, all but the cheapest", () => {
    const guard = new BudgetGuard(new ScriptedClosable(10));
    expect(guard.near(100)).toBe(false);
    guard.check(50);
    expect([guard.near(10 + GUARD_LOOKAHEAD), guard.near(11 + GUARD_LOOKAHEAD)]).toEqual([true, false]);
    const cost: Record<number, number | undefined> = { 1: 12, 2: 30, 3: undefined, 4: 20 };
    expect(guard.unaffordable([1, 2, 3, 4], 20, (t) => cost[t])).toEqual([2, 3]);
    expect(guard.unaffordable([2, 3, 4], 15, (t) => cost[t])).toEqual([2, 3]);
  });

  test("closes the call once the budget left is the closing plus GUARD_MARGIN, not a token earlier", () => {
    const m = new ScriptedClosable(6);
    const guard = new BudgetGuard(m);
    expect(guard.check(6 + GUARD_MARGIN + 1)).toBeUndefined();
    const close = guard.check(6 + GUARD_MARGIN);
    expect(close).toEqual({ tokens: [1000, 1001, 1002, 1003, 1004, 1005], finish: "tool_calls" });
    expect(m.accepted).toEqual(close!.tokens);
  });

  test("a closing that grew past the budget (a sampled token lengthened it) is cut to the budget: finish length", () => {
    const m = new ScriptedClosable(6);
    const guard = new BudgetGuard(m);
    expect(guard.check(20)).toBeUndefined();
    m.cost = 9;
    expect(guard.check(7)).toEqual({ tokens: [1000, 1001, 1002, 1003, 1004, 1005, 1006], finish: "length" });
    expect(new BudgetGuard(new ScriptedClosable(3)).check(0)).toEqual({ tokens: [], finish: "length" });
  });

  test("a closing the grammar refuses part of ends the turn at the limit with what it took", () => {
    const guard = new BudgetGuard(new ScriptedClosable(6, 2));
    expect(guard.check(8)).toEqual({ tokens: [1000, 1001], finish: "length" });
  });

  test("no closing found: it never closes, and refuses to open a call", () => {
    const m = new ScriptedClosable(Infinity);
    const guard = new BudgetGuard(m);
    expect(guard.fits(1000)).toBe(false);
    for (let remaining = 30; remaining >= 0; remaining--) expect(guard.check(remaining)).toBeUndefined();
    expect(m.asked).toBe(32);
    expect(new BudgetGuard(new ScriptedClosable(5)).fits(4)).toBe(false);
    expect(new BudgetGuard(new ScriptedClosable(5)).fits(5)).toBe(true);
  });
});

/** What a scripted sampler may pick: whether the grammar takes `token` after everything the turn fed so far. */
type Allowed = (token: number) => boolean;

/**
 * A sequence without weights: it records what it is fed and "samples" what `pick` chooses among the tokens the
 * grammar allows, read from a matcher of its own that follows every token the turn feeds (and checks each).
 */
function fakeSequence(promptLength: number, grammar: MatcherGrammar | undefined, pick: (allowed: Allowed) => number) {
  const fed: number[] = [];
  let mirror: QtcMatcher | undefined;
  let synced = 0;
  const allowed: Allowed = (token) => {
    if (!grammar) return true;
    mirror ??= QtcMatcher.create(grammar, env.engine);
    const completion = fed.slice(promptLength);
    for (; synced < completion.length; synced++) expect(mirror.accept(completion[synced]!), `fed token ${synced}`).toBe(true);
    return mirror.canBeNext(token);
  };
  const sequence = {
    async evaluateWithoutGeneratingNewTokens(tokens: Token[]) {
      fed.push(...tokens);
    },
    evaluate(tokens: Token[]) {
      return (async function* () {
        let input: number | number[] = tokens;
        for (;;) {
          fed.push(...(Array.isArray(input) ? input : [input]));
          input = (yield pick(allowed) as Token) as unknown as number | number[];
        }
      })();
    },
  };
  return { sequence: sequence as never, fed };
}

/** The first of `preferred` the grammar allows, else the first allowed printable byte, tag or end. */
const firstAllowed = (preferred: readonly number[]) => (allowed: Allowed) => {
  const fallback = [...Array.from({ length: 95 }, (_, i) => tables.byteTokens![0x20 + i]!), QWEN3_TOKENS.toolCallClose.token, tables.eog];
  const token = [...preferred, ...fallback].find(allowed);
  if (token === undefined) throw new Error("the grammar allows none of the candidates");
  return token;
};

/** A seeded adversary: a random allowed token among the printable bytes (escapes, quotes and all) and the close tag. */
function randomAllowed(seed: number) {
  let s = seed;
  const candidates = [...Array.from({ length: 95 }, (_, i) => tables.byteTokens![0x20 + i]!), QWEN3_TOKENS.toolCallClose.token];
  return (allowed: Allowed) => {
    const ok = candidates.filter(allowed);
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return ok.length ? ok[s % ok.length]! : tables.eog;
  };
}

async function fakeTurn(maxTokens: number, pick: (allowed: Allowed) => number) {
  const dummy = {} as TokenBias;
  const turnEnv: TurnEnv = {
    model: vocab,
    tables,
    matchers: env,
    biases: { none: dummy, banningAll: () => dummy, inCall: dummy, narrowTo: () => dummy, allBut: () => dummy },
  };
  const toolChoice = { name: "read_file" };
  const grammar = turnGrammarSource(tools, { format: hermes, toolChoice, parallel: false, maxCalls: 1 }, new GrammarCache(), true);
  const promptTokens = vocab.tokenize("<|im_start|>assistant\n", true) as number[];
  const plan: TurnPlan = {
    toolChoice,
    mode: "constrained",
    parallel: false,
    maxTokens,
    temperature: 0.7,
    topP: 0.8,
    topK: 20,
    seed: 1,
    thinking: false,
    thinkingBudget: 0,
    format: hermes,
    jumpForward: true,
    maxCalls: 1,
    promptTokens,
    reusedPromptTokens: 0,
    grammar,
    jsonAnswer: false,
    startedAt: performance.now(),
  };
  const chosen = grammar("start", maxTokens);
  const { sequence, fed } = fakeSequence(promptTokens.length, chosen?.compiled, pick);
  const turn = runTurn(sequence, turnEnv, plan);
  let raw = "";
  let outcome: TurnOutcome;
  for (;;) {
    const step = await turn.next();
    if (step.done) {
      outcome = step.value;
      break;
    }
    raw += step.value;
  }
  return { outcome, raw, completion: fed.slice(promptTokens.length), guarded: chosen?.guarded, compiled: chosen?.compiled };
}

/**
 * fakeTurn, or undefined where the turn refused its budget: under a named tool choice a budget no call fits is
 * `budget_too_small` (with the figures), never a turn that ends at the limit with no call.
 */
async function turnOrRefusal(maxTokens: number, pick: Parameters<typeof fakeTurn>[1]): Promise<Awaited<ReturnType<typeof fakeTurn>> | undefined> {
  try {
    return await fakeTurn(maxTokens, pick);
  } catch (e) {
    if (!(e instanceof QtcException) || e.code !== "budget_too_small") throw e;
    expect(e.message).toMatch(/^maxTokens \d+ is too small for the call tool choice \{"name":"read_file"\} demands: /);
    return undefined;
  }
}

/** The sequence was fed the turn's tokens in order; tokens forced after the last sample end the turn unfed. */
function expectFedAsReported(fed: readonly number[], outcome: TurnOutcome): void {
  expect(fed).toEqual(outcome.tokens.slice(0, fed.length));
}

describe("the budget guard in a turn, at the last tokens of each budget", () => {
  test("a model that never closes its string: the call is closed with exactly GUARD_MARGIN tokens to spare", async () => {
    const a = tables.byteTokens!["a".charCodeAt(0)]!;
    let guardedBudgets = 0;
    let closedByGuard = 0;
    let smallest: number | undefined;
    for (let maxTokens = 1; maxTokens <= 80; maxTokens++) {
      const turn = await turnOrRefusal(maxTokens, firstAllowed([a]));
      if (!turn) {
        expect(smallest, `budget ${maxTokens} refused after a smaller one made a call`).toBeUndefined();
        continue;
      }
      const { outcome, raw, completion, guarded, compiled } = turn;
      expectFedAsReported(completion, outcome);
      expect(outcome.completionTokens, `budget ${maxTokens}: a turn that was not refused made a call`).toBeGreaterThan(0);
      smallest ??= maxTokens;
      const r = parse(raw, { tools, format: "hermes" });
      expect(r.errors, `budget ${maxTokens}: ${raw}`).toEqual([]);
      expect(r.calls.map((c) => c.name)).toEqual(["read_file"]);
      expect(outcome.completionTokens).toBeLessThanOrEqual(maxTokens);
      // Just above the smallest budget the closing estimated at the start (its text tokenized as one piece) can
      // be a token or two short of the envelope and the closing fed apart: the close tag is then cut (the body
      // is whole, so the parser still reads the call). From GUARD_MARGIN tokens above it, every turn closes.
      if (maxTokens >= smallest + GUARD_MARGIN) expect(outcome.finishReason, `budget ${maxTokens}: ${JSON.stringify(raw)}`).toBe("tool_calls");
      if (!guarded) continue;
      guardedBudgets++;
      const path = (r.calls[0]!.parsedArguments as { path: string }).path;
      // Every token after the envelope was sampled "a" until the guard closed the call.
      if (path.length === 0) continue;
      expect(path).toMatch(/^a+$/);
      // The wide grammar's own byte bound on the string can end it first (its budget is a multiple of the token
      // budget, and the call's fixed text takes most of a small one): then the grammar closed it, not the guard.
      const longer = raw.replace(`"path": "${path}"`, `"path": "${path}a"`);
      if (!(await GrammarChecker.create(vocab, compiled!)).checkText(longer).accepted) continue;
      expect(outcome.completionTokens).toBe(maxTokens - GUARD_MARGIN);
      closedByGuard++;
    }
    expect(smallest).toBeDefined();
    expect(guardedBudgets).toBeGreaterThanOrEqual(10);
    expect(closedByGuard).toBeGreaterThanOrEqual(10);
  });

  test("a random adversary (escapes, quotes): every guarded turn ends with one valid call inside its budget", async () => {
    let calls = 0;
    for (let maxTokens = 16; maxTokens <= 64; maxTokens++) {
      for (const seed of [1, 2]) {
        const turn = await turnOrRefusal(maxTokens, randomAllowed(seed * 7919 + maxTokens));
        if (!turn) continue;
        const { outcome, raw, completion } = turn;
        expectFedAsReported(completion, outcome);
        expect(outcome.completionTokens, `budget ${maxTokens} seed ${seed}: a turn that was not refused made a call`).toBeGreaterThan(0);
        const r = parse(raw, { tools, format: "hermes" });
        expect(r.errors, `budget ${maxTokens} seed ${seed}: ${JSON.stringify(raw)}`).toEqual([]);
        expect(r.calls).toHaveLength(1);
        expect(outcome.completionTokens).toBeLessThanOrEqual(maxTokens);
        calls++;
      }
    }
    expect(calls).toBeGreaterThan(80);
  });
});
