// Owns: what a body decoder is (BodySyntax) and what it returns for one block body: the call's name and
// arguments, or why not.

import type { CallErrorCode } from "../errors.js";
import type { CallDiagnostic } from "./types.js";

export interface DecodedCall {
  name: string;
  /** Arguments already typed (hermes JSON, a qwen3coder JSON body). */
  args?: Record<string, unknown>;
  /** qwen3coder parameter texts, framing stripped, in order; typed later by the tool's schema. */
  texts?: Array<[string, string]>;
  /** What the decoder tolerated to read it (surplus or drifted closers). */
  repairs?: CallDiagnostic[];
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

/** What the parser knows about the declared tools while it decodes a body (nothing, without tools). */
export interface DecodeHints {
  /** Function `fn` takes an argument named `param`; undefined when `fn` is not a declared tool. */
  takes?(fn: string, param: string): boolean | undefined;
}

/** One body decoder bound to a format's spelling, with the words its messages use to name its form. */
export interface BodySyntax {
  /** The body, whose first non-space character is at `q`, starts like a call of this form. */
  startsAt(inner: string, q: number): boolean;
  /** @param maxDepth deepest nesting of the arguments (the arguments object is depth 1; see ParseLimits) */
  decode(inner: string, maxDepth: number, hints?: DecodeHints): Decoded;
  /** The function name a broken body seems to give (for messages only; never used to run anything). */
  guessName(text: string): string | undefined;
  /** How to write a call of this form, for a message that says so. */
  instruction: string;
  /** This form, named as one that is not used here (e.g. "the <function=…> form"). */
  formName: string;
  /** This form in a list of the forms a block may hold. */
  summary: string;
}

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
