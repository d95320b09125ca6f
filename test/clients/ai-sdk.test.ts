// Owns: the Vercel AI SDK (`ai` generateText with tools + `@ai-sdk/openai-compatible`, Chat Completions) against
// qtc serve: the provider gets only the base URL, key and model name; a two-step run sends the tool list, gets a
// structured call, runs its `execute` and sends the result back.

import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, stepCountIs, streamText, tool } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { agentTraffic } from "./calls.js";
import { API_KEY, describeExchanges, generations, MODEL_NAME, type Qtc, startQtc, watchEgress } from "./harness.js";

let qtc: Qtc;
beforeAll(async () => {
  qtc = await startQtc({ contextSize: 4096 });
}, 120_000);
afterAll(async () => {
  await qtc?.close();
});

describe("AI SDK 6.0.326 + @ai-sdk/openai-compatible 2.0.92 on qtc serve", () => {
  it("generateText, two steps: the tools sent, a structured call executed, its result sent back", { timeout: 180_000 }, async () => {
    const egress = watchEgress();
    const provider = createOpenAICompatible({ name: "qtc", baseURL: `${qtc.url}/v1`, apiKey: API_KEY });
    const ran: { name: string; input: unknown }[] = [];
    const tools = {
      write_note: tool({
        description: "Write a note to the notebook.",
        inputSchema: z.object({ title: z.string().max(40), body: z.string().max(80) }),
        execute: async (input) => (ran.push({ name: "write_note", input }), `saved "${input.title}"`),
      }),
      count_notes: tool({
        description: "Count the notes in the notebook.",
        inputSchema: z.object({ folder: z.enum(["inbox", "archive"]) }),
        execute: async (input) => (ran.push({ name: "count_notes", input }), "3 notes"),
      }),
    };
    // A small model needs the call asked for: toolChoice "required" (random weights never open one under auto).
    const result = await generateText({ model: provider(MODEL_NAME), tools, toolChoice: "required", stopWhen: stepCountIs(2), maxOutputTokens: 200, prompt: "Write a note titled groceries." });
    const log = describeExchanges(qtc.exchanges);
    const t = agentTraffic(generations(qtc, "/v1/chat/completions"), "chat");

    expect(t.requests.length, log).toBe(2);
    for (const e of t.requests) expect(e.status, log).toBe(200);
    expect(t.declared.sort(), log).toEqual(["count_notes", "write_note"]);
    expect(t.calls.length, log).toBeGreaterThanOrEqual(2);
    // Every call of step 1 ran with the arguments qtc returned, and its result went back in step 2.
    const step1 = result.steps[0]!;
    expect(step1.toolCalls.length, log).toBeGreaterThanOrEqual(1);
    for (const c of step1.toolCalls) {
      expect(c.invalid ?? false, log).toBe(false);
      const returned = t.calls.find((r) => r.id === c.toolCallId);
      expect(JSON.parse(returned!.args as string), log).toEqual(c.input);
    }
    expect(ran.length, log).toBeGreaterThanOrEqual(step1.toolCalls.length);
    expect(t.results.map((r) => r.id).sort(), log).toEqual(step1.toolCalls.map((c) => c.toolCallId).sort());
    expect(egress.stop()).toEqual([]);
  });

  it("streamText, two steps: the streamed call is executed and its result sent back", { timeout: 180_000 }, async () => {
    const before = qtc.exchanges.length;
    const ran: unknown[] = [];
    const provider = createOpenAICompatible({ name: "qtc", baseURL: `${qtc.url}/v1`, apiKey: API_KEY });
    const tools = { lookup: tool({ description: "Look a word up.", inputSchema: z.object({ word: z.string().max(20) }), execute: async (input) => (ran.push(input), "a definition") }) };
    const stream = streamText({ model: provider(MODEL_NAME), tools, toolChoice: "required", stopWhen: stepCountIs(2), maxOutputTokens: 120, prompt: "Define ephemeral." });
    const steps = await stream.steps;
    const log = describeExchanges(qtc.exchanges.slice(before));
    const t = agentTraffic(generations({ ...qtc, exchanges: qtc.exchanges.slice(before) }, "/v1/chat/completions"), "chat");
    expect(t.requests.length, log).toBe(2);
    expect(t.requests[0]!.body.stream, log).toBe(true);
    expect(t.declared, log).toEqual(["lookup"]);
    expect(steps[0]!.toolCalls.length, log).toBeGreaterThanOrEqual(1);
    // Each step's calls run (step 2's too, before the step limit stops the loop): step 1's ran first, as returned.
    expect(ran.slice(0, steps[0]!.toolCalls.length), log).toEqual(steps[0]!.toolCalls.map((c) => c.input));
    expect(t.results.map((r) => r.id).sort(), log).toEqual(steps[0]!.toolCalls.map((c) => c.toolCallId).sort());
  });
});
