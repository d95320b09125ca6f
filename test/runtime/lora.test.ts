// A LoRA adapter (a model-level fix) is applied by the runtime, so the bench's constrained and unconstrained
// rows can compare an adapter against its base model.

import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createRuntime, type GenerateRequest, type Runtime } from "../../src/index.js";
import { modelsDir } from "../../src/model/index.js";
import { tinyLoraPath } from "../bench/synthetic-lora.js";
import { tinyModelPath } from "../helpers/models.js";

let base: Runtime;
let adapted: Runtime;
let lora: string;
const req: GenerateRequest = { messages: [{ role: "user", content: "List the files." }], mode: "unconstrained", maxTokens: 24, seed: 5 };

beforeAll(async () => {
  const model = await tinyModelPath();
  lora = await tinyLoraPath(path.join(modelsDir(), "test-lora"));
  base = await createRuntime({ model, threads: 1, contextSize: 512 });
  adapted = await createRuntime({ model, threads: 1, contextSize: 512, lora });
});
afterAll(async () => {
  await base?.close();
  await adapted?.close();
});

describe("LoRA adapters", () => {
  test("the runtime applies the adapter: same seed, different text; the settings name it", async () => {
    expect(adapted.settings.lora).toBe(lora);
    expect(base.settings.lora).toBeUndefined();
    const [a, b, again] = [await base.generate(req), await adapted.generate(req), await base.generate(req)];
    expect(again.raw).toBe(a.raw);
    expect(b.raw).not.toBe(a.raw);
  });

  test("a constrained call through the adapter is still valid", async () => {
    const r = await adapted.generate({
      ...req,
      mode: "constrained",
      toolChoice: "required",
      maxTokens: 96,
      tools: [{ name: "read_file", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } }],
    });
    expect(r.errors).toEqual([]);
    expect(r.toolCalls.length).toBeGreaterThanOrEqual(1);
    expect(r.toolCalls[0]!.name).toBe("read_file");
  });
});
