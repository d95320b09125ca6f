// Owns: synthetic Qwen3 GGUFs: the real Qwen3 tokenizer and chat template (or the Qwen3.5 stand-in vocabulary and
// Qwen3.5's template) with seeded random weights, written
// deterministically (same options → same bytes), cached once under models/, and recognised again when read.

import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, rename, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { type GgufEntry, type GgufWriteResult, elementCount, writeGguf } from "./gguf-writer.js";
import { readGgufPrefix } from "./gguf-header.js";
import { modelsDir } from "./paths.js";
import { fail } from "../errors.js";
import { seededRandom } from "../random.js";
import { DTYPES, type Dtype, FILE_TYPE_OF_DTYPE, GGML_TYPE_OF_DTYPE, encodeTensorData } from "./quantize.js";
import { QWEN3_SHAPES, SHAPES, type Qwen3Shape, type Qwen3TensorSpec, type ShapeName, qwen3Tensors } from "./qwen3-shapes.js";
import { type Qwen3Vocab, readQwen3Vocab } from "./qwen3-vocab.js";
import { type Qwen35Ids, readQwen35Vocab, readQwen38ChatTemplate } from "./qwen35-vocab.js";
import { qwen35MergesPath } from "./qwen35-data.js";

/** Bumped whenever the bytes a given (shape, dtype, seed) produce change; cached files of older versions are rewritten. */
export const SYNTHETIC_WRITER_VERSION = 1;

/** GGUF keys qtc adds to mark a synthetic model (read back by readSyntheticInfo / isSyntheticMetadata). */
export const SYNTHETIC_KEYS = {
  synthetic: "qtc.synthetic",
  shape: "qtc.synthetic_shape",
  dtype: "qtc.synthetic_dtype",
  seed: "qtc.synthetic_seed",
  version: "qtc.writer_version",
  vocabulary: "qtc.synthetic_vocabulary",
  vocabularyIds: "qtc.synthetic_vocabulary_ids",
} as const;

/**
 * The tokenizers a synthetic model can carry: `qwen3` (Qwen3's, with its template) or `qwen3.5` (Qwen3.5's
 * special ids, vocabulary size, pre-tokenizer and template, and its own BPE when its data is there; see
 * qwen35-vocab.ts), or `qwen3.8` (the Qwen3.5 stand-in vocabulary with Qwen3.8's template and special tokens,
 * until Qwen3.8's own ids are buildable).
 */
export const VOCABULARIES = ["qwen3", "qwen3.5", "qwen3.8"] as const;
export type VocabularyName = (typeof VOCABULARIES)[number];

const READ_VOCABULARY: Readonly<Record<VocabularyName, () => Promise<Qwen3Vocab & { ids?: Qwen35Ids }>>> = {
  qwen3: readQwen3Vocab,
  "qwen3.5": () => readQwen35Vocab(),
  "qwen3.8": async () => ({ ...(await readQwen35Vocab()), chatTemplate: await readQwen38ChatTemplate() }),
};

/** Whether a vocabulary uses Qwen3.5's layout (and so carries real or approximate ids). */
const qwen35Layout = (vocabulary: VocabularyName): boolean => vocabulary !== "qwen3";

/** Which ids a Qwen3.5 stand-in written now carries: real when Qwen3.5's merges are in its data folder. */
export const qwen35IdsNow = (): Qwen35Ids => (qwen35MergesPath() === null ? "approximate" : "real");

export interface SyntheticModelOptions {
  /** Model dimensions. Default: "tiny". */
  shape?: ShapeName;
  /** Encoding of the 2-D weights (norms are always F32). Default: "q8_0". */
  dtype?: Dtype;
  /** Seed of the random weights, 0 to 2^32-1. Default: 0. */
  seed?: number;
  /** Output path. Required for writeSyntheticModel. */
  out: string;
  /** The tokenizer and chat template it carries. Default: "qwen3". */
  vocabulary?: VocabularyName;
  /**
   * The tokenizer itself, in place of the one `vocabulary` names (which still names the file's vocabulary): tests
   * give a Qwen3.5 layout built from other merges. Default: the one `vocabulary` names.
   */
  tokenizer?: Qwen3Vocab & { ids?: Qwen35Ids };
  /**
   * A scripted stand-in instead of random weights: token ids `[t0, t1, …, tn]` such that after any token not in
   * the list the model's top choice is t0, after t(i) it is t(i+1), and after tn every token is equally likely.
   * The layers add nothing (their output matrices are zero) and the LM head is its own tensor; tests use it to
   * make a model write a given text (a bare `<function=` opener) and then sample freely. Default: none.
   */
  script?: readonly number[];
  /**
   * Write a separate `output.weight` (the LM head; seeded like the embedding) instead of tying it to
   * `token_embd`. llama.cpp's training does not update `token_embd`, so a model to be fine-tuned needs its own
   * head to learn which tokens come next. Default: false (tied, like Qwen3-0.6B).
   */
  untiedOutput?: boolean;
}

