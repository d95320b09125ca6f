// A lean constrained generator for the grammar tests. The model (random weights: the adversary) proposes its
// top-40 tokens at temperature 1; the first one qtc's constraint engine allows, in a seeded draw weighted by
// probability, is taken. When none of them is allowed, a seeded uniform draw among the allowed single-byte and
// special tokens is taken instead. Text the grammar forces is fed in one batch, with the runtime's jump-forward
// (the matcher's forced continuation). Between calls it applies the runtime's budget rule: after a call block,
// end the turn when fewer tokens are left than one more call may take.
//
// Every token goes through the engine's matcher (canBeNext, then accept; the matcher the runtime constrains with),
// so whatever comes out is something the grammar admits; asking it about the top-40 tokens only keeps 1,000
// generations fast enough for CI.

import { TokenBias, type LlamaContextSequence, type LlamaModel, type Token } from "node-llama-cpp";
import { GrammarChecker } from "../../src/model/grammar-checker.js";
import { QWEN3_TOKENS } from "../../src/formats/index.js";
import { type CompiledGrammar } from "../../src/grammar/index.js";
import { TokenBytes, unsafeUtf8Tokens } from "../../src/model/token-bytes.js";
import { seededRandom } from "../../src/random.js";
import type { QtcMatcher } from "../../src/engine/qtc-matcher.js";

export interface Generation {
  text: string;
  /** Tokens produced (sampled and forced). */
  tokens: number;
  forced: number;
  /** Why it stopped: the grammar ended, the budget rule ended the turn, or maxTokens cut it off. */
  stop: "end" | "budget-rule" | "cut-off";
}

const CLOSE = QWEN3_TOKENS.toolCallClose.token;
const SPECIALS = [QWEN3_TOKENS.toolCallOpen, QWEN3_TOKENS.toolCallClose, QWEN3_TOKENS.thinkOpen, QWEN3_TOKENS.thinkClose].map((t) => t.token);

export class Generator {
  private readonly byteToken = new Map<number, Token>();
  private readonly bias: TokenBias;
  private readonly unsafe: Set<number>;
  private readonly grammars = new Map<string, Promise<GrammarChecker>>();

  constructor(
    private readonly model: LlamaModel,
    private readonly sequence: LlamaContextSequence,
  ) {
    const bytes = new TokenBytes(model);
    for (let t = 0; t < 151643; t++) {
      const b = bytes.of(t);
      if (b.length === 1 && !this.byteToken.has(b[0]!)) this.byteToken.set(b[0]!, t as Token);
    }
    this.unsafe = new Set(unsafeUtf8Tokens(model, 151936));
    this.bias = new TokenBias(model.tokenizer);
    for (const t of this.unsafe) this.bias.set(t as Token, "never");
  }

  async run(grammar: CompiledGrammar, opts: { maxTokens: number; seed: number; prompt: string }): Promise<Generation> {
    let checker = this.grammars.get(grammar.gbnf);
    if (!checker) this.grammars.set(grammar.gbnf, (checker = GrammarChecker.create(this.model, grammar)));
    const state = (await checker).matcher();
    const random = seededRandom(opts.seed);
    await this.sequence.clearHistory();
    const out: Token[] = [];
    let forcedCount = 0;
    const first = this.forced(state, opts.maxTokens);
    out.push(...first.tokens);
    forcedCount += first.tokens.length;
    if (first.end) return this.result(out, forcedCount, "end");
    const it = this.sequence.evaluateWithMetadata([...this.model.tokenize(opts.prompt, true), ...first.tokens], { probabilities: true }, {
      temperature: 1,
      seed: opts.seed,
      tokenBias: this.bias,
      // The draw is this generator's (choose): llama.cpp's own sample being an end-of-generation token must not
      // end the iteration in the middle of a call.
      yieldEogToken: true,
    });
    let stop: Generation["stop"] = "end";
    try {
      let r = await it.next();
      while (!r.done) {
        const t = this.choose(state, r.value.probabilities, random);
        if (t === undefined || this.model.isEogToken(t)) break;
        if (!state.accept(t)) throw new Error(`the engine refused token ${t} it allowed`);
        out.push(t);
        const more = this.forced(state, opts.maxTokens - out.length);
        out.push(...more.tokens);
        forcedCount += more.tokens.length;
        if (out.length > opts.maxTokens) break;
        if (more.end) break;
        if (out[out.length - 1] === CLOSE && opts.maxTokens - out.length < grammar.worstCaseCallTokens) {
          stop = "budget-rule";
          break;
        }
        if (out.length === opts.maxTokens) {
          stop = "cut-off";
          break;
        }
        r = await it.next([t, ...more.tokens]);
      }
    } finally {
      await it.return();
    }
    return this.result(out, forcedCount, out.length > opts.maxTokens ? "cut-off" : stop);
  }

  private result(out: Token[], forced: number, stop: Generation["stop"]): Generation {
    return { text: this.model.detokenize(out, true), tokens: out.length, forced, stop };
  }

  /** The model's pick among its top tokens that the grammar allows, else a uniform pick among allowed short tokens. */
  private choose(state: QtcMatcher, probs: Map<Token, number>, random: () => number): Token | undefined {
    const pool = [...probs.entries()];
    while (pool.length > 0) {
      let x = random() * pool.reduce((s, [, p]) => s + p, 0);
      let i = 0;
      while (i < pool.length - 1 && (x -= pool[i]![1]) > 0) i++;
      const [token] = pool.splice(i, 1)[0]!;
      if (!this.unsafe.has(token) && state.canBeNext(token)) return token;
    }
    const allowed: Token[] = [];
    for (const t of [...this.byteToken.values(), ...SPECIALS, this.model.tokens.eos!] as Token[]) {
      if (!this.unsafe.has(t) && state.canBeNext(t)) allowed.push(t);
    }
    return allowed.length === 0 ? undefined : allowed[Math.floor(random() * allowed.length)];
  }

  /**
   * Tokens for the text the grammar forces next (accepted into the state), as the runtime's jump-forward takes
   * them: up to the first position with more than one continuation, at most `maxSteps` steps. `end`: after them
   * the grammar can only end.
   */
  private forced(state: QtcMatcher, maxSteps: number): { tokens: Token[]; end: boolean } {
    const next = state.forcedContinuation(Math.max(1, maxSteps));
    const tokens = state.acceptAll(next.tokens) as Token[];
    return { tokens, end: next.ends && tokens.length === next.tokens.length };
  }
}
