// Owns: checking whether a text or a token sequence is accepted by a grammar with qtc's own constraint engine (the
// matcher the runtime constrains sampling with), token by token; and where a rejected text stops matching.

import { QtcException } from "../errors.js";
import type { CompiledGrammar, CompiledSchema } from "../grammar/types.js";
import type { EngineVocab } from "./engine-vocab.js";
import { createQtcMatcher, type QtcMatcher } from "./qtc-matcher.js";
import { EngineLimitError } from "./stack-pool.js";

/** A vocabulary as the checker reads it: plain functions over the model's tokens (src/runtime reads a model). */
export interface CheckerVocab {
  /** The engine's view: code points, special tokens, end-of-generation tokens, the trie, compiled grammars. */
  readonly engine: EngineVocab;
  /** The text's tokens with special tokens on (a call tag's spelling is its single special token). */
  tokenizeSpecial(text: string): number[];
  /** The tokens' text, special tokens spelled. */
  detokenize(tokens: readonly number[]): string;
  /** The exact UTF-8 bytes a token stands for. */
  bytesOf(token: number): Uint8Array;
  /** Whether the vocabulary names the token as added (CONTROL or USER_DEFINED, e.g. `<tool_call>`). */
  isAdded(token: number): boolean;
}

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

/** A grammar compiled by qtc's engine with a vocabulary, ready to check many inputs. */
export class EngineChecker {
  protected constructor(
    private readonly vocab: CheckerVocab,
    private readonly start: QtcMatcher,
  ) {}

  /**
   * Compile `grammar` with qtc's engine. Throws a QtcException `schema_too_large` where the engine refuses the
   * grammar (GBNF it cannot read, or over its limits), as the runtime refuses it before a turn starts.
   */
  static forVocabulary(vocab: CheckerVocab, grammar: string | CompiledGrammar | CompiledSchema): EngineChecker {
    const gbnf = typeof grammar === "string" ? grammar : grammar.gbnf;
    const compiled = typeof grammar !== "string" && "specialTokens" in grammar ? grammar : undefined;
    // Compiled first (the engine's refusal, as the runtime words it); a grammar given as text names its special
    // tokens in its program, which the matcher offers in its allowed sets.
    let start = createQtcMatcher({ gbnf, specialTokens: compiled?.specialTokens ?? [], closeToken: compiled?.closeToken ?? -1, valueClosers: compiled?.valueClosers ?? [] }, vocab.engine);
    if (!compiled) start = createQtcMatcher({ ...start.grammar, specialTokens: vocab.engine.poolFor(gbnf).program.tokens }, vocab.engine);
    return new EngineChecker(vocab, start);
  }

  /** A fresh matcher at the grammar's start (the runtime's, for callers that walk tokens themselves). */
  matcher(): QtcMatcher {
    return this.start.fork();
  }

  /** Check a text, tokenized with special tokens on (so a call tag is its single special token). */
  checkText(text: string): CheckResult {
    const tokens = this.vocab.tokenizeSpecial(text);
    const result = this.run(tokens);
    if (!result.stoppedAt) return { accepted: result.accepted, complete: result.complete };
    const { tokenIndex } = result.stoppedAt;
    const offsets = this.tokenOffsets(text, tokens);
    const start = offsets[tokenIndex] ?? text.length;
    const special = tokenIndex < tokens.length && this.vocab.engine.isSpecial(tokens[tokenIndex]!);
    const offset = special ? start : this.refine(result.matcher, text, start, offsets[tokenIndex + 1] ?? text.length);
    return { accepted: false, complete: result.complete, stoppedAt: { offset, tokenIndex, text: text.slice(offset, offset + 40) } };
  }

  /** Check a token sequence (end-of-generation tokens end the input: accepted only where the grammar may end). */
  checkTokens(tokens: readonly number[]): CheckResult {
    const r = this.run(tokens);
    if (!r.stoppedAt) return { accepted: r.accepted, complete: r.complete };
    const offset = this.vocab.detokenize(tokens.slice(0, r.stoppedAt.tokenIndex)).length;
    const rest = this.vocab.detokenize(tokens.slice(r.stoppedAt.tokenIndex));
    return { accepted: false, complete: r.complete, stoppedAt: { offset, tokenIndex: r.stoppedAt.tokenIndex, text: rest.slice(0, 40) } };
  }

  private run(tokens: readonly number[]): { accepted: boolean; complete: boolean; matcher: QtcMatcher; stoppedAt?: { tokenIndex: number } } {
    const m = this.start.fork();
    const { engine } = this.vocab;
    const end = () => engine.eogTokens.some((t) => m.canBeNext(t));
    try {
      for (let i = 0; i < tokens.length; i++) {
        const t = tokens[i]!;
        if (engine.isEog(t)) {
          const ok = m.canBeNext(t);
          return ok && i === tokens.length - 1
            ? { accepted: true, complete: true, matcher: m }
            : { accepted: false, complete: ok, matcher: m, stoppedAt: { tokenIndex: ok ? i + 1 : i } };
        }
        if (!m.accept(t)) return { accepted: false, complete: end(), matcher: m, stoppedAt: { tokenIndex: i } };
      }
      const complete = end();
      return { accepted: complete, complete, matcher: m };
    } catch (e) {
      // A state the engine will not hold (an ambiguity past its bounds): the runtime could not constrain it either.
      if (e instanceof EngineLimitError) throw new QtcException({ code: "schema_too_large", message: `the grammar is too large for qtc's constraint engine: ${e.message}` });
      throw e;
    }
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
      byte += this.vocab.bytesOf(t).length;
    }
    out.push(text.length);
    return out;
  }

  /**
   * Within the rejected token, the first character the grammar refuses (each fed as its own plain-text tokens
   * from the state before the token); the token's start when each character alone is taken.
   */
  private refine(before: QtcMatcher, text: string, start: number, end: number): number {
    const probe = before.fork();
    let offset = start;
    for (const ch of text.slice(start, end)) {
      for (const t of this.vocab.engine.tokenize(ch)) if (!probe.accept(t)) return offset;
      offset += ch.length;
    }
    return start;
  }
}