/** Defaults for synthetic models. */
export const SYNTHETIC_DEFAULTS = {
  /** Default: "tiny". */
  shape: "tiny" as ShapeName,
  /** Default: "q8_0". */
  dtype: "q8_0" as Dtype,
  /** Default: 0. */
  seed: 0,
  /** Default: "qwen3". */
  vocabulary: "qwen3" as VocabularyName,
  /** Values generated per chunk while streaming a tensor. Default: 1,048,576 (4 MiB of float32). */
  chunkValues: 1 << 20,
} as const;

export interface SyntheticModelInfo {
  shape: ShapeName;
  vocabulary: VocabularyName;
  dtype: Dtype;
  seed: number;
  writerVersion: number;
  /** A Qwen3.5 stand-in's ids: Qwen3.5's own BPE ("real") or Qwen3's under its special ids ("approximate"). */
  ids?: Qwen35Ids;
}

export interface SyntheticWriteResult extends GgufWriteResult, SyntheticModelInfo {
  ms: number;
}

/** What names a vocabulary in model and file names: nothing for Qwen3's, `qwen3.5-` for Qwen3.5's. */
const vocabularyPrefix = (vocabulary: VocabularyName): string => (vocabulary === "qwen3" ? "" : `${vocabulary}-`);

/** `general.name` of a synthetic model, e.g. `qtc-synthetic-tiny` or `qtc-synthetic-qwen3.5-tiny`. */
export const syntheticModelName = (shape: ShapeName, vocabulary: VocabularyName = "qwen3"): string => `qtc-synthetic-${vocabularyPrefix(vocabulary)}${shape}`;

/** File name of a cached synthetic model: `synthetic-[qwen3.5-]<shape>-<dtype>.gguf` (seed 0) or `…-s<seed>.gguf`. */
export function syntheticFileName(shape: ShapeName, dtype: Dtype = "q8_0", seed = 0, vocabulary: VocabularyName = "qwen3"): string {
  return `synthetic-${vocabularyPrefix(vocabulary)}${shape}-${dtype}${seed === 0 ? "" : `-s${seed}`}.gguf`;
}

/**
 * Write a synthetic Qwen3 GGUF at `opts.out` (via a temporary file and a rename, so readers never see half a
 * file). Tensors are generated and written chunk by chunk: the 0.6b shape never holds more than one chunk.
 */
export async function writeSyntheticModel(opts: SyntheticModelOptions): Promise<SyntheticWriteResult> {
  const shapeName = opts.shape ?? SYNTHETIC_DEFAULTS.shape;
  const dtype = opts.dtype ?? SYNTHETIC_DEFAULTS.dtype;
  const seed = opts.seed ?? SYNTHETIC_DEFAULTS.seed;
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) fail("invalid_option", `seed must be a whole number from 0 to 2^32-1, got ${seed}`);
  const shape = QWEN3_SHAPES[shapeName];
  if (shape === undefined) fail("invalid_option", `unknown shape "${String(shapeName)}": use ${SHAPES.join(" or ")}`);
  if (!(dtype in GGML_TYPE_OF_DTYPE)) fail("invalid_option", `unknown dtype "${String(dtype)}": use ${DTYPES.join(", ")}`);
  const vocabulary = opts.vocabulary ?? SYNTHETIC_DEFAULTS.vocabulary;
  const readVocabulary = Object.hasOwn(READ_VOCABULARY, vocabulary) ? READ_VOCABULARY[vocabulary] : undefined;
  if (readVocabulary === undefined) fail("invalid_option", `unknown vocabulary "${String(vocabulary)}": use ${VOCABULARIES.join(" or ")}`);
  const started = performance.now();
  const vocab = opts.tokenizer ?? (await readVocabulary());
  const tensors = qwen3Tensors(shape, vocab.tokens.length, GGML_TYPE_OF_DTYPE[dtype]);
  const script = opts.script === undefined ? undefined : checkedScript(opts.script, vocab.tokens.length, shape.hidden);
  if (opts.untiedOutput || script) tensors.push({ ...tensors[0]!, name: "output.weight" });
  const info: SyntheticModelInfo = { shape: shapeName, vocabulary, dtype, seed, writerVersion: SYNTHETIC_WRITER_VERSION, ...(vocab.ids ? { ids: vocab.ids } : {}) };
  const metadata = syntheticMetadata(shape, vocab, info);
  const byName = new Map(tensors.map((t) => [t.name, t]));

  await mkdir(dirname(opts.out), { recursive: true });
  const temp = `${opts.out}.${process.pid}-${randomBytes(4).toString("hex")}.tmp`;
  try {
    const result = await writeGguf(temp, metadata, tensors, (t) => (script ? scriptedChunks(byName.get(t.name)!, script, seed) : tensorChunks(byName.get(t.name)!, seed)));
    await rename(temp, opts.out);
    return { ...result, path: opts.out, ...info, ms: performance.now() - started };
  } catch (e) {
    await rm(temp, { force: true });
    throw e;
  }
}

