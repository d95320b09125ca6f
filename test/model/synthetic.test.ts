import { createHash } from "node:crypto";
import { copyFile, mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readGgufFileInfo } from "node-llama-cpp";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { writeGguf } from "../../src/model/gguf-writer.js";
import { GGML_TYPE } from "../../src/model/quantize.js";
import { readQwen3ChatTemplate, TOKEN_TYPE } from "../../src/model/qwen3-vocab.js";
import {
  ensureSyntheticModel,
  isSyntheticMetadata,
  isSyntheticModel,
  readSyntheticInfo,
  writeSyntheticModel,
} from "../../src/model/synthetic.js";
import { tinyModelPath } from "../helpers/models.js";

const sha256 = async (path: string): Promise<string> => createHash("sha256").update(await readFile(path)).digest("hex");

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "qtc-synth-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("determinism", () => {
  test("same seed → byte-identical file; another seed → a different one", async () => {
    const cached = await tinyModelPath();
    const again = await writeSyntheticModel({ shape: "tiny", seed: 0, out: join(dir, "seed0.gguf") });
    const other = await writeSyntheticModel({ shape: "tiny", seed: 1, out: join(dir, "seed1.gguf") });
    expect(again.sha256).toBe(await sha256(cached));
    expect(again.sha256).toBe(await sha256(again.path));
    expect(other.sha256).not.toBe(again.sha256);
    expect(other.bytes).toBe(again.bytes);
  });
});

describe("the tiny model's GGUF contents", () => {
  let info: Awaited<ReturnType<typeof readGgufFileInfo>>;
  let meta: Record<string, Record<string, unknown>>;
  beforeAll(async () => {
    info = await readGgufFileInfo(await tinyModelPath(), { sourceType: "filesystem", logWarnings: false });
    meta = info.metadata as unknown as Record<string, Record<string, unknown>>;
  });

  test("is about 16 MB", async () => {
    const { size } = await stat(await tinyModelPath());
    expect(size).toBeGreaterThan(15_000_000);
    expect(size).toBeLessThan(17_500_000);
  });

  test("architecture, names and the synthetic marks", () => {
    expect(meta.general).toMatchObject({ architecture: "qwen3", name: "qtc-synthetic-tiny", file_type: 7 });
    expect(meta.qtc).toMatchObject({ synthetic: true, synthetic_shape: "tiny", synthetic_dtype: "q8_0", synthetic_seed: 0 });
    expect(isSyntheticMetadata(info.metadata)).toBe(true);
    expect(meta.qwen3).toEqual({
      context_length: 40960,
      embedding_length: 64,
      block_count: 2,
      feed_forward_length: 192,
      attention: { head_count: 2, head_count_kv: 1, key_length: 32, value_length: 32, layer_norm_rms_epsilon: expect.closeTo(1e-6, 12) },
      rope: { freq_base: 1e6 },
    });
  });

  test("tokenizer: gpt2/qwen2, 151,936 tokens with the Facts' types, merges, special ids, real template", async () => {
    const tok = meta.tokenizer as { ggml: Record<string, unknown>; chat_template: string };
    expect(tok.ggml.model).toBe("gpt2");
    expect(tok.ggml.pre).toBe("qwen2");
    const tokens = tok.ggml.tokens as string[];
    const types = tok.ggml.token_type as number[];
    expect(tokens.length).toBe(151936);
    expect(types.length).toBe(151936);
    const count = (t: number) => types.filter((x) => x === t).length;
    expect(count(TOKEN_TYPE.NORMAL)).toBe(151643);
    expect(count(TOKEN_TYPE.CONTROL)).toBe(20); // the 20 added tokens spelled <|…|>
    expect(count(TOKEN_TYPE.USER_DEFINED)).toBe(6);
    expect(count(TOKEN_TYPE.UNUSED)).toBe(151936 - 151669);
    expect([tokens[151643], types[151643]]).toEqual(["<|endoftext|>", TOKEN_TYPE.CONTROL]);
    expect([tokens[151645], types[151645]]).toEqual(["<|im_end|>", TOKEN_TYPE.CONTROL]);
    expect([tokens[151659], types[151659]]).toEqual(["<|fim_prefix|>", TOKEN_TYPE.CONTROL]);
    expect([tokens[151657], types[151657]]).toEqual(["<tool_call>", TOKEN_TYPE.USER_DEFINED]);
    expect([tokens[151668], types[151668]]).toEqual(["</think>", TOKEN_TYPE.USER_DEFINED]);
    expect([tokens[151669], types[151669]]).toEqual(["[PAD151669]", TOKEN_TYPE.UNUSED]);
    expect(tokens[151935]).toBe("[PAD151935]");
    expect([tokens[198], tokens[220]]).toEqual(["Ċ", "Ġ"]);
    const merges = tok.ggml.merges as string[];
    expect(merges.length).toBe(151387);
    expect(merges.slice(0, 2)).toEqual(["Ġ Ġ", "ĠĠ ĠĠ"]);
    expect(tok.ggml).toMatchObject({ eos_token_id: 151645, bos_token_id: 151643, padding_token_id: 151643, add_bos_token: false });
    expect(tok.chat_template).toBe(await readQwen3ChatTemplate());
  });

  test("tensors: tied embeddings, the per-layer list, 1-D norms in F32, matrices in Q8_0", () => {
    const tensors = info.tensorInfo!.map((t) => [t.name, t.dimensions.map(Number), t.ggmlType]);
    const perLayer = (l: number) => [
      [`blk.${l}.attn_norm.weight`, [64], GGML_TYPE.F32],
      [`blk.${l}.attn_q.weight`, [64, 64], GGML_TYPE.Q8_0],
      [`blk.${l}.attn_k.weight`, [64, 32], GGML_TYPE.Q8_0],
      [`blk.${l}.attn_v.weight`, [64, 32], GGML_TYPE.Q8_0],
      [`blk.${l}.attn_output.weight`, [64, 64], GGML_TYPE.Q8_0],
      [`blk.${l}.attn_q_norm.weight`, [32], GGML_TYPE.F32],
      [`blk.${l}.attn_k_norm.weight`, [32], GGML_TYPE.F32],
      [`blk.${l}.ffn_norm.weight`, [64], GGML_TYPE.F32],
      [`blk.${l}.ffn_gate.weight`, [64, 192], GGML_TYPE.Q8_0],
      [`blk.${l}.ffn_up.weight`, [64, 192], GGML_TYPE.Q8_0],
      [`blk.${l}.ffn_down.weight`, [192, 64], GGML_TYPE.Q8_0],
    ];
    expect(tensors).toEqual([
      ["token_embd.weight", [64, 151936], GGML_TYPE.Q8_0],
      ...perLayer(0),
      ...perLayer(1),
      ["output_norm.weight", [64], GGML_TYPE.F32],
    ]);
  });
});

