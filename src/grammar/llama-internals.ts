// Owns: the few internal node-llama-cpp 3.21 calls the grammar stage relies on (pinned version): asking llama.cpp's
// grammar engine whether a token may come next, advancing it by a token, and reading a token's stored text
// and attributes. Nothing else in qtc's grammar stage touches node-llama-cpp internals.

import type { LlamaGrammarEvaluationState, LlamaModel } from "node-llama-cpp";

interface SamplerStatics {
  acceptGrammarEvaluationStateToken(state: unknown, token: number): void;
  canBeNextTokenForGrammarEvaluationState(state: unknown, token: number): boolean;
}

interface StateInternals {
  _llama: { _bindings: { AddonSampler: SamplerStatics } };
  _state: unknown;
}

interface ModelInternals {
  _model: { getTokenString(token: number): string; getTokenAttributes(token: number): number };
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

/** The token's text as stored in the vocabulary (byte-level BPE pieces use GPT-2's byte-to-character map). */
export function tokenString(model: LlamaModel, token: number): string {
  return (model as unknown as ModelInternals)._model.getTokenString(token);
}

/** llama.cpp token attribute bits (LLAMA_TOKEN_ATTR_*). */
export const TOKEN_ATTR = { normal: 1 << 2, control: 1 << 3, userDefined: 1 << 4, byte: 1 << 5 } as const;

export function tokenAttributes(model: LlamaModel, token: number): number {
  return (model as unknown as ModelInternals)._model.getTokenAttributes(token);
}
