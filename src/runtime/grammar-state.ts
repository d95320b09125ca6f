// Owns: node-llama-cpp grammar plumbing: GrammarStates, a per-model cache of parsed GBNF grammars handing out
// fresh evaluation states (cloned, not re-parsed), and the two per-token operations the matcher needs on a state:
// "could this token come next?" and "advance past this forced token" (node-llama-cpp's internal binding, typed
// once in src/grammar/llama-internals.ts).

import { LlamaGrammarEvaluationState, type Llama, type LlamaGrammar, type LlamaModel } from "node-llama-cpp";
import { accept, canBeNext } from "../grammar/llama-internals.js";

export { canBeNext };

/**
 * Advance the state past a token that was fed without sampling (forced). Returns false when the grammar
 * rejects it (the state is then unusable).
 */
export function acceptForced(state: LlamaGrammarEvaluationState, token: number): boolean {
  if (!canBeNext(state, token)) return false;
  try {
    accept(state, token);
    return true;
  } catch {
    return false;
  }
}

/**
 * Parsed grammars of one model keyed by GBNF text, each with a pristine state to clone. Bounded LRU, owned by
 * the runtime that creates it.
 */
export class GrammarStates {
  private readonly entries = new Map<string, { grammar: LlamaGrammar; pristine: LlamaGrammarEvaluationState }>();

  constructor(
    private readonly llama: Llama,
    private readonly model: LlamaModel,
    private readonly capacity = 32,
  ) {}

  /** A fresh evaluation state for `gbnf` (parsed once per distinct text). Throws when llama.cpp rejects the GBNF. */
  async stateFor(gbnf: string): Promise<LlamaGrammarEvaluationState> {
    let entry = this.entries.get(gbnf);
    if (entry) {
      this.entries.delete(gbnf);
    } else {
      const grammar = await this.llama.createGrammar({ grammar: gbnf });
      entry = { grammar, pristine: new LlamaGrammarEvaluationState({ model: this.model, grammar }) };
      if (this.entries.size >= this.capacity) {
        const oldest = this.entries.keys().next().value;
        if (oldest !== undefined) this.entries.delete(oldest);
      }
    }
    this.entries.set(gbnf, entry);
    return entry.pristine.clone();
  }
}
