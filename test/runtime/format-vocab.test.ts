// Special ids differ per vocabulary (Qwen3's `<tool_call>` is 151657, Qwen3.5's 248058): a runtime refuses a
// format whose forced tags the loaded model spells otherwise, and detects the right one from the chat template.

import { afterAll, describe, expect, it } from "vitest";
import { hermes, qwen35 } from "../../src/formats/index.js";
import { createRuntime, type Runtime } from "../../src/index.js";
import { mismatchedTag } from "../../src/runtime/format-vocab.js";
import { qtcFailure } from "../helpers/errors.js";
import { tinyModelPath, tinyQwen35ModelPath } from "../helpers/models.js";

const opened: Runtime[] = [];
afterAll(async () => {
  for (const rt of opened) await rt.close();
});

describe("a format's tag ids against the model's vocabulary", () => {
  it("mismatchedTag names the first tag the vocabulary spells otherwise", () => {
    const qwen3Spelling = (id: number) => (id === 151657 ? "<tool_call>" : id === 151658 ? "</tool_call>" : id === 151667 ? "<think>" : id === 151668 ? "</think>" : "x");
    expect(mismatchedTag(hermes, qwen3Spelling, 151936)).toBeUndefined();
    expect(mismatchedTag(qwen35, qwen3Spelling, 151936)).toEqual({ tag: qwen35.open, spelled: "(no such token)" });
  });

  it("the Qwen3.5 stand-in is detected as qwen35; forcing hermes on it is refused with unsupported_model", async () => {
    const path = await tinyQwen35ModelPath();
    const rt = await createRuntime({ model: path, threads: 1, contextSize: 512 });
    opened.push(rt);
    expect(rt.format).toBe("qwen35");
    expect((await qtcFailure(createRuntime({ model: path, threads: 1, contextSize: 512, format: "hermes" }))).code).toBe("unsupported_model");
    // Per request too: a request naming another vocabulary's format is refused before anything is forced.
    expect((await qtcFailure(rt.generate({ messages: [{ role: "user", content: "hi" }], format: "qwen3coder", maxTokens: 4 }))).code).toBe("unsupported_model");
  });

  it("the Qwen3 model refuses qwen35 (its ids are not in a 151,936-token vocabulary)", async () => {
    expect((await qtcFailure(createRuntime({ model: await tinyModelPath(), threads: 1, contextSize: 512, format: "qwen35" }))).code).toBe("unsupported_model");
  });
});
