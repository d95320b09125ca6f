// Owns: the exact bytes each token stands for (byte-level BPE pieces decoded through GPT-2's byte map; added
// tokens as their UTF-8 text), read with the internal node-llama-cpp 3.21 calls for a token's stored text and
// attributes (pinned version), and the tokens that could smuggle an overlong UTF-8 sequence past llama.cpp's
// grammar engine.

import type { LlamaModel } from "node-llama-cpp";
import { byteSymbols } from "./byte-level.js";

interface ModelInternals {
  _model: { getTokenString(token: number): string; getTokenAttributes(token: number): number };
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

/** GPT-2 byte-level BPE: each byte 0..255 is stored as one printable character; this maps it back. */
function byteDecoder(): Map<number, number> {
  return new Map(byteSymbols().map((symbol, byte) => [symbol.codePointAt(0)!, byte]));
}

/** Reads token bytes of one model (the byte map is built once per reader). */
export class TokenBytes {
  private readonly decoder = byteDecoder();

  constructor(private readonly model: LlamaModel) {}

  /** The bytes a token stands for. */
  of(token: number): Uint8Array {
    const text = tokenString(this.model, token);
    const attrs = tokenAttributes(this.model, token);
    if (attrs & (TOKEN_ATTR.control | TOKEN_ATTR.userDefined)) return new TextEncoder().encode(text);
    const out: number[] = [];
    for (const ch of text) {
      const b = this.decoder.get(ch.codePointAt(0)!);
      if (b === undefined) return new TextEncoder().encode(text);
      out.push(b);
    }
    return Uint8Array.from(out);
  }
}

/**
 * Tokens llama.cpp's grammar engine could let through as part of an overlong UTF-8 sequence: its partial-
 * sequence check rejects overlong 2-byte leads but not `E0 80–9F …` or `F0 80–8F …`. Those need a lead byte
 * E0/F0 at the end of one token followed by a bad continuation, or inside one token. Banning these tokens
 * (a token bias of -Infinity) keeps every constrained output valid UTF-8; valid text never needs them, because
 * such a lead byte is always available together with its next byte in one token.
 */
export function unsafeUtf8Tokens(model: LlamaModel, vocabularySize: number): number[] {
  const reader = new TokenBytes(model);
  const out: number[] = [];
  for (let t = 0; t < vocabularySize; t++) {
    const b = reader.of(t);
    for (let i = 0; i < b.length; i++) {
      const lead = b[i]!;
      if (lead !== 0xe0 && lead !== 0xf0) continue;
      const next = b[i + 1];
      if (next === undefined || (lead === 0xe0 && next >= 0x80 && next <= 0x9f) || (lead === 0xf0 && next >= 0x80 && next <= 0x8f)) {
        out.push(t);
        break;
      }
    }
  }
  return out;
}