describe("bad options", () => {
  test.each([
    [{ shape: "huge" }],
    [{ dtype: "q4_k" }],
    [{ seed: -1 }],
    [{ seed: 1.5 }],
    [{ seed: 2 ** 32 }],
  ])("%o is invalid_option", async (bad) => {
    const out = join(dir, "bad.gguf");
    await expect(writeSyntheticModel({ ...(bad as object), out })).rejects.toMatchObject({ code: "invalid_option" });
  });
});

describe("dtypes", () => {
  test.each([
    ["f16", GGML_TYPE.F16, 1],
    ["f32", GGML_TYPE.F32, 0],
  ] as const)("%s: 2-D weights in that type, norms still F32", async (dtype, type, fileType) => {
    const r = await writeSyntheticModel({ shape: "tiny", dtype, out: join(dir, `tiny-${dtype}.gguf`) });
    const info = await readGgufFileInfo(r.path, { sourceType: "filesystem", logWarnings: false });
    expect((info.metadata as unknown as { general: { file_type: number } }).general.file_type).toBe(fileType);
    const types = new Map(info.tensorInfo!.map((t) => [t.name, t.ggmlType]));
    expect(types.get("token_embd.weight")).toBe(type);
    expect(types.get("blk.1.ffn_down.weight")).toBe(type);
    expect(types.get("blk.1.attn_q_norm.weight")).toBe(GGML_TYPE.F32);
    await rm(r.path);
  });
});

describe("ensureSyntheticModel and the synthetic marks", () => {
  test("writes once, then reuses the file", async () => {
    const models = join(dir, "models-a");
    const path = await ensureSyntheticModel("tiny", { modelsDir: models });
    expect(path).toBe(join(models, "synthetic-tiny-q8_0.gguf"));
    const before = await stat(path);
    expect(await ensureSyntheticModel("tiny", { modelsDir: models })).toBe(path);
    expect((await stat(path)).mtimeMs).toBe(before.mtimeMs);
  });

  test("concurrent callers get one complete file", async () => {
    const models = join(dir, "models-b");
    const paths = await Promise.all([ensureSyntheticModel("tiny", { modelsDir: models }), ensureSyntheticModel("tiny", { modelsDir: models })]);
    expect(paths[0]).toBe(paths[1]);
    expect(await sha256(paths[0])).toBe(await sha256(await tinyModelPath()));
  });

  test("a cached file that does not match what was asked for is rewritten", async () => {
    const models = join(dir, "models-a"); // already holds a good file (first test of this block)
    const path = join(models, "synthetic-tiny-q8_0.gguf");
    await copyFile(join(dir, "seed1.gguf"), path); // written by the determinism test: seed 1 under the seed-0 name
    expect((await readSyntheticInfo(path))?.seed).toBe(1);
    await ensureSyntheticModel("tiny", { modelsDir: models });
    expect(await sha256(path)).toBe(await sha256(await tinyModelPath()));
  });

  test("isSyntheticModel tells synthetic files from other GGUFs", async () => {
    expect(await isSyntheticModel(await tinyModelPath())).toBe(true);
    expect(await readSyntheticInfo(await tinyModelPath())).toEqual({ shape: "tiny", dtype: "q8_0", seed: 0, vocabulary: "qwen3", writerVersion: 1 });
    const plain = join(dir, "plain.gguf");
    await writeGguf(plain, [{ key: "general.architecture", value: { type: "string", value: "qwen3" } }], [], () => []);
    expect(await isSyntheticModel(plain)).toBe(false);
    expect(isSyntheticMetadata({ general: { name: "x" } })).toBe(false);
  });
});
