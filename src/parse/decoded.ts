// Owns: what a format decoder returns for one block body: the call's name and arguments, or why not.

import type { CallErrorCode } from "../errors.js";
import type { FormatId } from "../formats/types.js";

export interface DecodedCall {
  format: FormatId;
  name: string;
  /** Arguments already typed (hermes JSON, a qwen3coder JSON body). */
  args?: Record<string, unknown>;
  /** qwen3coder parameter texts, framing stripped, in order; typed later by the tool's schema. */
  texts?: Array<[string, string]>;
}

export interface DecodeFailure {
  reason: CallErrorCode;
  /** Written for the model. */
  message: string;
  name?: string;
  /** The body ended before the call was complete (a cut-off block is `truncated`, a closed one `bad_shape`). */
  incomplete?: boolean;
}

export type Decoded = { ok: true; value: DecodedCall } | { ok: false; error: DecodeFailure };

export const decodeFail = (
  reason: CallErrorCode,
  message: string,
  extra: Partial<DecodeFailure> = {},
): { ok: false; error: DecodeFailure } => ({
  ok: false,
  error: { reason, message, ...extra },
});

/** Index of the first non-whitespace character at or after `i` (or `s.length`). */
export function skipWs(s: string, i: number): number {
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (c !== 32 && c !== 10 && c !== 13 && c !== 9) break;
    i++;
  }
  return i;
}
