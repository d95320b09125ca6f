// Issue 13, item 12: tool choice required (or a named tool) with a budget too small for any call used to return
// an empty answer with finish_reason "length". Such a request is now refused before any work with
// `budget_too_small`, using a sound lower bound of the cheapest call's tokens (docs/grammar.md).

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRuntime, type GenerateRequest, QtcException, type Runtime } from "../../src/index.js";
import { tinyModelPath } from "../helpers/models.js";

const readFile = { name: "read_file", description: "Read a file", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } };
let rt: Runtime;

beforeAll(async () => {
  rt = await createRuntime({ model: await tinyModelPath(), threads: 1, contextSize: 1024, sequences: 1 });
});
afterAll(async () => {
  await rt?.close();
});

const request = (toolChoice: GenerateRequest["toolChoice"], maxTokens: number): GenerateRequest => ({
  messages: [{ role: "user", content: "Read src/a.js" }],
  tools: [readFile],
  toolChoice,
  maxTokens,
  seed: 1,
});

async function codeOf(req: GenerateRequest): Promise<string> {
  try {
    const out = await rt.generate(req);
    return `ok: ${out.toolCalls.length} calls, ${out.finishReason}`;
  } catch (e) {
    return e instanceof QtcException ? e.code : String(e);
  }
}

describe("a budget too small for any call", () => {
  for (const toolChoice of ["required", { name: "read_file" }] as const) {
    it(`is refused under tool choice ${JSON.stringify(toolChoice)} for maxTokens 1 to 16`, async () => {
      for (let maxTokens = 1; maxTokens <= 16; maxTokens++) expect([maxTokens, await codeOf(request(toolChoice, maxTokens))]).toEqual([maxTokens, "budget_too_small"]);
    });
  }

  it("is refused with thinking on, whose tags take two tokens more", async () => {
    expect(await codeOf({ ...request("required", 18), thinking: true })).toBe("budget_too_small");
  });

  it("still answers with a call when the budget holds one", async () => {
    expect(await codeOf(request("required", 64))).toBe("ok: 1 calls, tool_calls");
  });

  it("does not refuse a small budget under auto (free text may answer)", async () => {
    expect(await codeOf(request("auto", 4))).not.toBe("budget_too_small");
  });
});
