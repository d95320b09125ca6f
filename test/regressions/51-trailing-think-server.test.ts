// Issue 51 through the server: a Qwen3.8 stand-in scripted to finish its answer and then open a think block
// ("The answer is yes.<think>" then end of turn) gets the answer back, streamed and not, with thinking on (the
// template opened the think block) and off. The server runs unconstrained: constrained free text bans the think
// tags (src/runtime/turn.ts), so there the model cannot write the trailing `<think>` at all. (The parser cases that
// lost the turn before the fix are in 51-trailing-think.test.ts.)

import { join } from "node:path";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createRuntime } from "../../src/engines/index.js";
import { toByteLevel } from "../../src/model/byte-level.js";
import { modelsDir } from "../../src/model/paths.js";
import { readQwen35Vocab } from "../../src/model/qwen35-vocab.js";
import { writeSyntheticModel } from "../../src/model/synthetic.js";
import type { Runtime } from "../../src/runtime/runtime.js";
import { type Running, start } from "../server/helpers.js";

const SCRIPT_TEXTS = ["The", " answer", " is", " yes", ".", "<think>", "<|im_end|>"];
const LIMIT_MS = 600_000;

let runtime: Runtime;
let server: Running;
let openai: OpenAI;
beforeAll(async () => {
  const out = join(modelsDir(), "synthetic-qwen3.8-tiny-trailing-think-q8_0.gguf");
  const { tokens } = await readQwen35Vocab();
  const script = SCRIPT_TEXTS.map((text) => tokens.indexOf(text.startsWith("<") ? text : toByteLevel(text)));
  expect(script).not.toContain(-1);
  await writeSyntheticModel({ out, vocabulary: "qwen3.8", script });
  runtime = await createRuntime({ model: out, threads: 1, contextSize: 1024, gpu: "cpu" });
  server = await start({ runtime, mode: "unconstrained" });
  openai = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "local", maxRetries: 0 });
}, LIMIT_MS);
afterAll(async () => {
  await server?.app.close();
  await runtime?.close();
});

const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: "Is it?" }];

describe("a trailing <think> after the answer, through qtc serve (synthetic:qwen3.8-tiny, scripted)", () => {
  for (const effort of ["low", "none"] as const) {
    test(`reasoning_effort ${effort}, not streamed: the answer comes back`, async () => {
      expect(runtime.format).toBe("qwen38");
      const r = await openai.chat.completions.create({ model: "m", messages, max_tokens: 32, temperature: 0, reasoning_effort: effort as never });
      expect(r.choices[0]!.message.content).toBe("The answer is yes.");
      expect(r.choices[0]!.finish_reason).toBe("stop");
    }, LIMIT_MS);

    test(`reasoning_effort ${effort}, streamed: the answer comes back`, async () => {
      const stream = await openai.chat.completions.create({ model: "m", messages, max_tokens: 32, temperature: 0, reasoning_effort: effort as never, stream: true });
      let content = "";
      let finish: string | null | undefined;
      for await (const chunk of stream) {
        content += chunk.choices[0]?.delta.content ?? "";
        finish = chunk.choices[0]?.finish_reason ?? finish;
      }
      expect(content).toBe("The answer is yes.");
      expect(finish).toBe("stop");
    }, LIMIT_MS);
  }
});
