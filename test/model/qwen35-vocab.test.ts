// The Qwen3.5 layout over merges by the rank rule, end to end: a vocabulary rebuilt from Qwen3's merges with
// gaps written as a GGUF, loaded by llama.cpp, tokenizes every text to the approximate stand-in's tokens (same
// merges, same `qwen35` pre-tokenizer) at the ids the gaps move them to. What a stand-in built from Qwen3.5's own
// merges relies on, checked with merges qtc ships.

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Llama, LlamaModel, Token } from "node-llama-cpp";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { QWEN35_ADDED_FIRST, QWEN35_TOKENS } from "../../src/formats/qwen35-tokens.js";
import { createLlama, loadModel } from "../../src/model/load.js";
import { TOKEN_TYPE, readQwen3Vocab } from "../../src/model/qwen3-vocab.js";
import { gapToken } from "../../src/model/qwen35-bpe.js";
import { QWEN35_MORE_ADDED, qwen35Vocab, readQwen35ChatTemplate } from "../../src/model/qwen35-vocab.js";
import { readSyntheticInfo, writeSyntheticModel } from "../../src/model/synthetic.js";
import { tinyQwen35ModelPath } from "../helpers/models.js";

const qwen3 = await readQwen3Vocab();
const MID_GAPS = [300, 5000, 120000];
const filled = 256 + qwen3.merges.length + MID_GAPS.length;
const GAPS = [...MID_GAPS, ...Array.from({ length: QWEN35_ADDED_FIRST - filled }, (_, i) => filled + i)];
const vocab = qwen35Vocab(qwen3, await readQwen35ChatTemplate(), { merges: qwen3.merges, gaps: GAPS });

/** Where each Qwen3 BPE id lands once the gaps are skipped. */
const moved = (id: number): number => id + MID_GAPS.filter((g, i) => g <= id + i).length;

const TEXTS = [
  "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</parameter>\n</function>\n</tool_call>",
  "<think>\nLet me look.\n</think>\n\nDone.",
  'JSON: {"a": [1, 2, {"b": null}], "c": "d\\n"}',
  "    indented\n\t\ttabs\r\nwindows line\n\n\n\nblank lines",
  "你好，世界！ naïve café 🎉",
];

describe("qwen35Vocab over merges with gaps", () => {
  test("gaps are UNUSED placeholders, merges fill the other ids in order, added tokens sit at Qwen3.5's ids", () => {
    expect(vocab.ids).toBe("real");
    expect(vocab.tokens[300]).toBe(gapToken(300));
    expect(vocab.tokenTypes[300]).toBe(TOKEN_TYPE.UNUSED);
    expect(vocab.tokens[301]).toBe(qwen3.tokens[300]);
    expect(vocab.tokens[moved(119999)]).toBe(qwen3.tokens[119999]);
    expect(vocab.tokenTypes[moved(119999)]).toBe(TOKEN_TYPE.NORMAL);
    expect(vocab.tokens[QWEN35_TOKENS.toolCallOpen.token]).toBe("<tool_call>");
    expect(vocab.tokens[QWEN35_TOKENS.imEnd.token]).toBe("<|im_end|>");
    // Qwen3.5's seven added tokens after Qwen3's 26: 248,070 on.
    expect(vocab.tokens.slice(248070, 248077)).toEqual([...QWEN35_MORE_ADDED]);
    expect(vocab.tokenTypes[248070]).toBe(TOKEN_TYPE.CONTROL);
    expect(vocab.tokenTypes[248072]).toBe(TOKEN_TYPE.USER_DEFINED);
    expect(vocab.tokens[248077]).toBe("[PAD248077]");
  });
});

describe("written as a GGUF and loaded by llama.cpp", () => {
  let dir: string;
  let llama: Llama;
  let rebuilt: LlamaModel;
  let approximate: LlamaModel;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "qtc-qwen35-vocab-"));
    const out = join(dir, "rebuilt.gguf");
    await writeSyntheticModel({ out, vocabulary: "qwen3.5", tokenizer: vocab });
    expect((await readSyntheticInfo(out))?.ids).toBe("real");
    llama = await createLlama({ gpu: "cpu" });
    rebuilt = await loadModel(llama, { path: out });
    approximate = await loadModel(llama, { path: await tinyQwen35ModelPath() });
  }, 300_000);
  afterAll(async () => {
    await rebuilt?.dispose();
    await approximate?.dispose();
    await llama?.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  test("the added tokens after Qwen3's are single tokens where the template's text holds them", () => {
    expect(rebuilt.tokenize("<|audio_start|>", true)).toEqual([248070]);
    expect(rebuilt.tokenize("<tts_pad>", true)).toEqual([248072]);
  });

  test.each(TEXTS)("%j: the same tokens, at the ids the gaps move them to", (text) => {
    const want = approximate.tokenize(text, true).map((id) => (id < QWEN35_ADDED_FIRST ? moved(id) : id));
    const got = rebuilt.tokenize(text, true);
    expect(got).toEqual(want);
    expect(rebuilt.detokenize(got as Token[], true)).toBe(text);
  });
});
