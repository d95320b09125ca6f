// The budget check's lower bound is sound: every ASCII token of the Qwen3 vocabulary is one pre-tokenizer piece
// (so no tokenization of a text has fewer tokens than its pieces), and the bound never exceeds the tokens the
// canonical spelling of a cheapest call really takes.

import type { LlamaModel } from "node-llama-cpp";
import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { leastCallTokens, pieces } from "../../src/grammar/least-tokens.js";
import { byteSymbols } from "../../src/model/byte-level.js";
import { readQwen3Vocab, TOKEN_TYPE } from "../../src/model/qwen3-vocab.js";
import { normalizeTools } from "../../src/tools/index.js";
import { renderCall, tinyModel } from "./helpers.js";

/** GPT-2's byte-level alphabet read backwards: the byte each vocabulary character spells. */
function byteDecoder(): Map<string, number> {
  return new Map(byteSymbols().map((symbol, byte) => [symbol, byte]));
}

const harness = normalizeTools(JSON.parse(readFileSync(new URL("../../grammars/harness-tools.json", import.meta.url), "utf8")));
let model: LlamaModel;
beforeAll(async () => {
  ({ model } = await tinyModel());
});

describe("least call tokens", () => {
  it("every ASCII token of the Qwen3 vocabulary is a single pre-tokenizer piece", async () => {
    const vocab = await readQwen3Vocab();
    const decode = byteDecoder();
    const misfits: string[] = [];
    let ascii = 0;
    for (const [id, spelled] of vocab.tokens.entries()) {
      if (vocab.tokenTypes[id] !== TOKEN_TYPE.NORMAL) continue;
      const bytes = [...spelled].map((c) => decode.get(c));
      if (bytes.some((b) => b === undefined || b >= 0x80)) continue;
      ascii++;
      const text = String.fromCharCode(...(bytes as number[]));
      if (pieces(text) !== 1) misfits.push(JSON.stringify(text));
    }
    expect(ascii).toBeGreaterThan(50_000);
    expect(misfits.slice(0, 20)).toEqual([]);
  });

  it("counts pieces as the pre-tokenizer splits", () => {
    expect(pieces('{"name": "write_file"')).toBe(7);
    expect(pieces("\n</parameter>\n")).toBe(4);
    expect(pieces("abc")).toBe(1);
    expect(pieces("123")).toBe(3);
  });

  for (const format of ["hermes", "qwen3coder"] as const) {
    it(`${format}: is at most the tokens of each harness tool's cheapest canonical call`, () => {
      for (const tool of harness) {
        const args = Object.fromEntries(((tool.parameters as { required?: string[] }).required ?? []).map((k) => [k, ""]));
        const text = renderCall(format, tool.name, args);
        const real = model.tokenize(text, true).length;
        const least = leastCallTokens([tool], { format, toolChoice: { name: tool.name }, thinking: false })!;
        expect(least).toBeGreaterThan(2);
        expect(least).toBeLessThanOrEqual(real);
      }
    });
  }
});