export interface EnsureSyntheticOptions {
  /** Default: "q8_0". */
  dtype?: Dtype;
  /** Default: 0. */
  seed?: number;
  /** Default: "qwen3". */
  vocabulary?: VocabularyName;
  /** Where the file is cached. Default: modelsDir() (`$QTC_MODELS_DIR`, else the user's cache folder). */
  modelsDir?: string;
}

/**
 * The path of a cached synthetic model, writing it first when it is missing or was written by another writer
 * version. Safe under concurrent callers (each writes its own temp file; the rename is atomic).
 */
export async function ensureSyntheticModel(shape: ShapeName, opts: EnsureSyntheticOptions = {}): Promise<string> {
  const dtype = opts.dtype ?? SYNTHETIC_DEFAULTS.dtype;
  const seed = opts.seed ?? SYNTHETIC_DEFAULTS.seed;
  const vocabulary = opts.vocabulary ?? SYNTHETIC_DEFAULTS.vocabulary;
  const path = join(opts.modelsDir ?? modelsDir(), syntheticFileName(shape, dtype, seed, vocabulary));
  if (existsSync(path)) {
    const found = await readSyntheticInfo(path).catch(() => null);
    const same = found && found.shape === shape && found.vocabulary === vocabulary && found.dtype === dtype && found.seed === seed && (!qwen35Layout(vocabulary) || found.ids === qwen35IdsNow());
    if (same && found.writerVersion === SYNTHETIC_WRITER_VERSION) return path;
  }
  await writeSyntheticModel({ shape, dtype, seed, vocabulary, out: path });
  return path;
}

/** The synthetic-model marks of a GGUF file, or null when it is not a qtc synthetic model. */
export async function readSyntheticInfo(path: string): Promise<SyntheticModelInfo | null> {
  const prefix = await readGgufPrefix(path);
  if (prefix === null || prefix.scalars.get(SYNTHETIC_KEYS.synthetic) !== true) return null;
  const get = (key: string): unknown => prefix.scalars.get(key);
  return {
    shape: get(SYNTHETIC_KEYS.shape) as ShapeName,
    // Files written before the key existed carry Qwen3's tokenizer.
    vocabulary: (get(SYNTHETIC_KEYS.vocabulary) ?? "qwen3") as VocabularyName,
    dtype: get(SYNTHETIC_KEYS.dtype) as Dtype,
    seed: Number(get(SYNTHETIC_KEYS.seed)),
    writerVersion: Number(get(SYNTHETIC_KEYS.version)),
    // Qwen3.5 stand-ins written before the key existed carry Qwen3's merges.
    ...(qwen35Layout((get(SYNTHETIC_KEYS.vocabulary) ?? "qwen3") as VocabularyName) ? { ids: (get(SYNTHETIC_KEYS.vocabularyIds) ?? "approximate") as Qwen35Ids } : {}),
  };
}

/** Whether the GGUF file at `path` is a qtc synthetic model (random weights). */
export async function isSyntheticModel(path: string): Promise<boolean> {
  return (await readSyntheticInfo(path)) !== null;
}

/** Whether parsed GGUF metadata (node-llama-cpp's nested `model.fileInfo.metadata`) marks a synthetic model. */
export function isSyntheticMetadata(metadata: unknown): boolean {
  const qtc = (metadata as { qtc?: { synthetic?: unknown } } | null | undefined)?.qtc;
  return qtc?.synthetic === true;
}

