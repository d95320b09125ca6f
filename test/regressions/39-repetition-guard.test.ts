// Issue 39, item 3: loops ran to the budget. With " cat" (token 8251) biased +30, a constrained `note{text}` turn
// wrote " cat" about 240 times inside the string until the budget guard closed it (261 tokens). The repetition
// guard now closes the value and the call validly once a short span repeats past its threshold, and says so
// (`repetition_stopped`); with the guard off the loop still runs to the budget; legitimate repetition within the
// threshold (a row of 64 zeros, a 64-digit zero hash) comes back untouched.

import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createRuntime, type GenerateRequest, type Runtime } from "../../src/index.js";
import { RepeatGuard, REPEAT_DEFAULTS } from "../../src/runtime/repeat-guard.js";
import { tinyModelPath } from "../helpers/models.js";

const CAT = 8251;
const NOTE = [{ type: "function" as const, function: { name: "note", parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } } }];
const loop: GenerateRequest = {
  messages: [{ role: "user", content: "Write a note." }],
  tools: NOTE,
  toolChoice: { name: "note" },
  maxTokens: 1000,
  seed: 1,
  logitBias: { [CAT]: 30 },
};

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ model: await tinyModelPath(), threads: 1, contextSize: 2048 });
});
afterAll(async () => {
  await rt?.close();
});

describe("repetition guard (issue 39)", () => {
  test("the +30-bias ' cat' loop ends inside 96 tokens with a valid call and the notice", async () => {
    const result = await rt.generate(loop);
    expect(result.errors).toEqual([]);
    expect(result.toolCalls).toHaveLength(1);
    const text = (result.toolCalls[0]!.parsedArguments as { text: string }).text;
    expect(text).toContain(" cat cat cat");
    expect(result.usage.completionTokens).toBeLessThanOrEqual(96);
    expect(result.finishReason).toBe("tool_calls");
    expect(result.notices).toEqual(["repetition_stopped"]);
  });

  test("off (repeatGuard: false), the same loop runs to the budget and says nothing", async () => {
    const result = await rt.generate({ ...loop, repeatGuard: false });
    expect(result.usage.completionTokens).toBeGreaterThan(200);
    expect(result.notices).toBeUndefined();
  });

  test("free text: a loop ends the turn (finish stop) with the notice", async () => {
    const result = await rt.generate({ ...loop, tools: undefined, toolChoice: undefined });
    expect(result.usage.completionTokens).toBeLessThanOrEqual(96);
    expect(result.finishReason).toBe("stop");
    expect(result.notices).toEqual(["repetition_stopped"]);
  });

  test("legitimate repetition within the threshold is untouched (token ids as the real tokenizer writes them)", () => {
    const zero = 15; // "0"
    const comma = 11; // ","
    const space = 220; // " "
    const row: number[] = [];
    for (let i = 0; i < 64; i++) row.push(zero, ...(i < 63 ? [comma, space] : []));
    const hash = Array<number>(64).fill(zero);
    for (const tokens of [row, hash]) {
      const guard = new RepeatGuard();
      guard.push(tokens);
      expect(guard.tripped()).toBe(false);
    }
    const cats = new RepeatGuard();
    cats.push(Array<number>(REPEAT_DEFAULTS.repeats).fill(CAT));
    expect(cats.tripped()).toBe(true);
  });
});
