// Issue 43 (generating): constrained with thinking on, a call opener sampled in the think phase (forced here
// with a +100 bias on the format's open id) ends thinking there: `</think>` and the blank line are forced in its
// place, the opener follows, and the call continues under the grammar with the budget left. Before, the opener
// went into the reasoning as text again and again until the think budget ended. Hermes and qwen3coder on the
// synthetic tiny Qwen3, qwen35 on the tiny Qwen3.5 stand-in.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { FORMATS } from "../../src/formats/index.js";
import { createRuntime, type GenerateRequest, type Runtime } from "../../src/index.js";
import { HARNESS_TOOLS } from "../../src/harness/index.js";
import { tinyModelPath, tinyQwen35ModelPath } from "../helpers/models.js";

let qwen3: Runtime;
let qwen35: Runtime;
beforeAll(async () => {
  qwen3 = await createRuntime({ model: await tinyModelPath(), threads: 1, contextSize: 1024, sequences: 1 });
  qwen35 = await createRuntime({ model: await tinyQwen35ModelPath(), threads: 1, contextSize: 1024, sequences: 1 });
}, 120_000);
afterAll(async () => {
  await qwen3?.close();
  await qwen35?.close();
});

const messages = [{ role: "user" as const, content: "Read src/index.js." }];
const MARKUP = /<tool_call>|<\/tool_call>|<function=|<parameter=|"arguments"/;

describe("issue 43: a call opener sampled while thinking ends thinking there", () => {
  for (const id of ["hermes", "qwen3coder", "qwen35"] as const) {
    for (const toolChoice of ["auto", "required"] as const) {
      test(`${id}, tool choice ${toolChoice}: one valid call, reasoning without call markup, thinking closed at the opener`, async () => {
        const format = FORMATS[id]!;
        const rt = id === "qwen35" ? qwen35 : qwen3;
        const req: GenerateRequest = {
          messages,
          tools: [...HARNESS_TOOLS],
          format: id,
          toolChoice,
          parallel: false,
          thinking: true,
          thinkingBudget: 64,
          maxTokens: 200,
          seed: 3,
          logitBias: { [format.open.token]: 100 },
        };
        const r = await rt.generate(req);
        expect(r.errors).toEqual([]);
        expect(r.toolCalls).toHaveLength(1);
        expect(r.reasoning ?? "").not.toMatch(MARKUP);
        // The opener was the first token sampled: thinking ended right there, with the template's blank line.
        const close = r.tokens.indexOf(format.think.close.token);
        const open = r.tokens.indexOf(format.open.token);
        expect(close).toBe(format.think.openedByPrompt ? 0 : 1);
        expect(open).toBeGreaterThan(close);
        expect(r.raw).toContain(`${format.think.close.text}\n\n${format.open.text}`);
        expect(r.tokens.filter((t) => t === format.open.token)).toHaveLength(1);
      }, 60_000);
    }
  }
});
