// Issue 50: a character that only partial-UTF-8 tokens spell (642 common kanji such as 渋, every ZWJ emoji) gave a
// 500: the engine knew tokens only as whole characters, so a value that must hold one left it no token to continue
// with ("internal error (a bug in qtc)"). The matcher now steps such tokens byte by byte and carries the cut
// character to the next token: the call is made, valid, through the library and the server.

import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createRuntime } from "../../src/engines/index.js";
import type { Runtime } from "../../src/runtime/runtime.js";
import { compileValidators } from "../../src/tools/index.js";
import { tinyModelPath } from "../helpers/models.js";
import { post, type Running, start } from "../server/helpers.js";

const LIMIT_MS = 600_000;
const tool = (name: string, properties: Record<string, object>) => ({
  type: "function" as const,
  function: { name, description: `The ${name} tool`, parameters: { type: "object", properties, required: Object.keys(properties), additionalProperties: false } },
});
const TOOLS = [
  tool("station", { city: { enum: ["渋谷"] } }),
  tool("sign", { text: { type: "string", pattern: "^渋{2,4}谷$" } }),
  tool("family", { emoji: { const: "👨‍👩‍👧" } }),
];
const validators = compileValidators(TOOLS);

let runtime: Runtime;
beforeAll(async () => {
  runtime = await createRuntime({ model: await tinyModelPath(), threads: 2, contextSize: 1024, sequences: 1, gpu: "cpu" });
}, LIMIT_MS);
afterAll(async () => {
  await runtime?.close();
});

describe("values only cut tokens spell", () => {
  test.each(TOOLS.map((t) => [t.function.name, t] as const))("%s: seeds 1-3 each end in a valid call", async (_, t) => {
    for (const seed of [1, 2, 3]) {
      const r = await runtime.generate({ messages: [{ role: "user", content: "go" }], tools: [t], toolChoice: "required", maxTokens: 96, seed, parallel: false });
      expect(r.errors, r.raw).toEqual([]);
      expect(r.toolCalls).toHaveLength(1);
      expect(validators.get(t.function.name)!.validate(r.toolCalls[0]!.parsedArguments)).toBeNull();
      expect(r.raw).not.toContain("\uFFFD");
    }
  }, LIMIT_MS);

  test("keys spelled with such characters never repeat: 12 seeds of a 3–4 member pattern-keyed map, all valid", async () => {
    // The key guard reads token texts, where a cut token shows U+FFFD: before cut tokens were kept out of keys that
    // could repeat, 11 of these 12 seeds wrote a key twice ({"京渋": 3, "京渋": 4}).
    const map = tool("tally", { v: { type: "object", patternProperties: { "^[渋谷東京]{1,2}$": { type: "integer", minimum: 0, maximum: 9 } }, additionalProperties: false, minProperties: 3, maxProperties: 4 } });
    const check = compileValidators([map]).get("tally")!;
    for (let seed = 1; seed <= 12; seed++) {
      const r = await runtime.generate({ messages: [{ role: "user", content: "go" }], tools: [map], toolChoice: "required", maxTokens: 200, seed, parallel: false });
      expect(r.errors, r.raw).toEqual([]);
      expect(r.toolCalls).toHaveLength(1);
      expect(check.validate(r.toolCalls[0]!.parsedArguments)).toBeNull();
    }
  }, LIMIT_MS);

  test("the server answers 200 with the call, not a 500", async () => {
    const server: Running = await start({ runtime, parallel: 1 });
    try {
      const res = await post(`${server.url}/v1/chat/completions`, { model: "m", messages: [{ role: "user", content: "go" }], tools: [TOOLS[0]], tool_choice: "required", max_tokens: 96, seed: 1 });
      expect(res.status).toBe(200);
      const call = res.json.choices[0].message.tool_calls[0].function;
      expect(JSON.parse(call.arguments)).toEqual({ city: "渋谷" });
    } finally {
      await server.app.close();
    }
  }, LIMIT_MS);
});
