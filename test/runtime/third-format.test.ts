// A format that is no built-in one runs through the runtime unchanged: constrained generations with the synthetic
// tiny model (random weights: whatever it writes under the grammar must still be valid) in the test-only format
// of test/formats/test-format.ts (hermes JSON between `<tool_response>` tags), given as an object to the runtime
// and per request.

import type { Token } from "node-llama-cpp";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { hermes, QWEN3_TOKENS } from "../../src/formats/index.js";
import { HARNESS_TOOLS } from "../../src/harness/index.js";
import { createRuntime, type GenerateOutput, type GenerateRequest, type Runtime } from "../../src/index.js";
import { responseTagsFormat } from "../formats/test-format.js";
import { tinyModelPath } from "../helpers/models.js";

let rt: Runtime;
let hermesRt: Runtime;

beforeAll(async () => {
  const model = await tinyModelPath();
  rt = await createRuntime({ model, threads: 1, contextSize: 1024, format: responseTagsFormat });
  hermesRt = await createRuntime({ model, threads: 1, contextSize: 1024 });
});
afterAll(async () => {
  await rt?.close();
  await hermesRt?.close();
});

const NAMES = HARNESS_TOOLS.map((t) => t.function.name);
const request = (seed: number, extra: Partial<GenerateRequest> = {}): GenerateRequest => ({
  messages: [{ role: "user", content: "Look around the project and fix the failing test." }],
  tools: [...HARNESS_TOOLS],
  toolChoice: "required",
  maxTokens: 160,
  seed,
  ...extra,
});

/** The result keeps the guarantee, in the test format's tags only. */
function expectValidInTestFormat(r: GenerateOutput): void {
  expect(r.errors).toEqual([]);
  expect(r.toolCalls.length).toBeGreaterThanOrEqual(1);
  expect(r.finishReason).toBe("tool_calls");
  expect(r.format).toBe(responseTagsFormat.id);
  for (const call of r.toolCalls) {
    expect(NAMES).toContain(call.name);
    expect(call.format).toBe(responseTagsFormat.id);
    expect(call.raw.startsWith(responseTagsFormat.open.text)).toBe(true);
    expect(call.raw.endsWith(responseTagsFormat.close.text)).toBe(true);
  }
  expect(r.raw.startsWith(`${responseTagsFormat.open.text}\n{"name": "`)).toBe(true);
  expect(r.raw).not.toContain(hermes.open.text);
  // The tags are forced as their special tokens, never spelled from characters.
  expect(r.tokens[0]).toBe(responseTagsFormat.open.token);
  expect(r.tokens.filter((t) => t === responseTagsFormat.close.token)).toHaveLength(r.toolCalls.length);
  expect(r.tokens).not.toContain(QWEN3_TOKENS.toolCallOpen.token);
}

describe("a third format, given as an object", () => {
  test("the runtime's format: tool choice required, every call valid, the raw text in its tags", async () => {
    expect(rt.format).toBe(responseTagsFormat.id);
    for (const seed of [1, 2, 3, 4]) expectValidInTestFormat(await rt.generate(request(seed)));
  });

  test("per request, on a hermes runtime; a named tool too", async () => {
    expectValidInTestFormat(await hermesRt.generate(request(5, { format: responseTagsFormat })));
    const named = await hermesRt.generate(request(6, { format: responseTagsFormat, toolChoice: { name: "grep" } }));
    expectValidInTestFormat(named);
    expect(named.toolCalls.every((c) => c.name === "grep")).toBe(true);
    // The same runtime still speaks hermes when the request does not say otherwise.
    const plain = await hermesRt.generate(request(5));
    expect(plain.format).toBe("hermes");
    expect(plain.tokens[0]).toBe(QWEN3_TOKENS.toolCallOpen.token);
  });

  test("streamed: the events carry the same calls as the result", async () => {
    const calls: string[] = [];
    let done: GenerateOutput | undefined;
    for await (const event of rt.stream(request(7))) {
      if (event.type === "tool-call") calls.push(event.call.name);
      if (event.type === "done") done = event.result as GenerateOutput;
    }
    expectValidInTestFormat(done!);
    expect(calls).toEqual(done!.toolCalls.map((c) => c.name));
  });

  test("tool choice auto: the open tag that triggers the grammar is the format's", async () => {
    // Random weights rarely open a call on their own; a logit bias makes the test format's open tag likely.
    const r = await rt.generate(request(8, { toolChoice: "auto", logitBias: { [responseTagsFormat.open.token]: 100 } }));
    expectValidInTestFormat(r);
    const none = await rt.generate(request(8, { toolChoice: "none", logitBias: { [responseTagsFormat.open.token]: 100 } }));
    expect(none.tokens).not.toContain(responseTagsFormat.open.token as Token);
    expect(none.toolCalls).toEqual([]);
  });
});