/** The metadata of a synthetic model, in file order. */
function syntheticMetadata(shape: Qwen3Shape, vocab: Qwen3Vocab, info: SyntheticModelInfo): GgufEntry[] {
  const u32 = (value: number) => ({ type: "u32", value }) as const;
  const f32 = (value: number) => ({ type: "f32", value }) as const;
  const str = (value: string) => ({ type: "string", value }) as const;
  return [
    { key: "general.architecture", value: str("qwen3") },
    { key: "general.name", value: str(syntheticModelName(info.shape, info.vocabulary)) },
    { key: SYNTHETIC_KEYS.synthetic, value: { type: "bool", value: true } },
    { key: SYNTHETIC_KEYS.shape, value: str(info.shape) },
    ...(info.vocabulary === "qwen3" ? [] : [{ key: SYNTHETIC_KEYS.vocabulary, value: str(info.vocabulary) }]),
    // Only a real-id stand-in is marked: an approximate one stays byte for byte what it was before the mark existed.
    ...(info.ids === "real" ? [{ key: SYNTHETIC_KEYS.vocabularyIds, value: str(info.ids) }] : []),
    { key: SYNTHETIC_KEYS.dtype, value: str(info.dtype) },
    { key: SYNTHETIC_KEYS.seed, value: u32(info.seed) },
    { key: SYNTHETIC_KEYS.version, value: u32(info.writerVersion) },
    { key: "general.file_type", value: u32(FILE_TYPE_OF_DTYPE[info.dtype]) },
    { key: "general.quantization_version", value: u32(2) },
    { key: "qwen3.context_length", value: u32(shape.contextLength) },
    { key: "qwen3.embedding_length", value: u32(shape.hidden) },
    { key: "qwen3.block_count", value: u32(shape.layers) },
    { key: "qwen3.feed_forward_length", value: u32(shape.ffn) },
    { key: "qwen3.attention.head_count", value: u32(shape.heads) },
    { key: "qwen3.attention.head_count_kv", value: u32(shape.kvHeads) },
    { key: "qwen3.attention.key_length", value: u32(shape.headDim) },
    { key: "qwen3.attention.value_length", value: u32(shape.headDim) },
    { key: "qwen3.rope.freq_base", value: f32(shape.ropeTheta) },
    { key: "qwen3.attention.layer_norm_rms_epsilon", value: f32(shape.rmsEps) },
    { key: "tokenizer.ggml.model", value: str("gpt2") },
    { key: "tokenizer.ggml.pre", value: str(vocab.pre ?? "qwen2") },
    { key: "tokenizer.ggml.tokens", value: { type: "array", of: "string", values: vocab.tokens } },
    { key: "tokenizer.ggml.token_type", value: { type: "array", of: "i32", values: vocab.tokenTypes } },
    { key: "tokenizer.ggml.merges", value: { type: "array", of: "string", values: vocab.merges } },
    { key: "tokenizer.ggml.eos_token_id", value: u32(vocab.eosTokenId) },
    { key: "tokenizer.ggml.padding_token_id", value: u32(vocab.paddingTokenId) },
    { key: "tokenizer.ggml.bos_token_id", value: u32(vocab.bosTokenId) },
    { key: "tokenizer.ggml.add_bos_token", value: { type: "bool", value: false } },
    { key: "tokenizer.chat_template", value: str(vocab.chatTemplate) },
  ];
}

/** How one tensor's synthetic values are drawn: a constant, or uniform noise with a given standard deviation. */
type Init = { kind: "const"; value: number } | { kind: "uniform"; std: number };

/**
 * The weight recipe. Norm weights are ones; matrices get c/sqrt(fan-in), so each layer adds O(1) to the residual
 * stream whatever the width. Embeddings are large (std 1) and the FFN outputs larger still, so each step's
 * hidden state is a random function of the current token and its context rather than an echo of either; the
 * final norm's weight 3/sqrt(hidden) then gives logits (tied to the embeddings) a standard deviation near 3:
 * varied greedy tokens, and a spread sampling can still explore.
 */
export const SYNTHETIC_INIT = {
  /** Std of token embeddings. Default: 1. */
  embeddingStd: 1,
  /** `output_norm` weight times sqrt(hidden). Default: 3. */
  outputNormScale: 3,
  /** Std of `attn_output` times sqrt(fan-in). Default: 0.5. */
  attnOutputScale: 0.5,
  /** Std of `ffn_down` times sqrt(fan-in). Default: 8. */
  ffnDownScale: 8,
} as const;

