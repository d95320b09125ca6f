// Many at once: concurrent requests on one runtime share model passes (one llama_decode carries a token of
// every active sequence), as counted by `onDecodePass`; and the packing that does it, on its own.

import type { BatchItem, Token } from "node-llama-cpp";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createRuntime, type DecodePass, type GenerateRequest, type Runtime } from "../../src/index.js";
import { HARNESS_TOOLS } from "../../src/harness/index.js";
import { DecodePassTally, fairShare, reportingStrategy } from "../../src/runtime/decode-passes.js";
import { tinyModelPath } from "../helpers/models.js";

const item = (tokens: number): BatchItem => ({ tokens: Array.from({ length: tokens }, () => 1 as Token), logits: [], evaluationPriority: 5 });

describe("fairShare packing", () => {
  test("one token from each of many sequences all go in one pass", () => {
    const items = Array.from({ length: 8 }, () => item(1));
    expect(fairShare(items, 512).map((p) => p.processAmount)).toEqual(Array(8).fill(1));
  });

  test("a long prompt takes what short sequences leave, never more than the batch", () => {
    const packed = fairShare([item(1), item(2000), item(3)], 512);
    expect(packed.map((p) => p.processAmount)).toEqual([1, 508, 3]);
  });

  test("two long prompts split the batch", () => {
    const packed = fairShare([item(600), item(600)], 512);
    expect(packed.map((p) => p.processAmount)).toEqual([256, 256]);
  });

  test("the reporting strategy reports what it packed", () => {
    const passes: DecodePass[] = [];
    reportingStrategy((p) => passes.push(p))({ items: [item(1), item(1), item(700)], size: 512 });
    expect(passes).toEqual([{ sequences: 3, tokens: 512 }]);
  });
});

describe("concurrent requests share passes", () => {
  const tally = new DecodePassTally();
  let rt: Runtime;
  const request = (i: number): GenerateRequest => ({
    messages: [{ role: "user", content: `Show me the files under src, then read the main one (request ${i}).` }],
    tools: [...HARNESS_TOOLS],
    toolChoice: "required",
    maxTokens: 48,
    seed: 30 + i,
  });

  beforeAll(async () => {
    rt = await createRuntime({ model: await tinyModelPath(), threads: 1, contextSize: 1024, sequences: 4, onDecodePass: tally.add });
  });
  afterAll(async () => {
    await rt?.close();
  });

  test("4 requests at once take fewer passes than the same 4 one after another, and passes carry all 4", async () => {
    const reqs = [0, 1, 2, 3].map(request);
    // Warm: each sequence holds its own prompt, so both rounds below evaluate the same (one token each).
    await Promise.all(reqs.map((r) => rt.generate(r)));
    tally.reset();
    for (const r of reqs) await rt.generate(r);
    const alone = tally.snapshot();
    tally.reset();
    const together = await Promise.all(reqs.map((r) => rt.generate(r)));
    const shared = tally.snapshot();
    for (const r of together) expect(r.errors).toEqual([]);
    expect(shared.passes).toBeLessThan(alone.passes);
    expect(shared.bySequences[4] ?? 0).toBeGreaterThan(0);
    // A pass can carry more than one token of a sequence (jump-forward), never more passes than tokens.
    const tokens = together.reduce((n, r) => n + r.usage.completionTokens, 0);
    expect(shared.passes).toBeLessThan(tokens);
  });
});
