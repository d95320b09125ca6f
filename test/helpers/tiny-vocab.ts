// Owns: the synthetic tiny model's vocabulary for tests that run the qtc engine without a runtime: the model
// (vocabulary only), its token tables and the engine's view of them, made before a file's tests and freed after.
import type { Llama, LlamaModel } from "node-llama-cpp";
import { afterAll, beforeAll } from "vitest";
import { createLlama } from "../../src/model/index.js";
import { EngineVocab } from "../../src/engine/engine-vocab.js";
import type { TokenTables } from "../../src/engine/token-tables.js";
import { readVocabulary } from "../../src/model/vocabulary.js";
import { tinyModelPath } from "./models.js";

export interface TinyVocab {
  model: LlamaModel;
  tables: TokenTables;
  engine: EngineVocab;
}

/** The tiny model's vocabulary for the test file (read once its `beforeAll` ran). */
export function useTinyVocab(): () => TinyVocab {
  let llama: Llama | undefined;
  let vocab: TinyVocab | undefined;
  beforeAll(async () => {
    llama = await createLlama({ gpu: "cpu" });
    const model = await llama.loadModel({ modelPath: await tinyModelPath(), vocabOnly: true });
    const { tables, engine } = readVocabulary(model);
    vocab = { model, tables, engine: engine! };
  });
  afterAll(async () => {
    await vocab?.model.dispose();
    await llama?.dispose();
  });
  return () => vocab!;
}
