// Owns: the few internal node-llama-cpp 3.21 calls the grammar stage relies on (pinned version): asking llama.cpp's
// grammar engine whether a token may come next, and advancing it by a token. Nothing else in qtc's grammar stage
// touches node-llama-cpp internals (a token's stored text and attributes are read in src/model/token-bytes.ts).

import type { LlamaGrammarEvaluationState } from "node-llama-cpp";

interface SamplerStatics {
  acceptGrammarEvaluationStateToken(state: unknown, token: number): void;
  canBeNextTokenForGrammarEvaluationState(state: unknown, token: number): boolean;
}

interface StateInternals {
  _llama: { _bindings: { AddonSampler: SamplerStatics } };
  _state: unknown;
}

/** Whether llama.cpp's grammar engine lets `token` come next (for an end-of-generation token: may end here). */
export function canBeNext(state: LlamaGrammarEvaluationState, token: number): boolean {
  const s = state as unknown as StateInternals;
  return s._llama._bindings.AddonSampler.canBeNextTokenForGrammarEvaluationState(s._state, token);
}

/** Advance the grammar state by a token it allows (never an end-of-generation token). */
export function accept(state: LlamaGrammarEvaluationState, token: number): void {
  const s = state as unknown as StateInternals;
  s._llama._bindings.AddonSampler.acceptGrammarEvaluationStateToken(s._state, token);
}
