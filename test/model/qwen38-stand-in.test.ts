// `synthetic:qwen3.8-tiny` (issue 51): Qwen3.8's pinned template and Qwen3.5's special tokens on the Qwen3.5
// stand-in vocabulary; the runtime detects the qwen38 format from it and renders Qwen3.8's prompt.

import { readFileSync } from "node:fs";
import { readGgufFileInfo } from "node-llama-cpp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRuntime } from "../../src/engines/index.js";
import { QWEN35_TOKENS } from "../../src/formats/index.js";
import { readSyntheticInfo } from "../../src/model/synthetic.js";
import { resolveModel } from "../../src/model/resolve.js";
import type { Runtime } from "../../src/runtime/runtime.js";
import { TEST_MODELS_DIR, tinyQwen38ModelPath } from "../helpers/models.js";

const TEMPLATE = readFileSync(new URL("../../templates/qwen3.8-27b.jinja", import.meta.url), "utf8");

let runtime: Runtime;
beforeAll(async () => {
  runtime = await createRuntime({ model: await tinyQwen38ModelPath(), threads: 1, contextSize: 1024, gpu: "cpu" });
}, 300_000);
afterAll(async () => {
  await runtime?.close();
});

describe("synthetic:qwen3.8-tiny", () => {
  it("resolves to a stand-in marked with the qwen3.8 vocabulary", async () => {
    const resolved = await resolveModel("synthetic:qwen3.8-tiny", { modelsDir: TEST_MODELS_DIR });
    expect(resolved).toMatchObject({ name: "qtc-synthetic-qwen3.8-tiny", synthetic: true });
    expect((await readSyntheticInfo(resolved.path))?.vocabulary).toBe("qwen3.8");
  });

  it("carries Qwen3.8's template byte for byte and Qwen3.5's end-of-turn id; the runtime detects qwen38 from it", async () => {
    const info = await readGgufFileInfo(await tinyQwen38ModelPath(), { readTensorInfo: false });
    const tok = info.metadata.tokenizer as unknown as { ggml: Record<string, unknown>; chat_template: string };
    expect(tok.chat_template).toBe(TEMPLATE);
    expect(tok.ggml.eos_token_id).toBe(QWEN35_TOKENS.imEnd.token);
    const tokens = tok.ggml.tokens as string[];
    for (const tag of [QWEN35_TOKENS.thinkOpen, QWEN35_TOKENS.thinkClose, QWEN35_TOKENS.toolCallOpen, QWEN35_TOKENS.imEnd]) expect(tokens[tag.token]).toBe(tag.text);
    expect(runtime.format).toBe("qwen38");
  });

  it("a request's reasoning level and preserve_thinking change the prompt it evaluates", () => {
    const messages = [
      { role: "user" as const, content: "First" },
      { role: "assistant" as const, content: "Old", reasoning_content: "old trace about many things" },
      { role: "user" as const, content: "Second" },
    ];
    const count = (o: object) => runtime.countTokens({ messages, thinking: true, ...o });
    expect(count({ reasoningEffort: "low" })).toBeLessThan(count({ reasoningEffort: "xhigh" }));
    expect(count({ reasoningEffort: "medium" })).toBeLessThan(count({ reasoningEffort: "low" }));
    expect(count({ preserveThinking: false })).toBeLessThan(count({ preserveThinking: true }));
  });
});