function initOf(t: Qwen3TensorSpec): Init {
  const k = SYNTHETIC_INIT;
  if (t.role === "embedding") return { kind: "uniform", std: k.embeddingStd };
  if (t.name === "output_norm.weight") return { kind: "const", value: k.outputNormScale / Math.sqrt(t.fanIn) };
  if (t.role === "norm") return { kind: "const", value: 1 };
  const scale = t.name.endsWith("attn_output.weight") ? k.attnOutputScale : t.name.endsWith("ffn_down.weight") ? k.ffnDownScale : 1;
  return { kind: "uniform", std: scale / Math.sqrt(t.fanIn) };
}

/** A tensor's encoded bytes, chunk by chunk, drawn as initOf says from the tensor's own seeded stream. */
function* tensorChunks(t: Qwen3TensorSpec, seed: number): Generator<Buffer> {
  const total = elementCount(t.dims);
  const rowLength = t.dims[0]!;
  const rowsPerChunk = Math.max(1, Math.floor(SYNTHETIC_DEFAULTS.chunkValues / rowLength));
  const chunkLength = rowsPerChunk * rowLength;
  const random = seededRandom(tensorSeed(seed, t.name));
  const init = initOf(t);
  const half = init.kind === "uniform" ? init.std * Math.sqrt(3) : 0; // uniform on [-half, half) has this std
  for (let start = 0; start < total; start += chunkLength) {
    const values = new Float32Array(Math.min(chunkLength, total - start));
    if (init.kind === "const") values.fill(init.value);
    else for (let i = 0; i < values.length; i++) values[i] = (random() * 2 - 1) * half;
    yield encodeTensorData(t.type, values);
  }
}

/** How far the scripted next token leads the others in logits. Default: 40. */
const SCRIPT_LEAD = 40;

function checkedScript(script: readonly number[], vocabSize: number, hidden: number): readonly number[] {
  if (script.length < 1 || script.length >= hidden) fail("invalid_option", `a script holds 1 to ${hidden - 1} tokens, got ${script.length}`);
  if (new Set(script).size !== script.length) fail("invalid_option", "a script names each token once");
  for (const t of script) if (!Number.isInteger(t) || t < 0 || t >= vocabSize) fail("invalid_option", `script token ${t} is not in the vocabulary`);
  return script;
}

/**
 * A scripted model's tensors: each token's embedding is a basis vector (e0 for tokens not in the script, e(i+1)
 * for script[i]); the head row of script[0] is SCRIPT_LEAD·e0 and of script[i+1] SCRIPT_LEAD·e(i+1); attention and
 * FFN outputs are zero, so the hidden state is the current token's embedding and the head picks the next script
 * token (none after the last one). Other matrices are random, norms one.
 */
function* scriptedChunks(t: Qwen3TensorSpec, script: readonly number[], seed: number): Generator<Buffer> {
  const zero = t.name.endsWith("attn_output.weight") || t.name.endsWith("ffn_down.weight");
  const embedding = t.name === "token_embd.weight";
  const head = t.name === "output.weight";
  if (!zero && !embedding && !head) {
    yield* t.name === "output_norm.weight" ? constantChunks(t, 1) : tensorChunks(t, seed);
    return;
  }
  const [rowLength, rows] = [t.dims[0]!, elementCount(t.dims) / t.dims[0]!];
  const position = new Map(script.map((token, i) => [token, i]));
  const rowsPerChunk = Math.max(1, Math.floor(SYNTHETIC_DEFAULTS.chunkValues / rowLength));
  for (let start = 0; start < rows; start += rowsPerChunk) {
    const count = Math.min(rowsPerChunk, rows - start);
    const values = new Float32Array(count * rowLength);
    if (!zero) {
      for (let r = 0; r < count; r++) {
        const id = start + r;
        const i = position.get(id);
        if (embedding) values[r * rowLength + (i === undefined ? 0 : i + 1)] = 1;
        else if (i !== undefined) values[r * rowLength + i] = SCRIPT_LEAD;
      }
    }
    yield encodeTensorData(t.type, values);
  }
}

function* constantChunks(t: Qwen3TensorSpec, value: number): Generator<Buffer> {
  yield encodeTensorData(t.type, new Float32Array(elementCount(t.dims)).fill(value));
}

/** Seed of one tensor's stream: the model seed mixed with an FNV-1a hash of the tensor name. */
function tensorSeed(seed: number, name: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
  return (h ^ Math.imul(seed, 0x9e3779b1)) >>> 0;
}

