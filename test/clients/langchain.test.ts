// Owns: LangChain (`@langchain/openai` ChatOpenAI with bound tools, `@langchain/core` tools) against qtc serve:
// the client gets only the base URL, key and model name; the docs' tool loop sends the tools, gets structured
// tool_calls, runs each tool and sends the ToolMessages back in turn 2. LangSmith tracing is off.

import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { ChatOpenAI } from "@langchain/openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { agentTraffic } from "./calls.js";
import { API_KEY, describeExchanges, generations, MODEL_NAME, type Qtc, startQtc, watchEgress } from "./harness.js";

let qtc: Qtc;
beforeAll(async () => {
  process.env.LANGSMITH_TRACING = "false";
  process.env.LANGCHAIN_TRACING_V2 = "false";
  qtc = await startQtc({ contextSize: 4096 });
}, 120_000);
afterAll(async () => {
  await qtc?.close();
});

describe("LangChain (@langchain/openai 1.5.8, @langchain/core 1.4.0) on qtc serve", () => {
  it("bindTools + invoke, two turns: the tools sent, structured tool_calls executed, ToolMessages sent back", { timeout: 180_000 }, async () => {
    const egress = watchEgress();
    const ran: unknown[] = [];
    const add = tool(async (input) => (ran.push(input), String(input.a + input.b)), { name: "add", description: "Add two integers.", schema: z.object({ a: z.number().int().min(0).max(999), b: z.number().int().min(0).max(999) }) });
    const shout = tool(async (input) => (ran.push(input), input.text.toUpperCase()), { name: "shout", description: "Upper-case a text.", schema: z.object({ text: z.string().max(40) }) });
    const byName = { add, shout } as const;
    const model = new ChatOpenAI({ model: MODEL_NAME, apiKey: API_KEY, configuration: { baseURL: `${qtc.url}/v1` }, maxTokens: 160, maxRetries: 0 });
    // tool_choice "required": a small model needs the call asked for.
    const bound = model.bindTools([add, shout], { tool_choice: "required" });
    const messages: BaseMessage[] = [new HumanMessage("What is 2 + 3?")];
    const first = await bound.invoke(messages);
    messages.push(first);
    for (const call of first.tool_calls ?? []) messages.push(await byName[call.name as keyof typeof byName].invoke(call));
    await bound.invoke(messages);
    const log = describeExchanges(qtc.exchanges);
    const t = agentTraffic(generations(qtc, "/v1/chat/completions"), "chat");

    expect(t.requests.length, log).toBe(2);
    for (const e of t.requests) expect(e.status, log).toBe(200);
    expect(t.declared.sort(), log).toEqual(["add", "shout"]);
    expect(first.tool_calls?.length ?? 0, log).toBeGreaterThanOrEqual(1);
    expect(first.invalid_tool_calls ?? [], log).toEqual([]);
    const returned = agentTraffic(t.requests.slice(0, 1), "chat").calls;
    expect(first.tool_calls!.map((c) => c.args), log).toEqual(returned.map((c) => JSON.parse(c.args as string)));
    expect(ran, log).toEqual(first.tool_calls!.map((c) => c.args));
    expect(t.results.map((r) => r.id).sort(), log).toEqual(returned.map((c) => c.id).sort());
    expect(egress.stop()).toEqual([]);
  });
});
