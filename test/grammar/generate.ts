// A lean constrained generator for the grammar tests. The model (random weights: the adversary) proposes its
// top-40 tokens at temperature 1; the first one llama.cpp's grammar engine allows, in a seeded draw weighted by
// probability, is taken. When none of them is allowed, a seeded uniform draw among the allowed single-byte and
// special tokens is taken instead. Text the grammar forces (one possible byte or special token) is fed in one
// batch, as the runtime's jump-forward does. Between calls it applies the runtime's budget rule: after a call
// block, end the turn when fewer tokens are left than one more call may take.
//
// Every token goes through llama.cpp's grammar engine (canBeNext, then accept), so whatever comes out is
// something the grammar admits; this avoids the full-vocabulary grammar pass node-llama-cpp's sampler runs on
// every rejected sample (10-50 ms each), which would make 1,000 generations too slow for CI.

import { LlamaGrammarEvaluationState, TokenBias, type LlamaContextSequence, type LlamaGrammar, type LlamaModel, type Token } from "node-llama-cpp";
import { QWEN3_TOKENS } from "../../src/formats/index.js";
import { type CompiledGrammar } from "../../src/grammar/index.js";
import { TokenBytes, unsafeUtf8Tokens } from "../../src/model/token-bytes.js";
import { accept, canBeNext } from "../../src/grammar/llama-internals.js";
import { seededRandom } from "../../src/random.js";

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
/** Bytes tried first when looking for a forced byte: two of them are allowed almost everywhere in free text. */
const COMMON = [..."eatoinsr lcdu0123456789\",.:{}[]-_/\n"].map((c) => c.charCodeAt(0));

export class Generator {
  private readonly byteToken = new Map<number, Token>();
  private readonly probeOrder: number[];
  private readonly bias: TokenBias;
  private readonly unsafe: Set<number>;
  private readonly grammars = new Map<string, Promise<LlamaGrammar>>();

  constructor(
    private readonly model: LlamaModel,
    private readonly sequence: LlamaContextSequence,
  ) {
    const bytes = new TokenBytes(model);
    for (let t = 0; t < 151643; t++) {
      const b = bytes.of(t);
      if (b.length === 1 && !this.byteToken.has(b[0]!)) this.byteToken.set(b[0]!, t as Token);
    }
    this.probeOrder = [...new Set([...COMMON, ...Array.from({ length: 128 }, (_, i) => i)])];
    this.unsafe = new Set(unsafeUtf8Tokens(model, 151936));
    this.bias = new TokenBias(model.tokenizer);
    for (const t of this.unsafe) this.bias.set(t as Token, "never");
  }

  async run(grammar: CompiledGrammar, opts: { maxTokens: number; seed: number; prompt: string }): Promise<Generation> {
    let parsed = this.grammars.get(grammar.gbnf);
    if (!parsed) this.grammars.set(grammar.gbnf, (parsed = this.model.llama.createGrammar({ grammar: grammar.gbnf })));
    const state = new LlamaGrammarEvaluationState({ model: this.model, grammar: await parsed });
    const random = seededRandom(opts.seed);
    await this.sequence.clearHistory();
    const out: Token[] = [];
    let forcedCount = 0;
    const first = this.forced(state);
    out.push(...first.tokens);
    forcedCount += first.tokens.length;
    if (first.end) return this.result(out, forcedCount, "end");
    const it = this.sequence.evaluateWithMetadata([...this.model.tokenize(opts.prompt, true), ...first.tokens], { probabilities: true }, {
      temperature: 1,
      seed: opts.seed,
      tokenBias: this.bias,
    });
    let stop: Generation["stop"] = "end";
    try {
      let r = await it.next();
      while (!r.done) {
        const t = this.choose(state, r.value.probabilities, random);
        if (t === undefined || this.model.isEogToken(t)) break;
        accept(state, t);
        out.push(t);
        const more = this.forced(state);
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
  private choose(state: LlamaGrammarEvaluationState, probs: Map<Token, number>, random: () => number): Token | undefined {
    const pool = [...probs.entries()];
    while (pool.length > 0) {
      let x = random() * pool.reduce((s, [, p]) => s + p, 0);
      let i = 0;
      while (i < pool.length - 1 && (x -= pool[i]![1]) > 0) i++;
      const [token] = pool.splice(i, 1)[0]!;
      if (!this.unsafe.has(token) && canBeNext(state, token)) return token;
    }
    const allowed: Token[] = [];
    for (const t of [...this.byteToken.values(), ...SPECIALS, this.model.tokens.eos!] as Token[]) {
      if (!this.unsafe.has(t) && canBeNext(state, t)) allowed.push(t);
    }
    return allowed.length === 0 ? undefined : allowed[Math.floor(random() * allowed.length)];
  }

  /**
   * Tokens for the text the grammar forces next (accepted into the state): ASCII bytes and special tokens, up to
   * the first position with more than one continuation. `end`: after them the grammar can only end.
   */
  private forced(state: LlamaGrammarEvaluationState): { tokens: Token[]; end: boolean } {
    const tokens: Token[] = [];
    let text = "";
    const flush = () => {
      if (text) tokens.push(...this.model.tokenize(text, false));
      text = "";
    };
    let end = false;
    for (;;) {
      const eos = canBeNext(state, this.model.tokens.eos!);
      const specials = SPECIALS.filter((t) => canBeNext(state, t));
      const ascii: number[] = [];
      for (const b of this.probeOrder) {
        const t = this.byteToken.get(b);
        if (t !== undefined && canBeNext(state, t)) ascii.push(b);
        if (ascii.length > 1) break;
      }
      const nonAscii = ascii.length + specials.length === 0 && this.nonAsciiAllowed(state);
      const options = ascii.length + specials.length + (eos ? 1 : 0) + (nonAscii ? 1 : 0);
      if (options !== 1) break;
      if (eos) {
        end = true;
        break;
      }
      if (ascii.length === 1) {
        accept(state, this.byteToken.get(ascii[0]!)!);
        text += String.fromCharCode(ascii[0]!);
      } else if (specials.length === 1) {
        flush();
        accept(state, specials[0] as Token);
        tokens.push(specials[0] as Token);
      } else break;
    }
    flush();
    return { tokens, end };
  }

  private nonAsciiAllowed(state: LlamaGrammarEvaluationState): boolean {
    for (let b = 0x80; b <= 0xff; b++) {
      const t = this.byteToken.get(b);
      if (t !== undefined && !this.unsafe.has(t) && canBeNext(state, t)) return true;
    }
    return false;
  }
}
