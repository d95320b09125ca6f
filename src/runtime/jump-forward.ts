// Owns: jump-forward on llama.cpp's grammar state: finding the text a state admits as its only continuation
// (ContinuationProber); the canonical tokens to feed for it are planned by the engine (src/engine/jump-forward.ts).
//
// How "only continuation" is decided, exactly: every text token starts with some byte, and a llama.cpp grammar
// accepts a token only if it accepts the token's first byte (partial UTF-8 included). So probing the 256
// single-byte tokens, the special tokens the grammar names (`<[id]>`) and one end-of-generation token gives
// every possible first step. When exactly one is allowed (an ASCII byte or a special token), that step is
// forced; the state is advanced on a clone and the probe repeats. Bytes no terminal of the grammar can match
// (grammar-bytes.ts) are never allowed, so they are not probed: the answers, and the tokens fed, stay the same,
// and a forced byte of an enum of ASCII strings costs a probe per letter the grammar uses instead of 257.

import type { LlamaGrammarEvaluationState } from "node-llama-cpp";
import { grammarBytes } from "./grammar-bytes.js";
import { acceptForced, canBeNext } from "./grammar-state.js";
import type { ForcedPiece, ForcedRun } from "../engine/jump-forward.js";
import type { TokenTables } from "../engine/token-tables.js";

/** Bytes that most free positions (strings, names) allow: probing them first ends the common case in 2 probes. */
const COMMON_FIRST = [..."ea_s0 t\"/.,:}\n"].map((c) => c.charCodeAt(0));

/** What the grammar allows next, probed in an order that settles "more than one" quickly. */
export class ContinuationProber {
  private readonly order: number[];
  /** Token id → the byte it stands for (single-byte tokens only). */
  private readonly byteOf = new Map<number, number>();
  /** canBeNext calls made so far (the work a forced run cost; read by tests and the bench). */
  probes = 0;

  constructor(
    private readonly tables: TokenTables,
    /** Special token ids the grammar names (CompiledGrammar.specialTokens). */
    specialTokens: readonly number[],
    /** The grammar's text: bytes none of its terminals can match are left out of the probes. Default: probe all. */
    gbnf?: string,
  ) {
    const bytes = tables.byteTokens ?? [];
    bytes.forEach((token, byte) => this.byteOf.set(token, byte));
    const possible = gbnf === undefined ? undefined : grammarBytes(gbnf);
    const seen = new Set<number>();
    const order: number[] = [];
    const add = (t: number | undefined) => {
      const byte = t === undefined ? undefined : this.byteOf.get(t);
      if (byte !== undefined && possible !== undefined && possible[byte] !== 1) return;
      if (t !== undefined && !seen.has(t)) {
        seen.add(t);
        order.push(t);
      }
    };
    for (const b of COMMON_FIRST) add(bytes[b]);
    for (let b = 0; b < bytes.length; b++) add(bytes[b]);
    for (const t of specialTokens) add(t);
    add(tables.eog);
    this.order = order;
  }

  /** Whether jump-forward can run at all (the vocabulary is byte-level). */
  get usable(): boolean {
    return this.tables.byteTokens !== undefined;
  }

  /** The single allowed next token, or undefined when none or several are allowed. */
  private single(state: LlamaGrammarEvaluationState): number | undefined {
    let found: number | undefined;
    for (const token of this.order) {
      if (!this.probe(state, token)) continue;
      if (found !== undefined) return undefined;
      found = token;
    }
    return found;
  }

  /**
   * The forced run from `state` (not modified), up to `maxSteps` steps. Empty when the next step is free.
   */
  forcedRun(state: LlamaGrammarEvaluationState, maxSteps: number): ForcedRun {
    const walk = new Walk(state);
    const ends = this.advanceForced(walk, maxSteps, undefined);
    return { pieces: walk.finish(), ends };
  }

  /**
   * A completion of the current call, for when the budget runs out: forced runs, and at each free position the
   * first of `closers` (token sequences, e.g. the bytes of `"`) the grammar accepts. Ends once `stopToken` (the
   * close tag) is accepted or the grammar can only end; undefined when no closer applies within `maxSteps`.
   */
  closure(state: LlamaGrammarEvaluationState, closers: readonly (readonly number[])[], stopToken: number, maxSteps: number): ForcedRun | undefined {
    if (!this.usable) return undefined;
    const walk = new Walk(state);
    for (let step = 0; step < maxSteps; step++) {
      if (this.advanceForced(walk, maxSteps, stopToken)) return { pieces: walk.finish(), ends: true };
      if (walk.stopped) return { pieces: walk.finish(), ends: true };
      // A closer, else any allowed ASCII step (e.g. a letter of a tool name), in probe order.
      const closer =
        closers.find((list) => {
          const trial = walk.state.clone();
          return list.every((token) => acceptForced(trial, token));
        }) ?? this.anyAsciiStep(walk.state);
      if (!closer) return undefined;
      for (const token of closer) {
        acceptForced(walk.mutable(), token);
        walk.push(token, this.byteOf.get(token));
        if (token === stopToken) return { pieces: walk.finish(), ends: true };
      }
    }
    return undefined;
  }

  /** The first allowed single-byte ASCII token (as a one-token step), in probe order. */
  private anyAsciiStep(state: LlamaGrammarEvaluationState): number[] | undefined {
    const token = this.order.find((t) => {
      const byte = this.byteOf.get(t);
      return byte !== undefined && byte < 0x80 && this.probe(state, t);
    });
    return token === undefined ? undefined : [token];
  }

  private probe(state: LlamaGrammarEvaluationState, token: number): boolean {
    this.probes++;
    return canBeNext(state, token);
  }

  /** Advance `walk` through forced steps; true when the grammar can only end there. */
  private advanceForced(walk: Walk, maxSteps: number, stopToken: number | undefined): boolean {
    for (let step = 0; step < maxSteps && !walk.stopped; step++) {
      const token = this.single(walk.state);
      if (token === undefined) return false;
      if (token === this.tables.eog) return true;
      const byte = this.byteOf.get(token);
      if (byte !== undefined && byte >= 0x80) return false; // a multi-byte character: left to sampling
      if (!acceptForced(walk.mutable(), token)) return false;
      walk.push(token, byte);
      if (token === stopToken) walk.stopped = true;
    }
    return false;
  }
}

/** A walk over a grammar state: the first change clones it, so the caller's state is never modified. */
class Walk {
  private cloned = false;
  private text = "";
  private readonly pieces: ForcedPiece[] = [];
  stopped = false;

  constructor(public state: LlamaGrammarEvaluationState) {}

  mutable(): LlamaGrammarEvaluationState {
    if (!this.cloned) {
      this.state = this.state.clone();
      this.cloned = true;
    }
    return this.state;
  }

  push(token: number, byte: number | undefined): void {
    if (byte !== undefined) {
      this.text += String.fromCharCode(byte);
      return;
    }
    if (this.text) this.pieces.push({ kind: "text", text: this.text });
    this.text = "";
    this.pieces.push({ kind: "special", token });
  }

  finish(): ForcedPiece[] {
    if (this.text) this.pieces.push({ kind: "text", text: this.text });
    this.text = "";
    return this.pieces;
  }
}
