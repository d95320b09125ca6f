// Owns: checking whether a text or a token sequence is accepted by a grammar, with llama.cpp's own grammar engine
// (the one that constrains sampling), token by token; and where a rejected text stops matching.

import { LlamaGrammarEvaluationState, type LlamaGrammar, type LlamaModel, type Token } from "node-llama-cpp";
import { accept, canBeNext } from "./llama-internals.js";
import { TokenBytes } from "../model/token-bytes.js";
import type { CompiledGrammar, CompiledSchema } from "./types.js";

export interface CheckResult {
  /** The whole input matches and the grammar may end right after it. */
  accepted: boolean;
  /** The grammar may end where matching stopped (after the last token when nothing was rejected). */
  complete: boolean;
  /** The first token (and, for text, the first character) the grammar rejects; absent when none was. */
  stoppedAt?: {
    /** UTF-16 offset in the text where matching stops (token start for token input without text). */
    offset: number;
    tokenIndex: number;
    /** The input from `offset` on (at most 40 characters). */
    text: string;
  };
}

/** A grammar loaded into llama.cpp with a model's vocabulary, ready to check many inputs. */
export class GrammarChecker {
  private readonly bytes: TokenBytes;
  private readonly end: number;

  private constructor(
    private readonly model: LlamaModel,
    private readonly grammar: LlamaGrammar,
  ) {
    this.bytes = new TokenBytes(model);
    this.end = model.tokens.eos ?? 151645;
  }

  /** Parse `grammar` with llama.cpp (throws when llama.cpp refuses the GBNF: a compiler bug). */
  static async create(model: LlamaModel, grammar: string | CompiledGrammar | CompiledSchema): Promise<GrammarChecker> {
    const text = typeof grammar === "string" ? grammar : grammar.gbnf;
    const parsed = await model.llama.createGrammar({ grammar: text });
    return new GrammarChecker(model, parsed);
  }

  /** A fresh state at the grammar's start (for callers that walk tokens themselves). */
  newState(): LlamaGrammarEvaluationState {
    return new LlamaGrammarEvaluationState({ model: this.model, grammar: this.grammar });
  }

  /** Check a text, tokenized with special tokens on (so a call tag is its single special token). */
  checkText(text: string): CheckResult {
    const tokens = this.model.tokenize(text, true);
    const result = this.run(tokens);
    if (!result.stoppedAt) return { accepted: result.accepted, complete: result.complete };
    const offsets = this.tokenOffsets(text, tokens);
    const start = offsets[result.stoppedAt.tokenIndex] ?? text.length;
    const rejected = tokens[result.stoppedAt.tokenIndex]!;
    const special = this.model.detokenize([rejected], true) !== this.model.detokenize([rejected], false);
    const offset = special ? start : this.refine(result.state, text, start, offsets[result.stoppedAt.tokenIndex + 1] ?? text.length);
    return { accepted: false, complete: result.complete, stoppedAt: { offset, tokenIndex: result.stoppedAt.tokenIndex, text: text.slice(offset, offset + 40) } };
  }

  /** Check a token sequence (end-of-generation tokens end the input: accepted only where the grammar may end). */
  checkTokens(tokens: readonly number[]): CheckResult {
    const r = this.run(tokens);
    if (!r.stoppedAt) return { accepted: r.accepted, complete: r.complete };
    const offset = this.model.detokenize(tokens.slice(0, r.stoppedAt.tokenIndex) as Token[], true).length;
    const rest = this.model.detokenize(tokens.slice(r.stoppedAt.tokenIndex) as Token[], true);
    return { accepted: false, complete: r.complete, stoppedAt: { offset, tokenIndex: r.stoppedAt.tokenIndex, text: rest.slice(0, 40) } };
  }

  private run(tokens: readonly number[]): { accepted: boolean; complete: boolean; state: LlamaGrammarEvaluationState; stoppedAt?: { tokenIndex: number } } {
    const state = this.newState();
    for (let i = 0; i < tokens.length; i++) {
      const t = tokens[i]!;
      if (this.model.isEogToken(t as Token)) {
        const ok = canBeNext(state, t);
        return ok && i === tokens.length - 1
          ? { accepted: true, complete: true, state }
          : { accepted: false, complete: ok, state, stoppedAt: { tokenIndex: ok ? i + 1 : i } };
      }
      if (!canBeNext(state, t)) return { accepted: false, complete: canBeNext(state, this.end), state, stoppedAt: { tokenIndex: i } };
      accept(state, t);
    }
    const complete = canBeNext(state, this.end);
    return { accepted: complete, complete, state };
  }

  /** UTF-16 offset where each token starts (plus the end), from the tokens' exact bytes. */
  private tokenOffsets(text: string, tokens: readonly number[]): number[] {
    const byteToOffset: number[] = [];
    let offset = 0;
    for (const ch of text) {
      const n = Buffer.byteLength(ch, "utf8");
      for (let i = 0; i < n; i++) byteToOffset.push(offset);
      offset += ch.length;
    }
    byteToOffset.push(text.length);
    const out: number[] = [];
    let byte = 0;
    for (const t of tokens) {
      out.push(byteToOffset[Math.min(byte, byteToOffset.length - 1)]!);
      byte += this.bytes.of(t).length;
    }
    out.push(text.length);
    return out;
  }

  /** Within the rejected token, the first character the grammar refuses (fed one character at a time). */
  private refine(state: LlamaGrammarEvaluationState, text: string, start: number, end: number): number {
    const probe = state.clone();
    let offset = start;
    for (const ch of text.slice(start, end)) {
      for (const t of this.model.tokenize(ch, false)) {
        if (!canBeNext(probe, t)) return offset;
        accept(probe, t);
      }
      offset += ch.length;
    }
    return start;
  }
}
