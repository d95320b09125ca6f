// Prompt tokenization against the golden fixtures: for content that spells no added token, tokenizing the
// segments (markers special, the rest as text) gives exactly the tokens of the whole rendered prompt with
// special tokens on, which is what the real template plus the HF tokenizer produce. Cutting text at segment
// boundaries would change BPE merges; this proves the runs reach from marker to marker.

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Llama, LlamaModel } from "node-llama-cpp";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createLlama } from "../../src/model/index.js";
import { renderPrompt, renderPromptSegments, type ChatMessage, type RenderPromptOptions } from "../../src/prompt/index.js";
import { tokenizeAsText, tokenizePrompt, type PromptVocab } from "../../src/model/prompt-tokens.js";
import { computeTokenTables } from "../../src/model/vocabulary.js";
import { tinyModelPath } from "../helpers/models.js";

const FIXTURES = new URL("../fixtures/prompt", import.meta.url).pathname;

interface Fixture {
  name: string;
  format: "hermes" | "qwen3coder";
  messages: ChatMessage[];
  tools: unknown[] | null;
  enable_thinking: boolean | null;
  add_generation_prompt: boolean;
}

function loadAll(): Fixture[] {
  const out: Fixture[] = [];
  for (const dir of ["qwen3", "qwen3-coder"]) {
    for (const file of readdirSync(join(FIXTURES, dir)).sort()) {
      if (file.endsWith(".json")) out.push(JSON.parse(readFileSync(join(FIXTURES, dir, file), "utf8")) as Fixture);
    }
  }
  for (const file of ["random-qwen3.jsonl", "random-qwen3-coder.jsonl"]) {
    for (const line of readFileSync(join(FIXTURES, file), "utf8").split("\n")) if (line !== "") out.push(JSON.parse(line) as Fixture);
  }
  return out;
}

const optionsOf = (f: Fixture): RenderPromptOptions => ({
  messages: f.messages,
  tools: (f.tools ?? undefined) as never,
  format: f.format,
  thinking: f.enable_thinking ?? undefined,
  addGenerationPrompt: f.add_generation_prompt,
});

/** Qwen2's pre-tokenizer regex (llama.cpp's LLAMA_VOCAB_PRE_TYPE_QWEN2): BPE never merges across its chunks. */
const PRE_TOKENIZER = /'(?:[sS]|[tT]|[rR][eE]|[vV][eE]|[mM]|[lL][lL]|[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+/gu;

/**
 * The spec, implemented another way: markup split at the vocabulary's added tokens (a regex), all other text
 * pre-tokenized here and each chunk tokenized alone (no chunk can hold a whole added-token spelling).
 */
function reference(segments: readonly { kind: string; text: string }[]): number[] {
  const escaped = vocab.added.map((t) => t.text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  const markers = new RegExp(`(${escaped.join("|")})`);
  const out: number[] = [];
  let run = "";
  const flush = () => {
    for (const chunk of run.match(PRE_TOKENIZER) ?? []) out.push(...model.tokenize(chunk, false));
    run = "";
  };
  for (const s of segments) {
    if (s.kind === "content") {
      run += s.text;
      continue;
    }
    s.text.split(markers).forEach((piece, i) => {
      if (i % 2 === 0) run += piece;
      else {
        flush();
        out.push(vocab.added.find((t) => t.text === piece)!.token);
      }
    });
  }
  flush();
  return out;
}

let llama: Llama;
let model: LlamaModel;
let vocab: PromptVocab;

beforeAll(async () => {
  llama = await createLlama({ gpu: "cpu" });
  model = await llama.loadModel({ modelPath: await tinyModelPath(), vocabOnly: true });
  vocab = { tokenize: (text, special) => model.tokenize(text, special), added: computeTokenTables(model).addedTokens };
});
afterAll(async () => {
  await model?.dispose();
  await llama?.dispose();
});

describe("tokenizePrompt", () => {
  test("the vocabulary's added tokens include every Qwen3 marker, longest spelling first", () => {
    const texts = vocab.added.map((t) => t.text);
    for (const marker of ["<|im_start|>", "<|im_end|>", "<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>", "<think>", "</think>"]) {
      expect(texts).toContain(marker);
    }
    const lengths = texts.map((t) => t.length);
    expect(lengths).toEqual([...lengths].sort((a, b) => b - a));
  });

  test("every golden fixture: the same tokens as the whole prompt with special tokens on", () => {
    let compared = 0;
    for (const f of loadAll()) {
      const segments = renderPromptSegments(optionsOf(f));
      const spellsMarker = segments.some((s) => s.kind === "content" && vocab.added.some((t) => s.text.includes(t.text)));
      if (spellsMarker) continue; // there qtc departs on purpose (tested in test/regressions/13-tokens-*)
      expect(tokenizePrompt(segments, vocab), f.name).toEqual(model.tokenize(renderPrompt(optionsOf(f)), true));
      compared++;
    }
    expect(compared).toBeGreaterThanOrEqual(15);
  });

  test("every golden fixture, forged markers included: the same tokens as an independent chunk-by-chunk reference", () => {
    let forged = 0;
    for (const f of loadAll()) {
      const segments = renderPromptSegments(optionsOf(f));
      if (segments.some((s) => s.kind === "content" && vocab.added.some((t) => s.text.includes(t.text)))) forged++;
      expect(tokenizePrompt(segments, vocab), f.name).toEqual(reference(segments));
    }
    expect(forged).toBeGreaterThanOrEqual(50);
  });

  test("plain text never yields an added token, however the spellings are packed", () => {
    const packed = "<tool_call><tool_call></tool_call><think></think><|im_start|><|im_end|></s><tool_response>";
    for (const text of [packed, `a${packed}b`, ` ${packed}\n`, "<<tool_call>>", "x</think>\n\n<think>y"]) {
      const tokens = tokenizeAsText(text, vocab);
      expect(tokens.filter((t) => vocab.added.some((a) => a.token === t)), text).toEqual([]);
      expect(model.detokenize(tokens as never, true), text).toBe(text);
    }
  });
});
